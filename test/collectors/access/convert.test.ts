import { describe, expect, it } from 'vitest';
import { platformClock, type DescribeL7DataV2Answer } from '../../../src/api/index.js';
import { INTERVAL_MS, lastSettledStart, type BucketInterval } from '../../../src/collectors/buckets.js';
import {
  ACCESS_V2_FAMILIES, DOMAIN_BANDWIDTH, DOMAIN_BANDWIDTH_P95, DOMAIN_BANDWIDTH_PEAK, DOMAIN_REQUEST_TIME, DOMAIN_REQUESTS, DOMAIN_RESPONSES,
  DOMAIN_TRAFFIC_BYTES,
} from '../../../src/collectors/access/metrics.js';
import { accessCounters, convertAccessV2, v2Metrics } from '../../../src/collectors/access/convert.js';
import { planSeries, requestWindow, seriesKey, type Piece } from '../../../src/collectors/series/index.js';
import { logStub, type LogRecord } from '../series/sim-driver.js';
import { driven, DAY, HOUR, MIN, T0, UTC8, plan, pts, revising, sumOf, val, type Point } from '../series/fixtures.js';

type V2 = DescribeL7DataV2Answer;
type Item = V2['data'][number];
const D = 'a.example.com';
const tz = platformClock('+08:00');
const EDGE = seriesKey(DOMAIN_TRAFFIC_BYTES.name, { domain: D, source: 'edge' });
const ORIGIN = seriesKey(DOMAIN_TRAFFIC_BYTES.name, { domain: D, source: 'origin' });
const REQUESTS = seriesKey(DOMAIN_REQUESTS.name, { domain: D });
const ALL_GAUGES = ACCESS_V2_FAMILIES.filter((f) => f.type === 'gauge').map((f) => f.name);

type ItemIn = Partial<Item> & { metricName: string };

function v2(items: readonly ItemIn[]): V2 {
  return { code: 200, msg: 'success', data: items.map((i) => ({ ...i, list: i.list ?? [] })) };
}

/** A full answer for a span: every trend metric, each key its own series. */
function answer(source: ReturnType<typeof revising>, begin: number, end: number, now: number): V2 {
  const s = (salt: number): Point[] => source.points(begin, end, now, salt);
  return v2([
    { metricName: 'trafficTrend', objectArrayListMap: { bytesSent: s(1), upstreamBytesSent: s(2), totalBytesSent: s(3) } },
    { metricName: 'requestTrend', objectArrayListMap: { requestCounter: s(4) } },
    { metricName: 'statusCodeTrend', objectArrayListMap: { list1xx: s(5), list2xx: s(6), list3xx: s(7), list4xx: s(8), list5xx: s(9) } },
  ]);
}

