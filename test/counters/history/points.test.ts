// OTLP metrics' points of a cycle (pointSampler), each with its own start:
// delta points over their bucket, cumulative points from the series' start
// (the ledger's, else the first bucket's), corrections, gauges; then the same
// starts through the OTLP pipe's queue, a ledger save and a restart, and the
// ledger's start kept per series and never moved. Every expected value is
// worked out by hand from the inputs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryQueues, otlpMetricsPipe } from '../../../src/counters/history/index.js';
import { pointSampler, type HistoryInput, type SampleContext, type Temporality } from '../../../src/counters/history/samples.js';
import { CounterLedger, CounterTotals } from '../../../src/counters/ledger.js';
import { seriesKey } from '../../../src/collectors/series/keys.js';
import type { CollectOutput, Sample } from '../../../src/collectors/collector.js';
import { StateStore } from '../../../src/state/store.js';

const MIN = 60_000;
const B5 = 5 * MIN;
const T = Date.UTC(2026, 2, 2, 4, 0);
const REQ = 'edge_domain_requests_total';
const BW = 'edge_domain_bandwidth_bytes_per_second';
const A = { domain: 'a.com' };
const B = { domain: 'b.com' };
const kA = seriesKey(REQ, A);
const kB = seriesKey(REQ, B);

const input = (o: Partial<HistoryInput>): HistoryInput => ({ increments: [], watermarks: {}, gauges: new Map(), now: T + 60 * MIN, ...o });

function context(o: { before?: Record<string, number>; start?: Record<string, number>; lastGauge?: Record<string, number> } = {}): SampleContext {
  return {
    before: (key) => o.before?.[key],
    startOf: (key) => o.start?.[key],
    lastGauge: (key) => o.lastGauge?.[key],
  };
}

/** A point as [domain, start, end, value], times in minutes from T. */
const rows = (samples: readonly { labels: Readonly<Record<string, string>>; startMs?: number; timestampMs: number; value: number }[]) =>
  samples.map((s) => [s.labels.domain, s.startMs === undefined ? undefined : (s.startMs - T) / MIN, (s.timestampMs - T) / MIN, s.value]);

// Series A: 100 before the cycle, then three 5-minute buckets counted (back-filled after an outage): 5, 0, 7.
const threeBuckets = input({
  increments: [{ name: REQ, labels: A, value: 12 }],
  watermarks: { [kA]: T + 10 * MIN },
  counted: [new Map([[kA, { values: [[T, 5], [T + 5 * MIN, 0], [T + 10 * MIN, 7]] as const }]])],
  bucketMs: B5,
});

