// One pipe's history over every account: what the pipe's one sender reads
// when the daemon serves several accounts. Each account keeps its own queues
// (in its own state directory, beside its counters, so removing an account
// removes its history and nothing else); this joins their heads, puts the
// account's name on every sample (`account`, first), and hands each
// settlement back to the account whose page it was. Accounts come and go
// with reloads without the sender restarting: a page of an account that left
// while on the wire is settled in that account's queues all the same (its
// state directory stays), so it is not pushed again at its return.
import type { Labels } from '../../collectors/series/keys.js';
import type { QueuedPage } from './queue.js';
import type { HistoryQueues } from './queues.js';
import type { TimedSample } from './samples.js';
import { InternalError } from '../../shared/errors.js';

/** The label every sample of an account's history carries. */
export const ACCOUNT_LABEL = 'account';

/** A page as the sender sees it: its owner is `<account>/<collector>`, its samples carry `account`. */
interface AccountPage extends QueuedPage {
  /** The page as its account's queues keep it. */
  readonly page: QueuedPage;
  /** Those queues: where it settles, even once its account has left or been rebuilt by a reload. */
  readonly history: HistoryQueues;
}

interface Member {
  readonly history: HistoryQueues;
  readonly unsubscribe: () => void;
}

export class AccountHistories {
  private readonly members = new Map<string, Member>();
  /** Each page handed out, made once: the sender reads heads() often, and one page's samples once. */
  private readonly handedOut = new WeakMap<QueuedPage, AccountPage>();
  private readonly listeners = new Set<() => void>();

  /** `labelled` false: the one account's samples as they are (a config without accounts: and account.name). */
  constructor(private readonly labelled: boolean) {}

  /** Makes `histories` the accounts' queues: new ones join, gone ones leave, an account's new queues replace its old. */
  set(histories: ReadonlyMap<string, HistoryQueues>): void {
    for (const [name, member] of this.members) {
      if (histories.get(name) === member.history) continue;
      member.unsubscribe();
      this.members.delete(name);
    }
    for (const [name, history] of histories) {
      if (this.members.has(name)) continue;
      this.members.set(name, { history, unsubscribe: history.onPages(() => this.notify()) });
    }
    this.notify();
  }

  heads(): AccountPage[] {
    const out: AccountPage[] = [];
    for (const [account, { history }] of this.members) {
      for (const page of history.heads()) out.push(this.relabelled(account, history, page));
    }
    return out;
  }

  pendingSamples(): number {
    let n = 0;
    for (const { history } of this.members.values()) n += history.pendingSamples();
    return n;
  }

  async settle(pages: readonly QueuedPage[]): Promise<void> {
    const byHistory = new Map<HistoryQueues, QueuedPage[]>();
    for (const page of pages) {
      const own = page as Partial<AccountPage>;
      if (own.history === undefined || own.page === undefined) throw new InternalError(`page ${page.owner}#${page.seq} was not handed out by the accounts' histories`);
      const list = byHistory.get(own.history) ?? [];
      list.push(own.page);
      byHistory.set(own.history, list);
    }
    await Promise.all([...byHistory].map(([history, own]) => history.settle(own)));
  }

  onPages(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private relabelled(account: string, history: HistoryQueues, page: QueuedPage): AccountPage {
    const known = this.handedOut.get(page);
    if (known !== undefined) return known;
    const samples = this.labelled ? page.samples.map((s): TimedSample => ({ ...s, labels: withAccount(account, s.labels) })) : page.samples;
    const out: AccountPage = {
      page,
      history,
      owner: this.labelled ? `${account}/${page.owner}` : page.owner,
      seq: page.seq,
      createdMs: page.createdMs,
      ...(page.tag === undefined ? {} : { tag: page.tag }),
      samples,
    };
    this.handedOut.set(page, out);
    return out;
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

/** `labels` with `account` first, as every account's series carries it. */
function withAccount(account: string, labels: Labels): Labels {
  return { [ACCOUNT_LABEL]: account, ...labels };
}