describe('access v2 counters over many cycles: each settled bucket once', () => {
  // Cycle times (offsets from T0); gaps are downtime. A restart (watermarks
  // through JSON, as the state file keeps them) happens before the 4th cycle.
  it.each<[BucketInterval, number, number[], number]>([
    ['1m', 3 * MIN, [0, 1, 2, 3, 45, 46, 47, 200].map((m) => m * MIN + 7_000), 20],
    ['5m', 3 * MIN, [0, 5, 10, 11, 60, 65, 300].map((m) => m * MIN + 1_000), 10],
    ['1h', 10 * MIN, [0, 1, 2, 3, 30, 31].map((h) => h * HOUR + 11 * MIN), 6],
    ['1d', HOUR, [0, 1, 2, 3, 9, 10].map((d) => d * DAY + 2 * HOUR), 3],
  ])('%s buckets, delay %i', (interval, delayMs, offsets, maxBuckets) => {
    const source = revising(interval, delayMs);
    const size = INTERVAL_MS[interval];
    const specs = accessCounters(D);
    const options = { interval, delayMs, maxBackfillMs: 30 * DAY, timestamps: false };
    let watermarks: Record<string, number> = {};
    const counters = new Map<string, number>();
    let firstCounted: number | undefined;
    offsets.forEach((offset, cycle) => {
      if (cycle === 3) watermarks = JSON.parse(JSON.stringify(watermarks)) as Record<string, number>;
      const now = T0 + offset;
      const plans = planSeries(specs.map((s) => s.key), { now, watermarks, tz, log: logStub([]) }, options);
      for (const p of plans.values()) if (p.kind === 'count') firstCounted ??= p.from;
      const grid = { interval, offsetMinutes: UTC8 };
      const w = requestWindow({ plans: plans.values(), now, grid, delayMs, gaugeWindowMs: 2 * size, maxBuckets });
      const pieces: Piece<V2>[] = [
        ...w.backfill.map((r) => ({ range: r, answer: answer(source, r.first, r.last + size, now) })),
        { range: w.main, answer: answer(source, w.main.begin, w.main.end, now) },
      ];
      const lastSettled = lastSettledStart(now, interval, delayMs, UTC8);
      const out = driven(convertAccessV2, {
        specs, plans, pieces, main: undefined, grid,
        gauges: { domain: D, lastSettled, windowBucket: w.main.last, timestamps: false, families: [] },
      });
      for (const s of out.increments) counters.set(seriesKey(s.name, s.labels), (counters.get(seriesKey(s.name, s.labels)) ?? 0) + s.value);
      watermarks = { ...watermarks, ...out.watermarks };
    });
    expect(firstCounted).toBeDefined();
    const last = watermarks[EDGE] ?? 0;
    expect(last).toBe(lastSettledStart(T0 + (offsets.at(-1) ?? 0), interval, delayMs, UTC8));
    expect(counters.get(EDGE)).toBe(source.total(firstCounted ?? 0, last, 1));
    expect(counters.get(ORIGIN)).toBe(source.total(firstCounted ?? 0, last, 2));
    expect(counters.get(REQUESTS)).toBe(source.total(firstCounted ?? 0, last, 4));
    expect(counters.get(seriesKey(DOMAIN_RESPONSES.name, { domain: D, code_class: '5xx' }))).toBe(source.total(firstCounted ?? 0, last, 9));
  });
});

