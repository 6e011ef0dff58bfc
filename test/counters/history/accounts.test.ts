// Every account's history of one pipe, as its one sender reads it: each
// account's queues in its own state directory, joined; every sample carries
// its account (first), owners are told apart by account, each settlement
// lands in the queues (and acks file) of the account whose page it was,
// also after that account left the join; without named accounts the samples
// are the account's as they are.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccountHistories } from '../../../src/counters/history/accounts.js';
import { HistoryQueues, REMOTE_WRITE_PIPE } from '../../../src/counters/history/index.js';
import { CounterLedger } from '../../../src/counters/ledger.js';
import { seriesKey } from '../../../src/collectors/series/keys.js';
import type { CollectOutput } from '../../../src/collectors/collector.js';
import { StateStore } from '../../../src/state/store.js';

const MIN = 60_000;
const T = Date.UTC(2026, 2, 2, 4, 0);
const REQ = 'edge_domain_requests_total';
/** Both accounts hold this domain. */
const DOMAIN = 'www.example.com';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'edge-account-history-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An account's ledger and history in `<dir>/<name>`, having counted `value` requests in the first bucket. */
async function account(name: string, value: number) {
  const store = new StateStore(join(dir, name));
  const history = new HistoryQueues({ pipe: REMOTE_WRITE_PIPE, store, pageSize: 100, maxPendingSamples: 1_000 });
  const ledger = new CounterLedger([history]);
  await ledger.load(store, 'access');
  const key = seriesKey(REQ, { domain: DOMAIN });
  const out: CollectOutput = {
    increments: [{ name: REQ, labels: { domain: DOMAIN }, value }],
    watermarks: { [key]: T },
    gauges: new Map(),
    errors: [],
    counted: [new Map([[key, { values: [[T, value]] as const }]])],
    bucketMs: MIN,
  };
  ledger.apply('access', out, { gauges: out.gauges, now: T + 2 * MIN, counted: out.counted ?? [], bucketMs: MIN });
  await ledger.save(store, 'access');
  return history;
}

const view = (pages: readonly { owner: string; samples: readonly { labels: Record<string, string>; value: number }[] }[]) =>
  pages.flatMap((p) => p.samples.map((s) => ({ owner: p.owner, labels: s.labels, value: s.value }))).sort((a, b) => a.owner.localeCompare(b.owner));

const acks = (name: string) => (JSON.parse(readFileSync(join(dir, name, 'remote-write-acks.json'), 'utf8')) as { data: { settled: Record<string, number> } }).data.settled;

describe('AccountHistories', () => {
  it('joins the accounts\' heads, each sample with its account first, and settles each page where it came from', async () => {
    const eu = await account('eu', 5);
    const us = await account('us', 9);
    const joined = new AccountHistories(true);
    let told = 0;
    joined.onPages(() => told++);
    joined.set(new Map([['eu', eu], ['us', us]]));
    expect(told).toBe(1);
    const heads = joined.heads();
    expect(view(heads)).toEqual([
      { owner: 'eu/access', labels: { account: 'eu', domain: DOMAIN }, value: 5 },
      { owner: 'us/access', labels: { account: 'us', domain: DOMAIN }, value: 9 },
    ]);
    expect(Object.keys(heads[0]?.samples[0]?.labels ?? {})[0]).toBe('account');
    expect(joined.pendingSamples()).toBe(2);
    // Read again, the same pages (the sender compares nothing, but makes no copies per read).
    expect(joined.heads()[0]).toBe(heads[0]);

    const [euPage] = heads.filter((p) => p.owner === 'eu/access');
    if (!euPage) throw new Error('no eu page');
    await joined.settle([euPage]);
    expect(acks('eu')).toEqual({ access: 1 });
    expect(eu.pendingSamples()).toBe(0);
    expect(us.pendingSamples()).toBe(1);
    expect(view(joined.heads())).toEqual([{ owner: 'us/access', labels: { account: 'us', domain: DOMAIN }, value: 9 }]);
  });

  it('settles a page handed out before its account left in that account\'s own queues, and stops hearing of them', async () => {
    const eu = await account('eu', 5);
    const us = await account('us', 9);
    const joined = new AccountHistories(true);
    joined.set(new Map([['eu', eu], ['us', us]]));
    const onWire = joined.heads().filter((p) => p.owner === 'us/access');
    joined.set(new Map([['eu', eu]]));
    expect(view(joined.heads()).map((p) => p.owner)).toEqual(['eu/access']);
    expect(joined.pendingSamples()).toBe(1);
    await joined.settle(onWire);
    expect(acks('us')).toEqual({ access: 1 });
    let told = 0;
    joined.onPages(() => told++);
    us.committed('access', 0);
    expect(told).toBe(0);
  });

  it('leaves the one account\'s samples and owners as they are when accounts are not named', async () => {
    const only = await account('default', 4);
    const joined = new AccountHistories(false);
    joined.set(new Map([['default', only]]));
    expect(view(joined.heads())).toEqual([{ owner: 'access', labels: { domain: DOMAIN }, value: 4 }]);
    await joined.settle(joined.heads());
    expect(acks('default')).toEqual({ access: 1 });
  });

  it('refuses to settle a page it did not hand out', async () => {
    const eu = await account('eu', 5);
    const joined = new AccountHistories(true);
    joined.set(new Map([['eu', eu]]));
    await expect(joined.settle(eu.heads())).rejects.toThrow(/was not handed out by the accounts' histories/);
  });
});
