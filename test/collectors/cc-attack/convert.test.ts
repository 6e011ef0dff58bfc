import { describe, expect, it } from 'vitest';
import type { BucketInterval, RawPoint } from '../../../src/collectors/buckets.js';
import { ccCounter, ccGauges, ccMetrics, convertCc } from '../../../src/collectors/cc-attack/convert.js';
import {
  CC_ATTACK_PEAK_REQUESTS, CC_ATTACK_REQUESTS, CC_ATTACKED_DOMAINS, CC_GAUGES, CC_TOP_DOMAIN_ATTACK_REQUESTS, CC_TOP_USER_AGENT_ATTACK_REQUESTS,
} from '../../../src/collectors/cc-attack/metrics.js';
import { parseCcAnswer, type CcParsed } from '../../../src/collectors/cc-attack/parse.js';
import { seriesKey } from '../../../src/collectors/series/index.js';
import { driven, DAY, HOUR, MIN, T0, UTC8, plan, pts, sumOf, val } from '../series/fixtures.js';

const ALL = CC_GAUGES.map((f) => f.name);
const trend: RawPoint[] = [[T0, 1], [T0 + MIN, null]];

describe('parseCcAnswer: shapes recognised defensively, never throwing', () => {
  it.each<[string, unknown[], Omit<CcParsed, 'issues'>, number]>([
    ['the simulator\'s shapes', [
      { metricName: 'ccPolicyTrend', data: { trend } },
      { metricName: 'attack_detail', data: { attackRequests: 9, attackedDomains: 2, peakRequests: 5, peakTime: null } },
      { metricName: 'domain', data: { total: 3, list: [{ name: 'a.com', value: 3 }], termsCount: 1 } },
      { metricName: 'http_user_agent', data: { total: 3, list: [{ name: 'curl/8', value: '3' }] } },
    ], { trend, detail: { attackedDomains: 2, peakRequests: 5 }, domains: [{ name: 'a.com', value: 3 }], userAgents: [{ name: 'curl/8', value: 3 }] }, 0],
    ['trend as objectArrayList', [{ metricName: 'ccPolicyTrend', objectArrayList: trend }], { trend }, 0],
    ['trend as a bare point list', [{ metricName: 'ccPolicyTrend', data: trend }], { trend }, 0],
    ['numeric strings in points', [{ metricName: 'ccPolicyTrend', data: { trend: [[String(T0), '4']] } }], { trend: [[T0, 4]] }, 0],
    ['items as JSON strings ("array of string")', [JSON.stringify({ metricName: 'attack_detail', data: { attackedDomains: '1' } })], { detail: { attackedDomains: 1 } }, 0],
    ['a malformed point discards the whole trend', [{ metricName: 'ccPolicyTrend', data: { trend: [[T0, 1], [T0, 'x']] } }], {}, 1],
    ['an unknown metric', [{ metricName: 'botTrend', data: {} }], {}, 1],
    ['no metricName, wrong types, plain text', [null, 7, [1, 2], 'not json', { data: {} }], {}, 5],
    ['a detail without any known number', [{ metricName: 'attack_detail', data: { foo: 1 } }], {}, 1],
    ['a ranking entry without a value', [{ metricName: 'domain', data: { list: [{ name: 'a.com' }] } }], {}, 1],
    ['empty: data null', [], {}, 0],
    ['the first item of a metric wins', [{ metricName: 'ccPolicyTrend', data: { trend } }, { metricName: 'ccPolicyTrend', data: { trend: [] } }], { trend }, 0],
  ])('%s', (_name, data, expected, issues) => {
    const parsed = parseCcAnswer(data);
    const { issues: got, ...rest } = parsed;
    expect(rest).toEqual(expected);
    expect(got).toHaveLength(issues);
  });
});