describe('access v2 counters, one cycle', () => {
  // now T0, delay 3 min, 1m buckets: last settled T0-4m; watermark T0-10m -> count T0-9m..T0-4m.
  const first = T0 - 30 * MIN;
  const full = pts(first, 31, '1m', val);
  const expected = sumOf(first, T0 - 9 * MIN, T0 - 4 * MIN, '1m', val);
  const traffic = (bytesSent: Point[] | undefined): ItemIn => ({ metricName: 'trafficTrend', objectArrayListMap: { bytesSent } });
  it.each<[string, V2, { inc: number | undefined; wm: number | undefined }]>([
    ['counts the settled buckets after the watermark', v2([traffic(full)]), { inc: expected, wm: T0 - 4 * MIN }],
    ['overlapping window: counted and unsettled buckets are ignored', v2([traffic(pts(first, 31, '1m', (i) => (i < 21 || i > 26 ? 1e9 : val(i))))]),
      { inc: expected, wm: T0 - 4 * MIN }],
    ['missing buckets add nothing; the range still counts as reported', v2([traffic(full.filter(([t]) => t !== T0 - 6 * MIN))]),
      { inc: expected - val(24), wm: T0 - 4 * MIN }],
    ['null points are gaps, not zeros', v2([traffic(full.map(([t, v]): Point => [t, t === T0 - 5 * MIN ? null : v]))]),
      { inc: expected - val(25), wm: T0 - 4 * MIN }],
    // An empty series is no evidence that the buckets were zero (a clock behind ours, a range read in another zone): they wait.
    ['an empty series, and no other answer reached its buckets: it waits', v2([traffic([])]), { inc: undefined, wm: undefined }],
    // data: null parses to [] and is ambiguous (no traffic, or no answer): not counted, asked again next cycle.
    ['data: null covers nothing', v2([]), { inc: undefined, wm: undefined }],
    ['the metric item missing covers nothing', v2([{ metricName: 'requestTrend', objectArrayListMap: { requestCounter: full } }]), { inc: undefined, wm: undefined }],
    ['objectArrayListMap: null covers nothing', v2([{ metricName: 'trafficTrend', objectArrayListMap: null }]), { inc: undefined, wm: undefined }],
    ['the key missing covers nothing', v2([traffic(undefined)]), { inc: undefined, wm: undefined }],
  ])('%s', (_name, answer, exp) => {
    const specs = accessCounters(D).filter((s) => s.key === EDGE);
    const out = driven(convertAccessV2, {
      specs, plans: new Map([[EDGE, plan(T0 - 10 * MIN, T0, '1m', 3 * MIN)]]),
      pieces: [{ range: { first, last: T0 }, answer }], main: undefined, grid: { interval: '1m', offsetMinutes: UTC8 },
      gauges: { domain: D, lastSettled: T0 - 4 * MIN, windowBucket: T0, timestamps: false, families: [] },
    });
    expect(out.increments[0]?.value).toBe(exp.inc);
    expect(out.watermarks[EDGE]).toBe(exp.wm);
  });

  it('a bucket revised after it was counted is not counted again', () => {
    const specs = accessCounters(D).filter((s) => s.key === EDGE);
    const grid = { interval: '1m' as const, offsetMinutes: UTC8 };
    const cycle = (now: number, watermark: number, points: Point[]) => driven(convertAccessV2, {
      specs, plans: new Map([[EDGE, plan(watermark, now, '1m', 3 * MIN)]]), pieces: [{ range: { first: T0 - 10 * MIN, last: now }, answer: v2([traffic(points)]) }],
      main: undefined, grid, gauges: { domain: D, lastSettled: now - 4 * MIN, windowBucket: now, timestamps: false, families: [] },
    });
    const first = cycle(T0, T0 - 5 * MIN, [[T0 - 4 * MIN, 100]]);
    const second = cycle(T0 + MIN, first.watermarks[EDGE] ?? 0, [[T0 - 4 * MIN, 150], [T0 - 3 * MIN, 50]]);
    expect([first.increments[0]?.value, second.increments[0]?.value]).toEqual([100, 50]);
    expect(second.watermarks[EDGE]).toBe(T0 - 3 * MIN);
  });

  it('back-fill after downtime is capped at max_backfill, with the skipped buckets logged', () => {
    const logs: LogRecord[] = [];
    const specs = accessCounters(D).filter((s) => s.key === EDGE);
    const options = { interval: '1m' as const, delayMs: 3 * MIN, maxBackfillMs: HOUR, timestamps: false };
    const plans = planSeries([EDGE], { now: T0, watermarks: { [EDGE]: T0 - 5 * HOUR }, tz, log: logStub(logs, { domain: D }) }, options);
    const from = T0 - 4 * MIN - HOUR;
    const series = pts(from - 10 * MIN, 80, '1m', val);
    const out = driven(convertAccessV2, {
      specs, plans, pieces: [{ range: { first: from - 10 * MIN, last: T0 }, answer: v2([traffic(series)]) }], main: undefined,
      grid: { interval: '1m', offsetMinutes: UTC8 }, gauges: { domain: D, lastSettled: T0 - 4 * MIN, windowBucket: T0, timestamps: false, families: [] },
    });
    expect(out.increments[0]?.value).toBe(sumOf(from - 10 * MIN, from, T0 - 4 * MIN, '1m', val));
    expect(logs.map((l) => [l.level, l.fields.skipped, l.fields.domain])).toEqual([['warn', (from - (T0 - 5 * HOUR + MIN)) / MIN, D]]);
  });
});

