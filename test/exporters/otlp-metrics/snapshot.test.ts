// The snapshot of the families without buckets (the exporter's own, the WAF
// counter): cumulative counters from the process' start; delta counters from
// the baseline, then from the last page settled (confirmed or refused), never
// two pages over the same time; a reset sends its whole total; histograms per
// bucket; gauges at now. A fake families() and clock; values by hand.
import { describe, expect, it } from 'vitest';
import type { Temporality } from '../../../src/counters/index.js';
import type { OtlpPage } from '../../../src/exporters/otlp-metrics/points.js';
import { SnapshotSource } from '../../../src/exporters/otlp-metrics/snapshot.js';
import type { FamilyDef, FamilySnapshot } from '../../../src/exporters/prometheus/serialize.js';

const T = Date.UTC(2026, 2, 2, 4, 0);
const S = T - 3_600_000;
const DENIED: FamilyDef = { name: 'edge_waf_denied_requests_total', type: 'counter', help: '', unit: 'requests', labels: ['domain'] };
const UP: FamilyDef = { name: 'edge_exporter_collector_up', type: 'gauge', help: '', unit: 'boolean', labels: ['collector'] };
const DURATION: FamilyDef = { name: 'edge_exporter_upstream_request_duration_seconds', type: 'histogram', help: '', unit: 'seconds', labels: ['operation'], buckets: [0.1, 1] };

/** What the families hold now: per domain the denied total, the up gauge, one histogram (cumulative buckets, count, sum). */
interface Now {
  denied: Record<string, number>;
  up: number;
  histogram?: { cumulative: [number, number]; count: number; sum: number };
}

function rig(temporality: Temporality, first: Now, startOf?: (family: string) => number | undefined) {
  const clock = { now: T };
  const state = { current: first, calls: 0 };
  const families = (): Promise<FamilySnapshot[]> => {
    state.calls++;
    const { denied, up, histogram } = state.current;
    const out: FamilySnapshot[] = [
      { def: DENIED, series: Object.entries(denied).map(([domain, value]) => ({ labelValues: [domain], value })) },
      { def: UP, series: [{ labelValues: ['access'], value: up }] },
    ];
    if (histogram !== undefined) {
      out.push({ def: DURATION, series: [{ labelValues: ['getStats'], value: histogram.count, histogram: { cumulative: histogram.cumulative, sum: histogram.sum } }] });
    }
    return Promise.resolve(out);
  };
  const source = new SnapshotSource({ families, temporality, startMs: S, now: () => clock.now, ...(startOf === undefined ? {} : { startOf }) });
  let woken = 0;
  source.onPages(() => woken++);
  return { source, clock, state, woken: () => woken };
}

const head = (source: SnapshotSource): OtlpPage => {
  const [page, ...more] = source.heads();
  expect(more).toEqual([]);
  if (page === undefined) throw new Error('no page pending');
  return page;
};

/** A page's points as [family, label value, start (s from T), time (s from T), value, histogram counts and sum]. */
const points = (page: OtlpPage) =>
  (page.snapshot ?? []).map((p) => {
    const row: unknown[] = [p.def.name, Object.values(p.labels)[0], (p.startMs - T) / 1000, (p.timeMs - T) / 1000, p.value];
    if (p.histogram !== undefined) row.push(p.histogram.counts, p.histogram.sum);
    return row;
  });

describe('SnapshotSource: cumulative', () => {
  it('a family whose total outlives the process (the WAF counter) starts where it counts from, the others at startMs', async () => {
    const origin = T - 7 * 24 * 3_600_000;
    const r = rig('cumulative', { denied: { 'a.com': 10 }, up: 1 }, (family) => (family === DENIED.name ? origin : undefined));
    r.clock.now = T + 30_000;
    await r.source.take();
    expect(points(head(r.source))).toEqual([
      [DENIED.name, 'a.com', (origin - T) / 1000, 30, 10],
      [UP.name, 'access', 30, 30, 1],
    ]);
  });

  it('counters and histograms start at startMs with their totals; gauges at now; settled or not, the start stays', async () => {
    const r = rig('cumulative', { denied: { 'a.com': 10 }, up: 1, histogram: { cumulative: [1, 3], count: 4, sum: 0.5 } });
    await r.source.baseline(); // nothing in cumulative
    r.clock.now = T + 30_000;
    await r.source.take();
    const page = head(r.source);
    expect(page.owner).toBe('(snapshot)');
    expect(r.woken()).toBe(1);
    expect(points(page)).toEqual([
      [DENIED.name, 'a.com', -3600, 30, 10],
      [UP.name, 'access', 30, 30, 1],
      // Per bucket: 1 at or below 0.1, 3 - 1 in (0.1, 1], 4 - 3 above.
      [DURATION.name, 'getStats', -3600, 30, 4, [1, 2, 1], 0.5],
    ]);
    expect(page.samples.map((s) => [s.name, s.timestampMs - T, s.value])).toEqual([[DENIED.name, 30_000, 10], [UP.name, 30_000, 1], [DURATION.name, 30_000, 4]]);
    expect(r.source.pendingSamples()).toBe(3);
    await r.source.settle([page], 'sent');
    expect(r.source.heads()).toEqual([]);
    expect(r.source.pendingSamples()).toBe(0);

    r.state.current = { denied: { 'a.com': 12 }, up: 0 };
    r.clock.now = T + 60_000;
    await r.source.take();
    expect(points(head(r.source))).toEqual([
      [DENIED.name, 'a.com', -3600, 60, 12],
      [UP.name, 'access', 60, 60, 0],
    ]);
  });
});

