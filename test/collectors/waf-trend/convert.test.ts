import { describe, expect, it } from 'vitest';
import { platformClock, type DescribeLogV2Answer } from '../../../src/api/index.js';
import { INTERVAL_MS, type BucketInterval } from '../../../src/collectors/buckets.js';
import { seriesKey, type Piece } from '../../../src/collectors/series/index.js';
import { logTreadPoints, wafChunkBuckets, wafCombos, wafCounter, type WafAnswer } from '../../../src/collectors/waf-trend/convert.js';
import { wafRequest } from '../../../src/collectors/waf-trend/fetch.js';
import { WAF_EVENTS } from '../../../src/collectors/waf-trend/metrics.js';
import { trendStep } from '../../../src/simulator/waf-query.js';
import { drivenWaf, DAY, HOUR, MIN, T0, UTC8, plan, pts, sumOf, val, type Point } from '../series/fixtures.js';

const grid = (interval: BucketInterval) => ({ interval, offsetMinutes: UTC8 });
const tread = (points: Point[]): DescribeLogV2Answer => ({ code: 200, msg: 'success', data: [{ metricName: 'logTread', list: [], objectArrayList: points, count: 0 }] });
const answer = (first: number, last: number, logTread: DescribeLogV2Answer): WafAnswer => ({ range: { first, last }, tread: logTread });

/** Counts one answer whose buckets have all settled, from the bucket before its range; the buckets counted, or undefined when nothing moved. */
function countAnswer(interval: BucketInterval, a: WafAnswer): Array<readonly [number, number]> | undefined {
  const [combo] = wafCombos();
  if (!combo) throw new Error('no combos');
  const size = INTERVAL_MS[interval];
  const delay = 3 * MIN;
  const now = a.range.last + size + delay;
  const spec = wafCounter(combo, grid(interval));
  const out = drivenWaf(spec, new Map([[spec.key, plan(a.range.first - size, now, interval, delay)]]), [{ range: a.range, answer: a }], grid(interval), false);
  if (out.watermarks[spec.key] === undefined) return undefined;
  return [...(out.counted?.get(spec.key)?.values ?? [])].sort((x, y) => x[0] - y[0]);
}

describe('logTread answers counted into configured buckets', () => {
  it.each<[string, BucketInterval, WafAnswer, Array<readonly [number, number]> | undefined]>([
    ['1m answers for 1m buckets', '1m', answer(T0, T0 + 2 * MIN, tread([[T0, 1], [T0 + MIN, 2], [T0 + 2 * MIN, 3]])), [[T0, 1], [T0 + MIN, 2], [T0 + 2 * MIN, 3]]],
    ['1m answers summed into 5m buckets', '5m', answer(T0, T0 + 5 * MIN, tread(pts(T0, 10, '1m', (i) => i + 1))), [[T0, 15], [T0 + 5 * MIN, 40]]],
    ['5m answers summed into 1h buckets', '1h', answer(T0, T0, tread(pts(T0, 12, '5m', () => 2))), [[T0, 24]]],
    ['1h answers summed into days at platform midnight', '1d', answer(T0 - 12 * HOUR, T0 - 12 * HOUR, tread(pts(T0 - 12 * HOUR, 24, '1h', () => 1))), [[T0 - 12 * HOUR, 24]]],
    ['null counts are gaps', '1m', answer(T0, T0 + MIN, tread([[T0, null], [T0 + MIN, 2]])), [[T0 + MIN, 2]]],
    ['a bucket at the (exclusive) end is not ours', '1m', answer(T0, T0, tread([[T0, 1], [T0 + MIN, 50]])), [[T0, 1]]],
    // data: null is documented as "nothing matched": the range is covered with zero events.
    ['data: null (parsed as []) means no events', '1m', answer(T0, T0 + MIN, { code: 200, data: [] }), [[T0, 0], [T0 + MIN, 0]]],
    ['an empty trend says nothing about its range: it waits', '1m', answer(T0, T0 + MIN, tread([])), undefined],
    ['data without a logTread item covers nothing', '1m', answer(T0, T0, { code: 200, data: [{ metricName: 'logs', list: [], objectArrayList: [] }] }), undefined],
    ['coarse 1h buckets for 5m: each counted whole, at its start, once all of it has settled', '5m',
      answer(T0, T0 + 2 * HOUR - 5 * MIN, tread([[T0, 7], [T0 + HOUR, 9]])), [[T0, 7], [T0 + HOUR, 9]]],
    ['a coarse bucket reaching past the range waits for a later answer', '5m',
      answer(T0, T0 + HOUR + 25 * MIN, tread([[T0, 7], [T0 + HOUR, 9]])), [[T0, 7]]],
    ['a coarse bucket that began before the range is not ours (its first part was counted before, or before the counter began)', '5m',
      answer(T0 + 5 * MIN, T0 + HOUR - 5 * MIN, tread([[T0, 7]])), []],
  ])('%s', (_name, interval, a, expected) => {
    expect(countAnswer(interval, a)).toEqual(expected);
  });

  it.each<[string, Point[], Array<readonly [number, number]>]>([
    // Found by the property tests: a bucket listed twice was counted twice, where every other trend keeps the last occurrence.
    ['the same point twice counts once', [[T0, 4], [T0 + MIN, 2], [T0, 4]], [[T0, 6]]],
    ['a repeated bucket keeps its last value', [[T0, 4], [T0 + MIN, 2], [T0, 7]], [[T0, 9]]],
    ['a repeat as null leaves a gap', [[T0 + MIN, 2], [T0 + MIN, null]], []],
    ['distinct upstream buckets of one configured bucket still add up', [[T0, 1], [T0 + MIN, 2], [T0 + 2 * MIN, 3]], [[T0, 6]]],
  ])('listed twice: %s', (_name, points, expected) => {
    expect(countAnswer('5m', answer(T0, T0, tread(points)))).toEqual(expected);
  });
});