describe('access v2 gauges', () => {
  const main = v2([
    { metricName: 'bandwidthTrend', objectArrayListMap: { bytesSent: [[T0 - 5 * MIN, 100], [T0 - 4 * MIN, 200], [T0 - 3 * MIN, 999]], upstreamBytesSent: [[T0 - 4 * MIN, 20]] },
      maxMap: { bytesSent: 999, upstreamBytesSent: 40, bytesSent95Peak: 900, upstreamBytesSent95Peak: 30, totalBytesSent: 1 } },
    { metricName: 'requestTimeTrend', objectArrayListMap: { requestTime: [[T0 - 4 * MIN, 123.45], [T0 - 3 * MIN, 1]] } },
  ]);
  const base = { domain: D, lastSettled: T0 - 4 * MIN, windowBucket: T0 };
  const edge = { domain: D, source: 'edge' };
  const origin = { domain: D, source: 'origin' };
  // The fourth element is the bucket each gauge stands for (bucketStartMs), its timestamp with `timestamps`.
  it.each<[string, boolean, readonly string[], Array<[string, Record<string, string>, number, number]>]>([
    ['latest settled bucket, peaks and p95 from maxMap, ms -> s', false, ALL_GAUGES, [
      [DOMAIN_BANDWIDTH.name, edge, 200 / 8, T0 - 4 * MIN], [DOMAIN_BANDWIDTH_PEAK.name, edge, 999 / 8, T0], [DOMAIN_BANDWIDTH_P95.name, edge, 900 / 8, T0],
      [DOMAIN_BANDWIDTH.name, origin, 20 / 8, T0 - 4 * MIN], [DOMAIN_BANDWIDTH_PEAK.name, origin, 40 / 8, T0], [DOMAIN_BANDWIDTH_P95.name, origin, 30 / 8, T0],
      [DOMAIN_REQUEST_TIME.name, { domain: D }, 0.12345, T0 - 4 * MIN],
    ]],
    ['timestamps: the latest bucket, or the window\'s newest bucket', true, ALL_GAUGES, [
      [DOMAIN_BANDWIDTH.name, edge, 200 / 8, T0 - 4 * MIN], [DOMAIN_BANDWIDTH_PEAK.name, edge, 999 / 8, T0], [DOMAIN_BANDWIDTH_P95.name, edge, 900 / 8, T0],
      [DOMAIN_BANDWIDTH.name, origin, 20 / 8, T0 - 4 * MIN], [DOMAIN_BANDWIDTH_PEAK.name, origin, 40 / 8, T0], [DOMAIN_BANDWIDTH_P95.name, origin, 30 / 8, T0],
      [DOMAIN_REQUEST_TIME.name, { domain: D }, 0.12345, T0 - 4 * MIN],
    ]],
    ['denied families produce nothing', false, [DOMAIN_REQUEST_TIME.name], [[DOMAIN_REQUEST_TIME.name, { domain: D }, 0.12345, T0 - 4 * MIN]]],
  ])('%s', (_name, timestamps, families, expected) => {
    const out = driven(convertAccessV2, {
      specs: [], plans: new Map(), pieces: [], main, grid: { interval: '1m', offsetMinutes: UTC8 }, gauges: { ...base, timestamps, families },
    });
    expect(out.gauges).toEqual(expected.map(([name, labels, value, at]) => ({ name, labels, value, ...(timestamps ? { timestampMs: at } : {}), bucketStartMs: at })));
  });

  it('an answer without bandwidth or request time yields no gauges', () => {
    const out = driven(convertAccessV2, {
      specs: [], plans: new Map(), pieces: [], main: v2([]), grid: { interval: '1m', offsetMinutes: UTC8 },
      gauges: { ...base, timestamps: false, families: ALL_GAUGES },
    });
    expect(out.gauges).toEqual([]);
  });
});

describe('v2Metrics: what a request asks for', () => {
  const all = accessCounters(D);
  it.each<[string, (f: string) => boolean, readonly string[], string[]]>([
    ['everything enabled, main request', () => true, ALL_GAUGES, ['trafficTrend', 'bandwidthTrend', 'requestTrend', 'statusCodeTrend', 'requestTimeTrend']],
    ['everything enabled, back-fill request (counters only)', () => true, [], ['trafficTrend', 'requestTrend', 'statusCodeTrend']],
    ['status classes denied', (f) => f !== DOMAIN_RESPONSES.name, ALL_GAUGES, ['trafficTrend', 'bandwidthTrend', 'requestTrend', 'requestTimeTrend']],
    ['only request time', () => false, [DOMAIN_REQUEST_TIME.name], ['requestTimeTrend']],
    ['all denied: no items (and the collector sends no request)', () => false, [], []],
  ])('%s', (_name, enabled, gauges, expected) => {
    expect(v2Metrics(all.filter((s) => enabled(s.family)), gauges)).toEqual(expected);
  });
});