describe('SnapshotSource: delta', () => {
  it('from the baseline, then from the last settled page; none taken while one is pending, the next covers the whole gap', async () => {
    const r = rig('delta', { denied: { 'a.com': 10 }, up: 1 });
    await r.source.baseline(); // at T: a.com's 10 is not sent as an increase
    r.state.current = { denied: { 'a.com': 15 }, up: 1 };
    r.clock.now = T + 30_000;
    await r.source.take();
    const first = head(r.source);
    expect(points(first)).toEqual([
      [DENIED.name, 'a.com', 0, 30, 5],
      [UP.name, 'access', 30, 30, 1],
    ]);

    // The receiver is down: the page waits; another take neither reads the families nor makes a page.
    r.state.current = { denied: { 'a.com': 18 }, up: 0 };
    r.clock.now = T + 60_000;
    const calls = r.state.calls;
    await r.source.take();
    expect(r.state.calls).toBe(calls);
    expect(head(r.source)).toBe(first);
    expect(r.woken()).toBe(1);

    await r.source.settle([first], 'sent');
    r.state.current = { denied: { 'a.com': 22 }, up: 0 };
    r.clock.now = T + 90_000;
    await r.source.take();
    // From the settled page's time (T+30s) to now, 22 - 15: the skipped take's time is in it.
    expect(points(head(r.source))).toEqual([
      [DENIED.name, 'a.com', 30, 90, 7],
      [UP.name, 'access', 90, 90, 0],
    ]);
  });

  it('a refused page moves the start too: what it held is not sent again', async () => {
    const r = rig('delta', { denied: { 'a.com': 10 }, up: 1 });
    await r.source.baseline();
    r.state.current = { denied: { 'a.com': 15 }, up: 1 };
    r.clock.now = T + 30_000;
    await r.source.take();
    await r.source.settle([head(r.source)], 'refused');
    r.state.current = { denied: { 'a.com': 16 }, up: 1 };
    r.clock.now = T + 60_000;
    await r.source.take();
    expect(points(head(r.source))[0]).toEqual([DENIED.name, 'a.com', 30, 60, 1]);
  });

  it('a page that is not the pending one settles nothing', async () => {
    const r = rig('delta', { denied: { 'a.com': 10 }, up: 1 });
    await r.source.baseline();
    r.state.current = { denied: { 'a.com': 15 }, up: 1 };
    r.clock.now = T + 30_000;
    await r.source.take();
    const page = head(r.source);
    await r.source.settle([{ ...page }], 'sent');
    expect(head(r.source)).toBe(page);
  });

  it('two takes at once make one page', async () => {
    const r = rig('delta', { denied: { 'a.com': 10 }, up: 1 });
    await r.source.baseline();
    r.state.current = { denied: { 'a.com': 11 }, up: 1 };
    r.clock.now = T + 30_000;
    await Promise.all([r.source.take(), r.source.take()]);
    expect(r.source.heads()).toHaveLength(1);
    expect(r.woken()).toBe(1);
  });

  it('a counter below its last value was reset: its whole value, from the last settled time; a new series from startMs', async () => {
    const r = rig('delta', { denied: { 'a.com': 10 }, up: 1 });
    await r.source.baseline();
    r.state.current = { denied: { 'a.com': 15 }, up: 1 };
    r.clock.now = T + 30_000;
    await r.source.take();
    await r.source.settle([head(r.source)], 'sent');
    // a.com forgotten and counted again (4); b.com first seen after the baseline (6).
    r.state.current = { denied: { 'a.com': 4, 'b.com': 6 }, up: 1 };
    r.clock.now = T + 60_000;
    await r.source.take();
    expect(points(head(r.source)).slice(0, 2)).toEqual([
      [DENIED.name, 'a.com', 30, 60, 4],
      [DENIED.name, 'b.com', -3600, 60, 6],
    ]);
    await r.source.settle([head(r.source)], 'sent');
    // After the reset, deltas from the new total.
    r.state.current = { denied: { 'a.com': 9, 'b.com': 6 }, up: 1 };
    r.clock.now = T + 90_000;
    await r.source.take();
    expect(points(head(r.source)).slice(0, 2)).toEqual([
      [DENIED.name, 'a.com', 60, 90, 5],
      [DENIED.name, 'b.com', 60, 90, 0],
    ]);
  });

  it('histograms: per-bucket counts, count and sum, each less the baseline\'s', async () => {
    const r = rig('delta', { denied: {}, up: 1, histogram: { cumulative: [1, 3], count: 4, sum: 0.5 } });
    await r.source.baseline();
    // Per bucket then: [1, 2, 1]; now: [2, 6 - 2, 9 - 6] = [2, 4, 3].
    r.state.current = { denied: {}, up: 1, histogram: { cumulative: [2, 6], count: 9, sum: 2.25 } };
    r.clock.now = T + 30_000;
    await r.source.take();
    expect(points(head(r.source))).toEqual([
      [UP.name, 'access', 30, 30, 1],
      [DURATION.name, 'getStats', 0, 30, 5, [1, 2, 2], 1.75],
    ]);
  });

  it('no families, no page', async () => {
    const source = new SnapshotSource({ families: () => Promise.resolve([]), temporality: 'delta', startMs: S, now: () => T });
    await source.baseline();
    await source.take();
    expect(source.heads()).toEqual([]);
    expect(source.pendingSamples()).toBe(0);
  });
});
