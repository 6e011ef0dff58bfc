// The history through the ledger and a real state directory: pages are handed
// out only once the ledger file holding them is written, a confirmation is on
// disk before settle resolves, and a restart (a new ledger and history queues on the
// same directory) keeps exactly what was not confirmed.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryQueues, REMOTE_WRITE_PIPE } from '../../../src/counters/history/index.js';
import { CounterLedger } from '../../../src/counters/ledger.js';
import { seriesKey } from '../../../src/collectors/series/keys.js';
import type { CollectOutput } from '../../../src/collectors/collector.js';
import { restoreLedger } from '../../../src/engine/sample-job/cycle.js';
import { stateRecovery } from '../../../src/state/recovery.js';
import { StateStore } from '../../../src/state/store.js';

const MIN = 60_000;
const T = Date.UTC(2026, 2, 2, 4, 0);
const REQ = 'edge_domain_requests_total';
const doms = ['a.com', 'b.com', 'c.com'];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'edge-history-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function open(options: { pageSize?: number; maxPendingSamples?: number } = {}) {
  const store = new StateStore(dir);
  const dropped: number[] = [];
  const pending: number[] = [];
  const history = new HistoryQueues({
    pipe: REMOTE_WRITE_PIPE, store, pageSize: options.pageSize ?? 100, maxPendingSamples: options.maxPendingSamples ?? 1_000_000,
    onDropped: (n) => dropped.push(n), onPending: (n) => pending.push(n),
  });
  return { store, history, ledger: new CounterLedger([history]), dropped, pending };
}

/** A cycle counting `values[i]` for domain i in the bucket starting at minute `m` (from the previous watermark, one bucket). */
function cycle(m: number, values: readonly number[]): CollectOutput {
  const keys = doms.map((d) => seriesKey(REQ, { domain: d }));
  return {
    increments: doms.map((d, i) => ({ name: REQ, labels: { domain: d }, value: values[i] ?? 0 })),
    watermarks: Object.fromEntries(keys.map((k) => [k, T + m * MIN])),
    gauges: new Map(),
    errors: [],
    counted: [new Map(keys.map((k, i) => [k, { values: [[T + m * MIN, values[i] ?? 0]] as const }]))],
    bucketMs: MIN,
  };
}

const applyCycle = (ledger: CounterLedger, out: CollectOutput, now: number): void => {
  ledger.apply('access', out, { gauges: out.gauges, now, ...(out.counted ? { counted: out.counted } : {}), ...(out.bucketMs ? { bucketMs: out.bucketMs } : {}) });
};

const flat = (pages: readonly { samples: readonly { labels: Record<string, string>; timestampMs: number; value: number }[] }[]) =>
  pages.flatMap((p) => p.samples.map((s) => `${s.labels.domain}@${(s.timestampMs - T) / MIN}=${s.value}`));

