// The daemon's lifecycle as data: the states it passes through, what it holds
// in each, the moves allowed between them (one table, checked at every move)
// and the one status the landing page and /readyz read.
//
//   created -> starting -> running <-> reloading
//   starting, reloading -> failed   (a start, or a reload's way back, failed)
//   created, running, failed -> stopping -> stopped
//
// A start without a server (the first runOnce/forwardOnce: `run --once`,
// tests) passes through the same states; `held.server` is then undefined.
import type { SelfReadings } from '../exporters/prometheus/index.js';
import type { AccountStatus, DaemonStatus, HttpServer, ReloadStatus } from '../server/index.js';
import { accountRows, senderRows } from './status.js';
import type { HeldDir } from './state-dir.js';
import type { Account, Components } from './accounts.js';
import type { LocalUpstream } from './wiring/upstream.js';
import { InternalError } from '../shared/errors.js';

/**
 * What the daemon takes while it starts and keeps for its whole life,
 * reloads included; filled in start-up order, released at stop in reverse.
 */
export interface Held {
  dir?: HeldDir;
  server?: HttpServer;
  local?: LocalUpstream;
}

export type State =
  /** Constructed; nothing held. */
  | { readonly name: 'created' }
  /** Taking the lock, binding the port, starting the bundled simulator, building and starting the jobs. */
  | { readonly name: 'starting'; readonly held: Held }
  /** The components of the config in force run (or wait for runOnce under `schedules: false` and `run --once`). */
  | { readonly name: 'running'; readonly held: Held; readonly components: Components }
  /** A reload: `components` are the previous config's until new ones replace them (stopped while those start). */
  | { readonly name: 'reloading'; readonly held: Held; readonly components: Components }
  /** A start failed, or a reload's new config and then its previous one both did; only stop() is left. */
  | { readonly name: 'failed'; readonly held: Held; readonly components: Components | undefined; readonly error: unknown }
  /** Jobs saving their state, then what is held released; `components` still shown on the landing page. */
  | { readonly name: 'stopping'; readonly components: Components | undefined }
  | { readonly name: 'stopped' };

type Name = State['name'];

const NEXT: Readonly<Record<Name, readonly Name[]>> = {
  created: ['starting', 'stopping'],
  starting: ['running', 'failed'],
  running: ['reloading', 'stopping'],
  reloading: ['running', 'failed'],
  failed: ['stopping'],
  stopping: ['stopped'],
  stopped: [],
};

/** `to`, when the lifecycle allows it after `from`; a move it does not allow is a bug in the daemon and throws. */
export function move(from: State, to: State): State {
  if (!NEXT[from.name].includes(to.name)) throw new InternalError(`the daemon cannot go from ${from.name} to ${to.name}`);
  return to;
}

/** What the status shows besides the jobs' run state: the daemon supplies it. */
interface StatusExtras {
  /** The daemon's own notices (the push pipes' connection failures). */
  readonly notices: readonly string[];
  /** The daemon's own self-metrics' readings (the push pipes' lags). */
  readonly readings: SelfReadings;
  /** An account's readings, notices and upstream URL in force (credentials masked). */
  readonly account: (account: Account) => AccountExtras;
  /** Accounts are named: each has a section of its own. */
  readonly labelled: boolean;
  readonly reload: ReloadStatus | undefined;
}

interface AccountExtras {
  readonly readings: SelfReadings;
  readonly notices: readonly string[];
  readonly upstream: string | undefined;
}

/** The one status: every job of the components in force, and whether /readyz says ready. */
export function statusOf(state: State, extras: StatusExtras): DaemonStatus {
  const components = 'components' in state ? state.components : undefined;
  const collectors = components?.accounts.flatMap((a) => a.parts.engine.status('samples')) ?? [];
  // With every metric collector disabled (only WAF events forwarded) there is no cycle to wait for. A
  // reload that rebuilt the engine (or restarted every collector) has run nothing yet, so /readyz then waits
  // for a first success again; collectors a reload left running keep theirs. With several accounts one
  // account's first success is enough: an account down must not take the others' series out of service.
  const serving = state.name === 'running' || state.name === 'reloading';
  const ready = serving && (collectors.length === 0 || collectors.some((s) => s.lastSuccessAt !== undefined));
  const accounts = (components?.accounts ?? []).map((account) => accountStatus(account, extras.account(account)));
  const senders = components === undefined ? [] : senderRows(components.pipes, extras.readings);
  const base = { state: state.name, ready, ...(extras.reload === undefined ? {} : { reload: extras.reload }) };
  const [only] = accounts;
  if (!extras.labelled && accounts.length <= 1) {
    // One account, not named: the page as before accounts existed.
    return {
      ...base,
      jobs: [...(only?.jobs ?? []), ...senders],
      notices: [...(only?.notices ?? []), ...extras.notices],
      contractMismatches: only?.contractMismatches ?? [],
      ...(only?.wafEvents === undefined ? {} : { wafEvents: only.wafEvents }),
      ...(only?.upstream === undefined ? {} : { upstream: only.upstream }),
    };
  }
  return { ...base, jobs: senders, notices: extras.notices, contractMismatches: [], accounts };
}

function accountStatus(account: Account, extras: AccountExtras): AccountStatus {
  const contractMismatches = [...extras.readings.contractMismatches].map(([check, count]) => ({ check, count }));
  return {
    name: account.name,
    jobs: accountRows(account, extras.readings),
    notices: extras.notices,
    contractMismatches,
    ...(account.parts.wafEvents === undefined ? {} : { wafEvents: extras.readings.wafEvents }),
    ...(extras.upstream === undefined ? {} : { upstream: extras.upstream }),
  };
}