describe('logTreadPoints', () => {
  it('nothing matched (data: null) is a zero for every bucket asked; no item is undefined', () => {
    expect(logTreadPoints(answer(T0, T0 + MIN, { code: 200, data: [] }), grid('1m'))).toEqual([[T0, 0], [T0 + MIN, 0]]);
    expect(logTreadPoints(answer(T0, T0, { code: 200, data: [{ metricName: 'logs', list: [], objectArrayList: [] }] }), grid('1m'))).toBeUndefined();
  });
});

describe('wafChunkBuckets keeps the upstream\'s bucket no coarser than the interval (simulator rule)', () => {
  it.each<[BucketInterval]>([['1m'], ['5m'], ['1h'], ['1d']])('%s', (interval) => {
    expect(trendStep(wafChunkBuckets(interval) * INTERVAL_MS[interval])).toBeLessThanOrEqual(INTERVAL_MS[interval]);
    expect(trendStep(INTERVAL_MS[interval])).toBeLessThanOrEqual(INTERVAL_MS[interval]);
  });
});

describe('convertWaf: exactly-once counting of one action/severity series', () => {
  const [combo] = wafCombos();
  if (!combo) throw new Error('no combos');
  const key = seriesKey(WAF_EVENTS.name, { action: 'deny', severity: 'high' });
  // now T0, delay 3 min: watermark T0-10m -> T0-9m .. T0-4m, asked as two chunks.
  const first = T0 - 9 * MIN;
  const exp = sumOf(first, first, T0 - 4 * MIN, '1m', val);
  const chunk = (from: number, to: number, f: (i: number) => number | null = val) =>
    answer(from, to, tread(pts(from, (to - from) / MIN + 1, '1m', (i) => f(i + (from - first) / MIN))));
  const failed: Piece<WafAnswer> = { range: { first: T0 - 6 * MIN, last: T0 - 4 * MIN }, answer: undefined };
  const ok = (a: WafAnswer): Piece<WafAnswer> => ({ range: a.range, answer: a });
  it.each<[string, Array<Piece<WafAnswer>>, { inc: number | undefined; wm: number | undefined }]>([
    ['two chunks add up', [ok(chunk(first, T0 - 7 * MIN)), ok(chunk(T0 - 6 * MIN, T0 - 4 * MIN))], { inc: exp, wm: T0 - 4 * MIN }],
    ['a failed second chunk: the first still counts', [ok(chunk(first, T0 - 7 * MIN)), failed], { inc: sumOf(first, first, T0 - 7 * MIN, '1m', val), wm: T0 - 7 * MIN }],
    ['missing buckets add nothing', [ok(chunk(first, T0 - 4 * MIN, (i) => (i === 2 ? null : val(i))))], { inc: exp - val(2), wm: T0 - 4 * MIN }],
    ['nothing matched: zero, and the watermark moves', [ok(answer(first, T0 - 4 * MIN, { code: 200, data: [] }))], { inc: 0, wm: T0 - 4 * MIN }],
    ['no logTread item: nothing counted, asked again', [ok(answer(first, T0 - 4 * MIN, { code: 200, data: [{ metricName: 'logs', list: [], objectArrayList: [] }] }))],
      { inc: undefined, wm: undefined }],
  ])('%s', (_name, pieces, expected) => {
    const spec = wafCounter(combo, grid('1m'));
    const out = drivenWaf(spec, new Map([[key, plan(T0 - 10 * MIN, T0, '1m', 3 * MIN)]]), pieces, grid('1m'), false);
    expect(out.increments[0]?.value).toBe(expected.inc);
    expect(out.watermarks[key]).toBe(expected.wm);
  });

  it.each<[BucketInterval, number, number, boolean]>([
    ['1m', 3 * MIN, T0 + 5_000, false], ['5m', 3 * MIN, T0, true], ['1h', 10 * MIN, T0 + 15 * MIN, true], ['1d', HOUR, T0, false],
  ])('%s: one bucket after the watermark, 1-minute upstream buckets aggregated (timestamps %s)', (interval, delay, now, timestamps) => {
    const size = INTERVAL_MS[interval];
    const p = plan(T0 - 10 * DAY, now, interval, delay);
    if (p.kind !== 'count') throw new Error('expected a count plan');
    const spec = wafCounter(combo, grid(interval));
    const watermark = p.lastSettled - size;
    const minutes = size / MIN;
    const a = answer(p.lastSettled, p.lastSettled, tread(pts(p.lastSettled, minutes, '1m', () => 3)));
    const out = drivenWaf(spec, new Map([[key, plan(watermark, now, interval, delay)]]), [{ range: a.range, answer: a }], grid(interval), timestamps);
    expect(out.increments).toEqual([{ name: WAF_EVENTS.name, labels: { action: 'deny', severity: 'high' }, value: 3 * minutes, ...(timestamps ? { timestampMs: p.lastSettled } : {}) }]);
  });
});