describe('the history kept with the counters', () => {
  it('staged until the ledger file is written; settled only once on disk; a restart keeps what was not confirmed', async () => {
    const a = open({ pageSize: 2 });
    await a.ledger.load(a.store, 'access');
    applyCycle(a.ledger, cycle(0, [5, 7, 0]), T + 2 * MIN);
    // Counted, not yet written: nothing for the sender.
    expect(a.history.heads()).toEqual([]);
    expect(a.history.pendingSamples()).toBe(3);
    await a.ledger.save(a.store, 'access');
    // Pages of at most 2 samples; the sender sees one head per collector.
    expect(flat(a.history.heads())).toEqual(['a.com@1=5', 'b.com@1=7']);

    await a.history.settle(a.history.heads());
    const acks = JSON.parse(readFileSync(join(dir, 'remote-write-acks.json'), 'utf8')) as { data: { settled: Record<string, number> } };
    expect(acks.data.settled).toEqual({ access: 1 });
    expect(flat(a.history.heads())).toEqual(['c.com@1=0']);

    // The next cycle adds the next bucket, on top of the totals.
    applyCycle(a.ledger, cycle(1, [1, 2, 3]), T + 3 * MIN);
    await a.ledger.save(a.store, 'access');
    expect(a.history.pendingSamples()).toBe(4);

    // kill -9 here: a new ledger and history queues on the same directory.
    const b = open({ pageSize: 2 });
    await b.ledger.load(b.store, 'access');
    expect(b.history.pendingSamples()).toBe(4);
    const seen: string[] = [];
    for (let heads = b.history.heads(); heads.length > 0; heads = b.history.heads()) {
      seen.push(...flat(heads));
      await b.history.settle(heads);
    }
    expect(seen).toEqual(['c.com@1=0', 'a.com@2=6', 'b.com@2=9', 'c.com@2=3']);
    // A cycle after the restart continues the seqs past every confirmation.
    applyCycle(b.ledger, cycle(2, [0, 0, 1]), T + 4 * MIN);
    await b.ledger.save(b.store, 'access');
    expect(flat(b.history.heads())).toEqual(['a.com@3=6', 'b.com@3=9']);
    expect(b.history.heads()[0]?.seq).toBe(5);
    // The file keeps only the series its waiting pages hold, each once.
    const file = JSON.parse(readFileSync(join(dir, 'ledger-access.json'), 'utf8')) as { data: { history: { series: [number, string, Record<string, string>][]; pages: { seq: number; samples: number[] }[] } } };
    expect(file.data.history.series.map(([, , labels]) => labels.domain).sort()).toEqual(doms);
    expect(file.data.history.pages.map((p) => [p.seq, p.samples.length / 3])).toEqual([[5, 2], [6, 1]]);
  });

  it('a ledger file lost after confirmations: new pages get seqs past them, so none is taken for confirmed', async () => {
    const a = open();
    await a.ledger.load(a.store, 'access');
    applyCycle(a.ledger, cycle(0, [1, 1, 1]), T + 2 * MIN);
    await a.ledger.save(a.store, 'access');
    await a.history.settle(a.history.heads());
    rmSync(join(dir, 'ledger-access.json'));

    const b = open();
    await b.ledger.load(b.store, 'access');
    applyCycle(b.ledger, cycle(5, [2, 2, 2]), T + 7 * MIN);
    await b.ledger.save(b.store, 'access');
    const c = open();
    await c.ledger.load(c.store, 'access');
    expect(c.history.heads().map((p) => p.seq)).toEqual([2]);
    expect(flat(c.history.heads())).toEqual(['a.com@6=2', 'b.com@6=2', 'c.com@6=2']);
  });

  it('over max_pending_samples the oldest pages go (never the head), and are reported', async () => {
    const a = open({ pageSize: 1_000, maxPendingSamples: 1_000 });
    await a.ledger.load(a.store, 'access');
    // 3 samples a cycle: pages of 3; 400 cycles would be 1,200 samples.
    for (let m = 0; m < 400; m++) applyCycle(a.ledger, cycle(m, [1, 1, 1]), T + (m + 2) * MIN);
    expect(a.history.pendingSamples()).toBe(999);
    expect(a.dropped.reduce((x, y) => x + y, 0)).toBe(201);
    await a.ledger.save(a.store, 'access');
    // The head is the first cycle's page; the next is the 69th cycle's (pages 2..68 dropped).
    const first = a.history.heads()[0];
    expect(flat(a.history.heads())).toEqual(['a.com@1=1', 'b.com@1=1', 'c.com@1=1']);
    await a.history.settle(first ? [first] : []);
    expect(flat(a.history.heads())).toEqual(['a.com@69=69', 'b.com@69=69', 'c.com@69=69']);
    expect(a.pending.at(-1)).toBe(996);
  });
});

describe('a damaged remote-write-acks.json', () => {
  const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => quiet };

  async function withPending(): Promise<void> {
    const a = open();
    await a.ledger.load(a.store, 'access');
    applyCycle(a.ledger, cycle(0, [1, 2, 3]), T + 2 * MIN);
    await a.ledger.save(a.store, 'access');
    await a.history.settle(a.history.heads());
    applyCycle(a.ledger, cycle(1, [4, 5, 6]), T + 3 * MIN);
    await a.ledger.save(a.store, 'access');
    writeFileSync(join(dir, 'remote-write-acks.json'), '{"version":1,"data":{"settled":');
  }

  it('stops start-up naming it, and leaves the collector\'s own file alone (state_recovery: fail)', async () => {
    await withPending();
    const b = open();
    const failed = restoreLedger(b.ledger, b.store, 'access', quiet, stateRecovery(b.store, 'fail'));
    await expect(failed).rejects.toThrow(/remote-write-acks\.json.*Refusing to start rather than push again/s);
    expect(existsSync(join(dir, 'ledger-access.json'))).toBe(true);
  });

  it('is kept aside and what the ledger file still holds is pushed again; the counters stay (state_recovery: reset)', async () => {
    await withPending();
    const store = new StateStore(dir);
    const resets: string[] = [];
    const history = new HistoryQueues({
      pipe: REMOTE_WRITE_PIPE, store, pageSize: 100, maxPendingSamples: 1_000_000, recovery: stateRecovery(store, 'reset'), onReset: (r) => resets.push(r.keptAs),
    });
    const ledger = new CounterLedger([history]);
    await restoreLedger(ledger, store, 'access', quiet, stateRecovery(store, 'reset'));
    expect(resets).toHaveLength(1);
    expect(readdirSync(dir).some((f) => f.startsWith('remote-write-acks.json.damaged-'))).toBe(true);
    // The file holds the pages waiting at its last save (the first cycle's had been confirmed and left): they come back.
    expect(flat(history.heads())).toEqual(['a.com@2=5', 'b.com@2=7', 'c.com@2=9']);
    expect(history.pendingSamples()).toBe(3);
    // Everything restored from the file is on disk, so the view shows all of it.
    expect([...ledger.saved('access')].map((c) => c.value).sort()).toEqual([5, 7, 9]);
  });
});