describe('pointSampler: counters', () => {
  it('delta: each bucket its own point, from its start to its end, valued at its own increment', () => {
    const out = pointSampler('delta')(threeBuckets, context({ before: { [kA]: 100 }, start: { [kA]: T - 60 * MIN } }));
    expect(rows(out)).toEqual([
      ['a.com', 0, 5, 5],
      ['a.com', 5, 10, 0],
      ['a.com', 10, 15, 7],
    ]);
  });

  it('cumulative: running totals from the total before, all starting at the ledger\'s start', () => {
    const out = pointSampler('cumulative')(threeBuckets, context({ before: { [kA]: 100 }, start: { [kA]: T - 60 * MIN } }));
    // 100 + 5, + 0, + 7.
    expect(rows(out)).toEqual([
      ['a.com', -60, 5, 105],
      ['a.com', -60, 10, 105],
      ['a.com', -60, 15, 112],
    ]);
  });

  it('cumulative without a start in the ledger: the first bucket\'s start', () => {
    // A series counted for the first time (no total before), and one from a file without startMs (a total, no start).
    const fresh = pointSampler('cumulative')(threeBuckets, context());
    expect(rows(fresh)).toEqual([
      ['a.com', 0, 5, 5],
      ['a.com', 0, 10, 5],
      ['a.com', 0, 15, 12],
    ]);
    const older = pointSampler('cumulative')(threeBuckets, context({ before: { [kA]: 100 } }));
    expect(rows(older)).toEqual([
      ['a.com', 0, 5, 105],
      ['a.com', 0, 10, 105],
      ['a.com', 0, 15, 112],
    ]);
  });

  it('a new series with only its 0: over the settled bucket its watermark names', () => {
    // B first seen: watermark at the bucket starting at T+20m, nothing counted yet.
    const cycle = input({ increments: [{ name: REQ, labels: B, value: 0 }], watermarks: { [kB]: T + 20 * MIN }, counted: [], bucketMs: B5 });
    expect(rows(pointSampler('delta')(cycle, context()))).toEqual([['b.com', 20, 25, 0]]);
    expect(rows(pointSampler('cumulative')(cycle, context()))).toEqual([['b.com', 20, 25, 0]]);
    // Seen before (a total): its 0 is no news, nothing is sent.
    expect(pointSampler('delta')(cycle, context({ before: { [kB]: 4 } }))).toEqual([]);
    expect(pointSampler('cumulative')(cycle, context({ before: { [kB]: 4 } }))).toEqual([]);
  });

  // A: 10 before; this cycle counts the bucket at T (4) and the audit adds 3 to the bucket at T-10m.
  // B: 50 before; nothing counted this cycle, the audit adds 2 to its bucket at T-5m.
  const corrected = input({
    increments: [{ name: REQ, labels: A, value: 4 }, { name: REQ, labels: A, value: 3 }, { name: REQ, labels: B, value: 2 }],
    watermarks: { [kA]: T },
    counted: [new Map([[kA, { values: [[T, 4]] as const }]])],
    corrected: new Map([[kA, [[T - 10 * MIN, 3]] as const], [kB, [[T - 5 * MIN, 2]] as const]]),
    bucketMs: B5,
  });
  const before = { [kA]: 10, [kB]: 50 };
  const start = { [kA]: T - 30 * MIN, [kB]: T - 30 * MIN };

  it('delta: a correction is a point of its own over the bucket it corrected', () => {
    expect(rows(pointSampler('delta')(corrected, context({ before, start })))).toEqual([
      ['a.com', -10, -5, 3],
      ['a.com', 0, 5, 4],
      ['b.com', -5, 0, 2],
    ]);
  });

  it('cumulative: no point for a correction; it shows in the next cycle\'s total', () => {
    // A: 10 + 4 at the bucket's end; the +3 is not in it. B: no bucket, no point.
    expect(rows(pointSampler('cumulative')(corrected, context({ before, start })))).toEqual([['a.com', -30, 5, 14]]);
    // Next cycle: A's total before is 10 + 4 + 3 = 17; its bucket at T+5m adds 2.
    const next = input({
      increments: [{ name: REQ, labels: A, value: 2 }],
      watermarks: { [kA]: T + 5 * MIN },
      counted: [new Map([[kA, { values: [[T + 5 * MIN, 2]] as const }]])],
      bucketMs: B5,
    });
    expect(rows(pointSampler('cumulative')(next, context({ before: { [kA]: 17 }, start })))).toEqual([['a.com', -30, 10, 19]]);
  });

  it.each<Temporality>(['delta', 'cumulative'])('%s: no bucketMs (a collector without buckets), no counter point', (temporality) => {
    const noBuckets = input({
      increments: [{ name: REQ, labels: A, value: 12 }],
      watermarks: { [kA]: T },
      counted: [new Map([[kA, { values: [[T, 12]] as const }]])],
      corrected: new Map([[kA, [[T - 5 * MIN, 1]] as const]]),
    });
    expect(pointSampler(temporality)(noBuckets, context())).toEqual([]);
  });
});

