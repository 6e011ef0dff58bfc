import { describe, expect, it } from 'vitest';
import { platformClock, type DescribeL7UsageDataAnswer } from '../../../src/api/index.js';
import { INTERVAL_MS, lastSettledStart, type BucketInterval } from '../../../src/collectors/buckets.js';
import { convertUsage, usageCounters, usageMetrics } from '../../../src/collectors/usage/convert.js';
import { PACKAGE_BANDWIDTH, PACKAGE_BANDWIDTH_PEAK, PACKAGE_TRAFFIC_BYTES } from '../../../src/collectors/usage/metrics.js';
import { planSeries, requestWindow, seriesKey } from '../../../src/collectors/series/index.js';
import { logStub, type LogRecord } from '../series/sim-driver.js';
import { driven, DAY, HOUR, MIN, T0, UTC8, plan, pts, revising, sumOf, val, type Point } from '../series/fixtures.js';

type Usage = DescribeL7UsageDataAnswer;
type Item = Usage['data'][number];
const P = 'cdn-pkg-01';
const IN = seriesKey(PACKAGE_TRAFFIC_BYTES.name, { package: P, direction: 'in' });
const OUT = seriesKey(PACKAGE_TRAFFIC_BYTES.name, { package: P, direction: 'out' });
const GAUGES = [PACKAGE_BANDWIDTH.name, PACKAGE_BANDWIDTH_PEAK.name];
const tz = platformClock('+08:00');

const usage = (items: Item[]): Usage => ({ code: 200, msg: 'success', data: items });
const traffic = (map: Item['objectArrayListMap']): Item => ({ metricName: 'trafficTrend', objectArrayListMap: map });

describe('usage counters, one cycle', () => {
  // now T0, delay 3 min: watermark T0-10m -> count T0-9m .. T0-4m.
  const first = T0 - 30 * MIN;
  const s = pts(first, 31, '1m', val);
  const exp = sumOf(first, T0 - 9 * MIN, T0 - 4 * MIN, '1m', val);
  it.each<[string, Usage, { in: number | undefined; out: number | undefined }]>([
    ['in and out (spelled ouTraffic)', usage([traffic({ inTraffic: s, ouTraffic: s, totalTraffic: s })]), { in: exp, out: exp }],
    ['outTraffic is read if the vendor fixes the spelling', usage([traffic({ inTraffic: s, outTraffic: s })]), { in: exp, out: exp }],
    ['overlapping window: counted and unsettled buckets ignored', usage([traffic({ inTraffic: pts(first, 31, '1m', (i) => (i >= 21 && i <= 26 ? val(i) : 1e12)) })]),
      { in: exp, out: undefined }],
    ['missing and null buckets add nothing', usage([traffic({ inTraffic: s.filter(([t]) => t !== T0 - 9 * MIN).map(([t, v]): Point => [t, t === T0 - 8 * MIN ? null : v]) })]),
      { in: exp - val(21) - val(22), out: undefined }],
    ['empty lists, and no other answer reached their buckets: they wait', usage([traffic({ inTraffic: [], ouTraffic: [] })]), { in: undefined, out: undefined }],
    ['data: null covers nothing (ambiguous: asked again next cycle)', usage([]), { in: undefined, out: undefined }],
    ['objectArrayListMap: null covers nothing', usage([traffic(null)]), { in: undefined, out: undefined }],
    ['only the bandwidth item covers nothing', usage([{ metricName: 'bandwidthTrend', objectArrayListMap: { inBandwidth: s } }]), { in: undefined, out: undefined }],
  ])('%s', (_name, answer, expected) => {
    const plans = new Map([IN, OUT].map((k) => [k, plan(T0 - 10 * MIN, T0, '1m', 3 * MIN)]));
    const out = driven(convertUsage, {
      specs: usageCounters(P), plans, pieces: [{ range: { first, last: T0 }, answer }], main: undefined,
      grid: { interval: '1m', offsetMinutes: UTC8 }, gauges: { pkg: P, lastSettled: T0 - 4 * MIN, windowBucket: T0, timestamps: false, families: [] },
    });
    const value = (k: string) => out.increments.find((x) => seriesKey(x.name, x.labels) === k)?.value;
    expect({ in: value(IN), out: value(OUT) }).toEqual(expected);
    expect(out.watermarks[IN]).toBe(expected.in === undefined ? undefined : T0 - 4 * MIN);
  });

  it('back-fill capped at max_backfill logs the skipped buckets for the package', () => {
    const logs: LogRecord[] = [];
    planSeries([IN], { now: T0, watermarks: { [IN]: T0 - 2 * DAY }, tz, log: logStub(logs, { collector: 'usage', package: P }) },
      { interval: '1h', delayMs: 10 * MIN, maxBackfillMs: DAY, timestamps: false });
    // Last settled 1h bucket at T0 = T0-2h; oldest kept = T0-26h; skipped T0-47h .. T0-27h.
    expect(logs.map((l) => l.fields)).toEqual([{ collector: 'usage', package: P, skipped: 21, resumeFrom: '2026-03-01T10:00:00+08:00' }]);
  });
});

