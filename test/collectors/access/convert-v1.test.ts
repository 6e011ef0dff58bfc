import { describe, expect, it } from 'vitest';
import type { DescribeL7DataAnswer } from '../../../src/api/index.js';
import { accessV1Counters, convertAccessV1, v1Metrics, v1Trend, type V1Pair } from '../../../src/collectors/access/convert-v1.js';
import { DOMAIN_BANDWIDTH, DOMAIN_BANDWIDTH_PEAK, DOMAIN_REQUESTS, DOMAIN_TRAFFIC_BYTES } from '../../../src/collectors/access/metrics.js';
import { seriesKey } from '../../../src/collectors/series/index.js';
import { driven, MIN, T0, UTC8, plan, pts, sumOf, val, type Point } from '../series/fixtures.js';

const D = 'a.example.com';
const EDGE = seriesKey(DOMAIN_TRAFFIC_BYTES.name, { domain: D, source: 'edge' });
const ORIGIN = seriesKey(DOMAIN_TRAFFIC_BYTES.name, { domain: D, source: 'origin' });
const REQUESTS = seriesKey(DOMAIN_REQUESTS.name, { domain: D });
const first = T0 - 30 * MIN;

function v1(items: Array<[string, Point[]]>): DescribeL7DataAnswer {
  return { code: 200, msg: 'success', data: items.map(([metricName, trend]) => ({ metricName, data: { trend } })) };
}

describe('access v1 counters', () => {
  const watermark = T0 - 10 * MIN;
  const plans = new Map([EDGE, ORIGIN, REQUESTS].map((k) => [k, plan(watermark, T0, '1m', 3 * MIN)]));
  const expected = sumOf(first, T0 - 9 * MIN, T0 - 4 * MIN, '1m', val);
  const trend = pts(first, 31, '1m', val);
  it.each<[string, V1Pair, Record<string, number | undefined>]>([
    ['edge from terminal cdn, origin from terminal source', { cdn: v1([['trafficTrend', trend], ['requestTrend', trend]]), source: v1([['trafficTrend', trend]]) },
      { [EDGE]: expected, [ORIGIN]: expected, [REQUESTS]: expected }],
    ['a missing terminal leaves its series uncounted', { cdn: v1([['trafficTrend', trend], ['requestTrend', trend]]) },
      { [EDGE]: expected, [ORIGIN]: undefined, [REQUESTS]: expected }],
    ['the object form of the answer carries no trend', { cdn: { code: 200, data: { bandwidth95Peak: '1' } }, source: { code: 200, data: null } },
      { [EDGE]: undefined, [ORIGIN]: undefined, [REQUESTS]: undefined }],
    ['rank metrics (array data) carry no trend', { cdn: { code: 200, data: [{ metricName: 'trafficTrend', data: [] }] } },
      { [EDGE]: undefined, [ORIGIN]: undefined, [REQUESTS]: undefined }],
  ])('%s', (_name, pair, exp) => {
    const out = driven(convertAccessV1, {
      specs: accessV1Counters(D), plans, pieces: [{ range: { first, last: T0 }, answer: pair }], main: undefined,
      grid: { interval: '1m', offsetMinutes: UTC8 }, gauges: { domain: D, lastSettled: T0 - 4 * MIN, windowBucket: T0, timestamps: false, families: [] },
    });
    const got = Object.fromEntries([EDGE, ORIGIN, REQUESTS].map((k) => [k, out.increments.find((s) => seriesKey(s.name, s.labels) === k)?.value]));
    expect(got).toEqual(exp);
  });
});

describe('access v1 gauges', () => {
  const main: V1Pair = {
    cdn: v1([['bandwidthTrend', [[T0 - 6 * MIN, 500], [T0 - 4 * MIN, 200], [T0 - 3 * MIN, 900]]]]),
    source: v1([['bandwidthTrend', [[T0 - 4 * MIN, 20], [T0 - 3 * MIN, null]]]]),
  };
  it.each<[boolean, Array<[string, string, number, number]>]>([
    [false, [[DOMAIN_BANDWIDTH.name, 'edge', 200 / 8, T0 - 4 * MIN], [DOMAIN_BANDWIDTH_PEAK.name, 'edge', 900 / 8, T0], [DOMAIN_BANDWIDTH.name, 'origin', 20 / 8, T0 - 4 * MIN], [DOMAIN_BANDWIDTH_PEAK.name, 'origin', 20 / 8, T0]]],
    [true, [[DOMAIN_BANDWIDTH.name, 'edge', 200 / 8, T0 - 4 * MIN], [DOMAIN_BANDWIDTH_PEAK.name, 'edge', 900 / 8, T0], [DOMAIN_BANDWIDTH.name, 'origin', 20 / 8, T0 - 4 * MIN], [DOMAIN_BANDWIDTH_PEAK.name, 'origin', 20 / 8, T0]]],
  ])('latest settled bucket and the highest bucket of the window (timestamps %s)', (timestamps, expected) => {
    const out = driven(convertAccessV1, {
      specs: [], plans: new Map(), pieces: [], main, grid: { interval: '1m', offsetMinutes: UTC8 },
      gauges: { domain: D, lastSettled: T0 - 4 * MIN, windowBucket: T0, timestamps, families: [DOMAIN_BANDWIDTH.name, DOMAIN_BANDWIDTH_PEAK.name] },
    });
    expect(out.gauges).toEqual(expected.map(([name, source, value, at]) => ({ name, labels: { domain: D, source }, value, ...(timestamps ? { timestampMs: at } : {}), bucketStartMs: at })));
  });
});

describe('v1Metrics', () => {
  const all = accessV1Counters(D);
  it.each<[string, (f: string) => boolean, string[], ReturnType<typeof v1Metrics>]>([
    ['main request, everything enabled', () => true, [DOMAIN_BANDWIDTH.name],
      { cdn: ['trafficTrend', 'bandwidthTrend', 'requestTrend'], source: ['trafficTrend', 'bandwidthTrend'] }],
    ['back-fill request', () => true, [], { cdn: ['trafficTrend', 'requestTrend'], source: ['trafficTrend'] }],
    ['traffic denied, no gauges: only requests, no source request', (f) => f === DOMAIN_REQUESTS.name, [], { cdn: ['requestTrend'] }],
    ['all denied', () => false, [], {}],
  ])('%s', (_name, enabled, gauges, expected) => {
    expect(v1Metrics(all.filter((s) => enabled(s.family)), gauges)).toEqual(expected);
  });
  it('reads no trend from an absent answer', () => {
    expect(v1Trend(undefined, 'trafficTrend')).toBeUndefined();
  });
});
