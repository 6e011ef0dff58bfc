import { describe, expect, it } from 'vitest';
import type { RawPoint } from '../../../src/collectors/buckets.js';
import { seriesKey, type CounterSpec, type Piece } from '../../../src/collectors/series/index.js';
import { countAnswers, MIN, T0, UTC8, plan, pts, sumOf, val } from './fixtures.js';

// An answer here is just the series it carries (absent key: not carried).
type R = { x?: RawPoint[] };
const spec: CounterSpec<R> = { family: 'f_total', labels: { k: 'v' }, key: seriesKey('f_total', { k: 'v' }), metric: 'm', points: (r) => r.x };
const grid = { interval: '1m' as const, offsetMinutes: UTC8 };
// now T0, delay 3 min: last settled bucket T0 - 4 min.
const now = T0;
const series = pts(T0 - 60 * MIN, 61, '1m', val);
const first = T0 - 60 * MIN;
const sum = (from: number, to: number) => sumOf(first, from, to, '1m', val);
const piece = (from: number, to: number, r: R | undefined): Piece<R> => ({ range: { first: from, last: to }, answer: r });

describe('the count (targetResult)', () => {
  it.each<[string, number | undefined, Piece<R>[], { inc: number | undefined; wm: number | undefined; uncovered: boolean }]>([
    ['first sight: starts at 0 after the last settled bucket', undefined, [], { inc: 0, wm: T0 - 4 * MIN, uncovered: false }],
    ['idle: nothing new settled', T0 - 4 * MIN, [piece(T0 - 10 * MIN, T0, { x: series })], { inc: undefined, wm: undefined, uncovered: false }],
    ['counts from after the watermark to the last settled bucket', T0 - 10 * MIN,
      [piece(T0 - 30 * MIN, T0, { x: series })], { inc: sum(T0 - 9 * MIN, T0 - 4 * MIN), wm: T0 - 4 * MIN, uncovered: false }],
    ['a failed request covers nothing', T0 - 10 * MIN, [piece(T0 - 30 * MIN, T0, undefined)], { inc: undefined, wm: undefined, uncovered: true }],
    ['an answer without the series covers nothing', T0 - 10 * MIN, [piece(T0 - 30 * MIN, T0, {})], { inc: undefined, wm: undefined, uncovered: true }],
    ['a request that began after the first bucket to count covers nothing', T0 - 10 * MIN,
      [piece(T0 - 5 * MIN, T0, { x: series })], { inc: undefined, wm: undefined, uncovered: true }],
    ['an empty series alone is no evidence of zero: it waits', T0 - 10 * MIN, [piece(T0 - 30 * MIN, T0, { x: [] })], { inc: undefined, wm: undefined, uncovered: true }],
    ['chunks and main add up', T0 - 50 * MIN,
      [piece(T0 - 49 * MIN, T0 - 40 * MIN, { x: series }), piece(T0 - 39 * MIN, T0 - 31 * MIN, { x: series }), piece(T0 - 30 * MIN, T0, { x: series })],
      { inc: sum(T0 - 49 * MIN, T0 - 4 * MIN), wm: T0 - 4 * MIN, uncovered: false }],
    ['a failed middle chunk stops the watermark before it', T0 - 50 * MIN,
      [piece(T0 - 49 * MIN, T0 - 40 * MIN, { x: series }), piece(T0 - 39 * MIN, T0 - 31 * MIN, undefined), piece(T0 - 30 * MIN, T0, { x: series })],
      { inc: sum(T0 - 49 * MIN, T0 - 40 * MIN), wm: T0 - 40 * MIN, uncovered: false }],
    ['a chunk counts only its own buckets (an inclusive end adds nothing twice)', T0 - 50 * MIN,
      [piece(T0 - 49 * MIN, T0 - 31 * MIN, { x: series }), piece(T0 - 30 * MIN, T0, { x: series })],
      { inc: sum(T0 - 49 * MIN, T0 - 4 * MIN), wm: T0 - 4 * MIN, uncovered: false }],
  ])('%s', (_name, watermark, pieces, expected) => {
    const p = plan(watermark, now, '1m', 3 * MIN);
    const out = countAnswers([spec], new Map([[spec.key, p]]), pieces, grid, false);
    expect(out.increments.find((s) => s.name === 'f_total')?.value).toBe(expected.inc);
    expect(out.watermarks[spec.key]).toBe(expected.wm);
    expect(out.uncovered.includes(spec.key)).toBe(expected.uncovered);
  });

  it.each([[false, undefined], [true, T0 - 4 * MIN]])('timestamps %s: the increment carries its newest bucket (%s)', (timestamps, at) => {
    const out = countAnswers([spec], new Map([[spec.key, plan(T0 - 6 * MIN, now, '1m', 3 * MIN)]]), [piece(T0 - 30 * MIN, T0, { x: series })], grid, timestamps);
    expect(out.increments).toEqual([{ name: 'f_total', labels: { k: 'v' }, value: sum(T0 - 5 * MIN, T0 - 4 * MIN), ...(at === undefined ? {} : { timestampMs: at }) }]);
    expect(out.newestBucketEndMs).toBe(T0 - 3 * MIN);
  });

  // Refused points leave the pure count as data (series key, reason, count); the engine counts and logs them.
  it.each<[string, RawPoint[], Array<{ reason: string; count: number }>]>([
    ['none refused', series, []],
    ['a negative point in a bucket due', series.map(([t, v]) => [t, t === T0 - 7 * MIN ? -3 : v] as RawPoint), [{ reason: 'negative', count: 1 }]],
    ['negative and not finite, each by reason', series.map(([t, v]) => [t, t === T0 - 8 * MIN ? -1 : t === T0 - 5 * MIN ? Number.NaN : t === T0 - 6 * MIN ? -2 : v] as RawPoint),
      [{ reason: 'negative', count: 2 }, { reason: 'non_finite', count: 1 }]],
    ['a refused point before the watermark is not read again', series.map(([t, v]) => [t, t === T0 - 20 * MIN ? -1 : v] as RawPoint), []],
  ])('refused points: %s', (_name, points, expected) => {
    const out = countAnswers([spec], new Map([[spec.key, plan(T0 - 10 * MIN, now, '1m', 3 * MIN)]]), [piece(T0 - 30 * MIN, T0, { x: points })], grid, false);
    expect(out.rejected).toEqual(expected.map((e) => ({ series: spec.key, ...e })));
    expect(out.watermarks[spec.key]).toBe(T0 - 4 * MIN); // refused points do not hold the series back: they are not asked again
  });
});