describe('pointSampler: gauges', () => {
  const gauges = new Map<string, readonly Sample[]>([
    [BW, [
      { name: BW, labels: A, value: 1.5, bucketStartMs: T + 15 * MIN },
      { name: BW, labels: B, value: 2.5, bucketStartMs: T + 15 * MIN },
    ]],
    ['edge_domain_info', [
      { name: 'edge_domain_info', labels: A, value: 1 },
      { name: 'edge_domain_info', labels: B, value: 1, timestampMs: T + 7 * MIN },
    ]],
  ]);
  // A's bandwidth was already sent at T+15m; B's last one at T+10m.
  const lastGauge = { [seriesKey(BW, A)]: T + 15 * MIN, [seriesKey(BW, B)]: T + 10 * MIN };

  it.each<Temporality>(['delta', 'cumulative'])('%s: start = time (the bucket start, else the timestamp, else now), only newer than the series\' last', (temporality) => {
    const out = pointSampler(temporality)(input({ gauges, now: T + 20 * MIN }), context({ lastGauge }));
    expect(out.map((s) => [s.name, ...rows([s])[0] ?? []])).toEqual([
      [BW, 'b.com', 15, 15, 2.5],
      ['edge_domain_info', 'a.com', 20, 20, 1],
      ['edge_domain_info', 'b.com', 7, 7, 1],
    ]);
    expect(out.map((s) => s.gaugeFamily)).toEqual([BW, 'edge_domain_info', 'edge_domain_info']);
  });
});

// ---------------------------------------------------------------------------------------------
// Through the queue, the ledger file and a restart.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'edge-otlp-history-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function open(temporality: Temporality) {
  const store = new StateStore(dir);
  const history = new HistoryQueues({ pipe: otlpMetricsPipe(temporality), store, pageSize: 100, maxPendingSamples: 1_000_000 });
  return { store, history, ledger: new CounterLedger([history]) };
}

/** A cycle of A counting `buckets` ([minute from T, value]); its watermark at the last one. */
function cycle(buckets: readonly (readonly [number, number])[]): CollectOutput {
  const values = buckets.map(([m, v]) => [T + m * MIN, v] as const);
  return {
    increments: [{ name: REQ, labels: A, value: buckets.reduce((n, [, v]) => n + v, 0) }],
    watermarks: { [kA]: T + (buckets.at(-1)?.[0] ?? 0) * MIN },
    gauges: new Map(),
    errors: [],
    counted: [new Map([[kA, { values }]])],
    bucketMs: B5,
  };
}

const applyCycle = (ledger: CounterLedger, out: CollectOutput, now: number): void => {
  ledger.apply('access', out, { gauges: out.gauges, now, ...(out.counted ? { counted: out.counted } : {}), ...(out.bucketMs ? { bucketMs: out.bucketMs } : {}) });
};

const heads = (history: HistoryQueues) => history.heads().flatMap((p) => rows(p.samples));

interface SavedLedger {
  data: { counters: { name: string; startMs?: number }[]; otlpHistory: { series: [number, string, Record<string, string>][]; pages: { samples: number[] }[] } };
}
const readLedger = (): SavedLedger => JSON.parse(readFileSync(join(dir, 'ledger-access.json'), 'utf8')) as SavedLedger;