describe('usage counters across intervals, revisions, downtime and a restart', () => {
  it.each<[BucketInterval, number, number[]]>([
    ['1m', 3 * MIN, [0, 1, 2, 40, 41].map((m) => T0 + m * MIN + 5_000)],
    ['5m', 3 * MIN, [0, 5, 10, 100].map((m) => T0 + m * MIN)],
    ['1h', 10 * MIN, [0, 1, 7, 8].map((h) => T0 + h * HOUR + 15 * MIN)],
    ['1d', HOUR, [0, 1, 4].map((d) => T0 + d * DAY)],
  ])('%s', (interval, delayMs, times) => {
    const source = revising(interval, delayMs);
    const size = INTERVAL_MS[interval];
    const specs = usageCounters(P);
    const grid = { interval, offsetMinutes: UTC8 };
    let watermarks: Record<string, number> = {};
    let total = 0;
    let first: number | undefined;
    for (const now of times) {
      watermarks = JSON.parse(JSON.stringify(watermarks)) as Record<string, number>;
      const plans = planSeries([IN, OUT], { now, watermarks, tz, log: logStub([]) }, { interval, delayMs, maxBackfillMs: 30 * DAY, timestamps: false });
      for (const p of plans.values()) if (p.kind === 'count') first ??= p.from;
      const w = requestWindow({ plans: plans.values(), now, grid, delayMs, gaugeWindowMs: size });
      const answer = (b: number, e: number): Usage => usage([traffic({ inTraffic: source.points(b, e, now, 1), ouTraffic: source.points(b, e, now, 2) })]);
      const out = driven(convertUsage, {
        specs, plans, grid, main: undefined,
        pieces: [...w.backfill.map((r) => ({ range: r, answer: answer(r.first, r.last + size) })), { range: w.main, answer: answer(w.main.begin, w.main.end) }],
        gauges: { pkg: P, lastSettled: lastSettledStart(now, interval, delayMs, UTC8), windowBucket: w.main.last, timestamps: false, families: [] },
      });
      total += out.increments.filter((x) => x.labels.direction === 'in').reduce((a, x) => a + x.value, 0);
      watermarks = { ...watermarks, ...out.watermarks };
    }
    expect(total).toBe(source.total(first ?? 0, watermarks[IN] ?? 0, 1));
    expect(total).toBeGreaterThan(0);
  });
});

describe('usage gauges', () => {
  const main = usage([{
    metricName: 'bandwidthTrend',
    objectArrayListMap: { inBandwidth: [[T0 - 5 * MIN, 10], [T0 - 4 * MIN, 11], [T0 - 3 * MIN, 99]], outBandwidth: [[T0 - 4 * MIN, 21]] },
    totalMap: { maxInBandwidth: 99, maxOutBandwidth: 40, maxTotalBandwidth: 139 },
  }]);
  it.each<[string, boolean, string[], Array<[string, string, number, number]>]>([
    ['latest settled bandwidth and the peaks of totalMap', false, GAUGES,
      [[PACKAGE_BANDWIDTH.name, 'in', 11 / 8, T0 - 4 * MIN], [PACKAGE_BANDWIDTH_PEAK.name, 'in', 99 / 8, T0], [PACKAGE_BANDWIDTH.name, 'out', 21 / 8, T0 - 4 * MIN], [PACKAGE_BANDWIDTH_PEAK.name, 'out', 40 / 8, T0]]],
    ['with timestamps', true, GAUGES,
      [[PACKAGE_BANDWIDTH.name, 'in', 11 / 8, T0 - 4 * MIN], [PACKAGE_BANDWIDTH_PEAK.name, 'in', 99 / 8, T0], [PACKAGE_BANDWIDTH.name, 'out', 21 / 8, T0 - 4 * MIN], [PACKAGE_BANDWIDTH_PEAK.name, 'out', 40 / 8, T0]]],
    ['peak denied', false, [PACKAGE_BANDWIDTH.name], [[PACKAGE_BANDWIDTH.name, 'in', 11 / 8, T0 - 4 * MIN], [PACKAGE_BANDWIDTH.name, 'out', 21 / 8, T0 - 4 * MIN]]],
  ])('%s', (_name, timestamps, families, expected) => {
    const out = driven(convertUsage, {
      specs: [], plans: new Map(), pieces: [], main, grid: { interval: '1m', offsetMinutes: UTC8 },
      gauges: { pkg: P, lastSettled: T0 - 4 * MIN, windowBucket: T0, timestamps, families },
    });
    expect(out.gauges).toEqual(expected.map(([name, direction, value, at]) => ({ name, labels: { package: P, direction }, value, ...(timestamps ? { timestampMs: at } : {}), bucketStartMs: at })));
  });

  it('no bandwidth item, no gauges', () => {
    const out = driven(convertUsage, {
      specs: [], plans: new Map(), pieces: [], main: usage([]), grid: { interval: '1m', offsetMinutes: UTC8 },
      gauges: { pkg: P, lastSettled: T0 - 4 * MIN, windowBucket: T0, timestamps: false, families: GAUGES },
    });
    expect(out.gauges).toEqual([]);
  });
});

describe('usageMetrics', () => {
  it.each<[string, boolean, string[], string[]]>([
    ['main request', true, GAUGES, ['trafficTrend', 'bandwidthTrend']],
    ['back-fill request', true, [], ['trafficTrend']],
    ['traffic denied', false, GAUGES, ['bandwidthTrend']],
    ['all denied', false, [], []],
  ])('%s', (_name, counters, gauges, expected) => {
    expect(usageMetrics(counters ? usageCounters(P) : [], gauges)).toEqual(expected);
  });
});