describe('cc counter: the same exactly-once accounting', () => {
  const first = T0 - 30 * MIN;
  const s = pts(first, 31, '1m', val);
  it.each<[string, CcParsed, number | undefined]>([
    ['counts the settled buckets after the watermark', { trend: s, issues: [] }, sumOf(first, T0 - 9 * MIN, T0 - 4 * MIN, '1m', val)],
    ['overlap and revision: buckets outside the range are ignored', { trend: s.map(([t, v]): RawPoint => [t, t < T0 - 9 * MIN || t > T0 - 4 * MIN ? 1e9 : v]), issues: [] },
      sumOf(first, T0 - 9 * MIN, T0 - 4 * MIN, '1m', val)],
    ['missing buckets add nothing', { trend: s.filter(([t]) => t !== T0 - 4 * MIN), issues: [] }, sumOf(first, T0 - 9 * MIN, T0 - 5 * MIN, '1m', val)],
    // An empty trend is no evidence that the buckets were zero, unless another answer of the cycle reached them (series/count.test.ts).
    ['an empty trend, alone: it waits', { trend: [], issues: [] }, undefined],
    // data: null, or a shape we could not read: not counted, asked again next cycle.
    ['no trend item covers nothing', { issues: [] }, undefined],
  ])('%s', (_name, parsed, expected) => {
    const spec = ccCounter();
    const out = driven(convertCc, {
      specs: [spec], plans: new Map([[spec.key, plan(T0 - 10 * MIN, T0, '1m', 3 * MIN)]]), pieces: [{ range: { first, last: T0 }, answer: parsed }],
      main: undefined, grid: { interval: '1m', offsetMinutes: UTC8 }, gauges: { windowBucket: T0, timestamps: false, families: [] },
    });
    expect(out.increments[0]?.value).toBe(expected);
    expect(out.watermarks[spec.key]).toBe(expected === undefined ? undefined : T0 - 4 * MIN);
  });

  it.each<[BucketInterval, number, number, number]>([
    ['1m', T0, 3 * MIN, T0 - 4 * MIN],
    ['5m', T0, 3 * MIN, T0 - 10 * MIN],
    ['1h', T0 + 15 * MIN, 10 * MIN, T0 - HOUR],
    ['1d', T0, HOUR, T0 - 12 * HOUR - DAY],
  ])('%s buckets: first sight starts the counter at 0 (per domain too)', (interval, now, delay, lastSettled) => {
    const spec = ccCounter('a.com');
    const out = driven(convertCc, {
      specs: [spec], plans: new Map([[spec.key, plan(undefined, now, interval, delay)]]), pieces: [], main: undefined,
      grid: { interval, offsetMinutes: UTC8 }, gauges: { windowBucket: now, timestamps: true, families: [] },
    });
    expect(out.increments).toEqual([{ name: CC_ATTACK_REQUESTS.name, labels: { domain: 'a.com' }, value: 0, timestampMs: lastSettled }]);
    expect(out.watermarks).toEqual({ [seriesKey(CC_ATTACK_REQUESTS.name, { domain: 'a.com' })]: lastSettled });
  });
});

describe('cc gauges', () => {
  const main: CcParsed = {
    detail: { attackedDomains: 2, peakRequests: 700 },
    domains: [{ name: 'a.com', value: 900 }, { name: 'b.com', value: 100 }, { name: 'a.com', value: 1 }],
    userAgents: [{ name: 'curl/8.5.0', value: 1000 }],
    issues: [],
  };
  const windowBucket = T0;
  const g = (name: string, labels: Record<string, string>, value: number, ts?: number) => ({ name, labels, value, ...(ts === undefined ? {} : { timestampMs: ts }), bucketStartMs: windowBucket });
  it.each<[string, CcParsed, boolean, string[], ReturnType<typeof g>[]]>([
    ['whatever the answer holds', main, false, ALL, [
      g(CC_ATTACKED_DOMAINS.name, {}, 2), g(CC_ATTACK_PEAK_REQUESTS.name, {}, 700),
      g(CC_TOP_DOMAIN_ATTACK_REQUESTS.name, { domain: 'a.com' }, 900), g(CC_TOP_DOMAIN_ATTACK_REQUESTS.name, { domain: 'b.com' }, 100),
      g(CC_TOP_USER_AGENT_ATTACK_REQUESTS.name, { user_agent: 'curl/8.5.0' }, 1000),
    ]],
    ['timestamps and a denied family', main, true, [CC_ATTACKED_DOMAINS.name], [g(CC_ATTACKED_DOMAINS.name, {}, 2, T0)]],
    ['nothing recognised, nothing exported', { issues: [{ reason: 'x' }] }, false, ALL, []],
  ])('%s', (_name, parsed, timestamps, families, expected) => {
    expect(ccGauges(parsed, { windowBucket, timestamps, families })).toEqual(expected);
  });
});

describe('ccMetrics', () => {
  it.each<[string, boolean, string[], string[]]>([
    ['everything in one request', true, ALL, ['ccPolicyTrend', 'attack_detail', 'domain', 'http_user_agent']],
    ['back-fill and per-domain requests: the trend only', true, [], ['ccPolicyTrend']],
    ['counter denied, one gauge enabled', false, [CC_TOP_USER_AGENT_ATTACK_REQUESTS.name], ['http_user_agent']],
    ['all denied', false, [], []],
  ])('%s', (_name, counter, gauges, expected) => {
    expect(ccMetrics(counter, gauges)).toEqual(expected);
  });
});