describe('the OTLP pipe\'s queue through a ledger save and restore', () => {
  it.each([
    { temporality: 'delta' as const, want: [['a.com', 0, 5, 5], ['a.com', 5, 10, 7]] },
    { temporality: 'cumulative' as const, want: [['a.com', 0, 5, 5], ['a.com', 0, 10, 12]] },
  ])('$temporality: the file holds [series, start, time, value] rows; a restart gives the same points back', async ({ temporality, want }) => {
    const a = open(temporality);
    await a.ledger.load(a.store, 'access');
    applyCycle(a.ledger, cycle([[0, 5], [5, 7]]), T + 15 * MIN);
    await a.ledger.save(a.store, 'access');
    // A page holds no two points of one series: one page per point here.
    expect(heads(a.history)).toEqual([want[0]]);

    const file = readLedger().data.otlpHistory;
    const index = file.series.find(([, name, labels]) => name === REQ && labels.domain === 'a.com')?.[0];
    expect(file.pages.map((p) => p.samples)).toEqual(want.map(([, start, end, value]) => [index, T + Number(start) * MIN, T + Number(end) * MIN, value]));

    // kill -9: new queues and ledger on the same directory.
    const b = open(temporality);
    await b.ledger.load(b.store, 'access');
    const seen: unknown[] = [];
    for (let h = b.history.heads(); h.length > 0; h = b.history.heads()) {
      seen.push(...h.flatMap((p) => rows(p.samples)));
      await b.history.settle(h);
    }
    expect(seen).toEqual(want);
  });
});

describe('the series start kept by the ledger', () => {
  it('is the first bucket\'s start, saved as startMs, and never moves across a restart', async () => {
    const a = open('cumulative');
    await a.ledger.load(a.store, 'access');
    applyCycle(a.ledger, cycle([[10, 3]]), T + 20 * MIN);
    await a.ledger.save(a.store, 'access');
    expect(readLedger().data.counters).toEqual([{ name: REQ, labels: A, value: 3, startMs: T + 10 * MIN }]);

    const b = open('cumulative');
    await b.ledger.load(b.store, 'access');
    await b.history.settle(b.history.heads());
    // Two cycles later: the points start where the series did, not at this cycle's first bucket.
    applyCycle(b.ledger, cycle([[15, 4], [20, 1]]), T + 30 * MIN);
    await b.ledger.save(b.store, 'access');
    expect(heads(b.history)).toEqual([['a.com', 10, 20, 7]]);
    expect(readLedger().data.counters).toEqual([{ name: REQ, labels: A, value: 8, startMs: T + 10 * MIN }]);
  });

  it('startAt on a series that has a start is ignored; a series never counted gets none', () => {
    const totals = new CounterTotals();
    totals.startAt(kA, T);
    expect(totals.start(kA)).toBeUndefined();
    totals.add(REQ, A, 1);
    expect(totals.start(kA)).toBeUndefined();
    totals.startAt(kA, T + 5 * MIN);
    totals.startAt(kA, T - 5 * MIN);
    totals.startAt(kA, T + 10 * MIN);
    expect(totals.start(kA)).toBe(T + 5 * MIN);
    expect(totals.fileEntries()).toEqual([{ name: REQ, labels: A, value: 1, startMs: T + 5 * MIN }]);
  });

  it('a series from a file without startMs gets one at its next counted cycle, and keeps it', async () => {
    // A ledger file from before the start was kept: A at 40, watermark at T+5m.
    const data = { collector: 'access', watermarks: { [kA]: T + 5 * MIN }, counters: [{ name: REQ, labels: A, value: 40 }] };
    writeFileSync(join(dir, 'ledger-access.json'), JSON.stringify({ version: 1, data }));
    const a = open('cumulative');
    await a.ledger.load(a.store, 'access');
    applyCycle(a.ledger, cycle([[10, 2]]), T + 20 * MIN);
    await a.ledger.save(a.store, 'access');
    // The first point starts at the first bucket counted since: T+10m, valued 40 + 2.
    expect(heads(a.history)).toEqual([['a.com', 10, 15, 42]]);
    expect(readLedger().data.counters).toEqual([{ name: REQ, labels: A, value: 42, startMs: T + 10 * MIN }]);
    await a.history.settle(a.history.heads());
    applyCycle(a.ledger, cycle([[15, 1]]), T + 25 * MIN);
    await a.ledger.save(a.store, 'access');
    expect(heads(a.history)).toEqual([['a.com', 10, 20, 43]]);
    expect(readLedger().data.counters).toEqual([{ name: REQ, labels: A, value: 43, startMs: T + 10 * MIN }]);
  });
});