describe('a logTread answer with data but no bucket listed yet', () => {
  const [combo] = wafCombos();
  if (!combo) throw new Error('no combos');
  const key = seriesKey(WAF_EVENTS.name, { action: 'deny', severity: 'high' });
  const FIVE = { width: 5 * MIN, anchor: T0 };
  // At T0 with delay 3 min the buckets from `from` to T0-4m are due, asked up to now (the range reaches T0-1m).
  it.each<[string, DescribeLogV2Answer, { width: number; anchor: number } | undefined, number, boolean]>([
    ['something matched, nothing listed, no grain seen yet: pending', tread([]), undefined, T0 - 9 * MIN, true],
    ['nothing matched (data: null): zeros, not pending', { code: 200, data: [] }, undefined, T0 - 9 * MIN, false],
    ['a bucket listed: not pending', tread([[T0 - 5 * MIN, 2]]), undefined, T0 - 9 * MIN, false],
    ['5m grain, no whole bucket beginning in the range has ended yet: pending', tread([]), FIVE, T0 - 4 * MIN, true],
    ['5m grain, T0-5m began in the range and ended by its end, unlisted: read as the other answers show it', tread([]), FIVE, T0 - 9 * MIN, false],
  ])('%s', (_name, logTread, grain, from, pending) => {
    const spec = wafCounter(combo, grid('1m'), () => grain);
    const a = answer(from, T0 - MIN, logTread);
    expect(spec.pending?.(a)).toBe(pending);
    if (!pending) return;
    // Pending is idle: nothing counted, nothing uncovered (no EDGE_NO_DATA), no finding.
    const out = drivenWaf(spec, new Map([[key, plan(from - MIN, T0, '1m', 3 * MIN)]]), [{ range: a.range, answer: a }], grid('1m'), false);
    expect([out.watermarks[key], out.uncovered, out.mismatches]).toEqual([undefined, [], []]);
  });
});

describe('requests', () => {
  it('six combinations of action and severity', () => {
    expect(wafCombos().map((c) => `${c.action}/${c.level}`)).toEqual(['deny/高风险', 'deny/中风险', 'deny/低风险', 'pass/高风险', 'pass/中风险', 'pass/低风险']);
  });
  it('one logTread item, filtered by action and severity, for the selected domains', () => {
    const tz = platformClock('+08:00');
    expect(wafRequest({ action: 'pass', level: '低风险' }, ['a.com'], { beginTime: tz.formatDateTime(T0), endTime: tz.formatDateTime(T0 + MIN) })).toEqual({
      action: [{ metricName: 'logTread' }], domains: ['a.com'], otherFilter: [], searchHeader: { action: 'pass', severityLevel: '低风险' },
      params: { beginTime: '2026-03-02 12:00:00', endTime: '2026-03-02 12:01:00' },
    });
  });
});
