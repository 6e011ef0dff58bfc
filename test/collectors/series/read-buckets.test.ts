// How one answer's points fill the buckets due (moved here from countSettled,
// which readBuckets replaced): each bucket once, the last repeat winning, in
// any order; a null is a gap; negative and non-finite values are refused; a
// bucket after the last one due waits.
import { describe, expect, it } from 'vitest';
import type { RawPoint } from '../../../src/collectors/buckets.js';
import type { RejectTally } from '../../../src/collectors/rejects.js';
import { layoutOf } from '../../../src/collectors/contract/series-layout.js';
import { readBuckets } from '../../../src/collectors/series/index.js';
import { DAY, MIN, T0, UTC8 } from './fixtures.js';

const NONE: RejectTally = { negative: 0, non_finite: 0 };
const grid = { interval: '1m' as const, offsetMinutes: UTC8 };
// Asked from 10 minutes before T0 to a day after it; due: T0 .. T0+4m. The
// answer's other series begin at the start of the span, so a series whose first
// point comes later has simply had nothing before it.
const span = { begin: T0 - 10 * MIN, end: T0 + DAY + MIN };
const at = { pos: T0, to: T0 + 4 * MIN, answerFrom: span.begin };

describe('readBuckets', () => {
  it.each<[string, RawPoint[], { increment: number; buckets: number; rejected: RejectTally }]>([
    ['sums the buckets due', [[T0, 1], [T0 + MIN, 2], [T0 + 4 * MIN, 4]], { increment: 7, buckets: 3, rejected: NONE }],
    ['ignores buckets already counted (overlapping window)', [[T0 - MIN, 100], [T0, 1]], { increment: 1, buckets: 1, rejected: NONE }],
    ['leaves unsettled and future buckets for later', [[T0 + 4 * MIN, 1], [T0 + 5 * MIN, 50], [T0 + DAY, 9]], { increment: 1, buckets: 1, rejected: NONE }],
    ['counts a duplicated bucket once, the last value winning', [[T0, 5], [T0, 7]], { increment: 7, buckets: 1, rejected: NONE }],
    ['does not care about order', [[T0 + 2 * MIN, 2], [T0, 1], [T0 + MIN, 3]], { increment: 6, buckets: 3, rejected: NONE }],
    ['treats null as a gap', [[T0, null], [T0 + MIN, 2]], { increment: 2, buckets: 1, rejected: NONE }],
    ['rejects negative and non-finite values, by reason', [[T0, -1], [T0 + MIN, Number.NaN], [T0 + 2 * MIN, 3], [T0 + 3 * MIN, -0.5]],
      { increment: 3, buckets: 1, rejected: { negative: 2, non_finite: 1 } }],
    ['rejects Infinity as not finite', [[T0, Number.POSITIVE_INFINITY], [T0 + MIN, 1]], { increment: 1, buckets: 1, rejected: { negative: 0, non_finite: 1 } }],
    ['does not count refused points outside the buckets due', [[T0 - MIN, -1], [T0 + 5 * MIN, -1], [T0, 2]], { increment: 2, buckets: 1, rejected: NONE }],
    ['handles an empty list', [], { increment: 0, buckets: 0, rejected: NONE }],
  ])('%s', (_name, points, expected) => {
    const read = readBuckets(layoutOf(points, span, MIN), span, grid, at);
    const values = [...read.values.values()];
    expect({ increment: values.reduce((a, b) => a + b, 0), buckets: values.length, rejected: read.rejected }).toEqual(expected);
  });
});

describe('readBuckets: where a coarse answer begins', () => {
  // 5-minute buckets for 1-minute counters; due from T0-3m (inside the T0-5m bucket) to T0+9m.
  const coarse = { begin: T0 - 3 * MIN, end: T0 + 12 * MIN };
  const due = { pos: T0 - 3 * MIN, to: T0 + 9 * MIN };
  it.each<[string, { begin: number; end: number }, RawPoint[], { lateStart: boolean; coarseWait: boolean; values: Array<[number, number]> }]>([
    ['the bucket holding begin listed: the buckets after it counted, it not', coarse, [[T0 - 5 * MIN, 1], [T0, 5], [T0 + 5 * MIN, 7]],
      { lateStart: false, coarseWait: false, values: [[T0, 5], [T0 + 5 * MIN, 7]] }],
    ['only buckets beginning inside the range: nothing due yet, not a late start', coarse, [[T0, 5], [T0 + 5 * MIN, 7]],
      { lateStart: false, coarseWait: true, values: [] }],
    ['a lone bucket beginning inside a short range: the same', { begin: T0 - 3 * MIN, end: T0 + MIN }, [[T0, 5]],
      { lateStart: false, coarseWait: true, values: [] }],
    ['the range begun on their grid: the same buckets as the first reading', { begin: T0 - 5 * MIN, end: coarse.end }, [[T0 - 5 * MIN, 1], [T0, 5], [T0 + 5 * MIN, 7]],
      { lateStart: false, coarseWait: false, values: [[T0, 5], [T0 + 5 * MIN, 7]] }],
    ['a whole coarse bucket missing at the start: a late start', coarse, [[T0 + 5 * MIN, 7], [T0 + 10 * MIN, 1]],
      { lateStart: true, coarseWait: false, values: [] }],
    ['fine buckets beginning later than asked: a late start', coarse, [[T0, 5], [T0 + MIN, 7]],
      { lateStart: true, coarseWait: false, values: [] }],
  ])('%s', (_name, span, points, expected) => {
    const read = readBuckets(layoutOf(points, span, MIN, true), span, grid, { ...due, answerFrom: points[0]?.[0] });
    expect({ lateStart: read.lateStart, coarseWait: read.coarseWait, values: [...read.values] }).toEqual(expected);
    if (expected.values.length === 0) expect(read.reach).toBeLessThan(due.pos);
  });
});

describe('layoutOf: the width of a lone logTread point', () => {
  it.each<[string, { begin: number; end: number }, number, number]>([
    ['at the start of a one-bucket range: the interval', { begin: T0, end: T0 + MIN }, T0, MIN],
    ['reaching to the end of the range', { begin: T0, end: T0 + 3 * MIN }, T0, 5 * MIN],
    // A 5m bucket that has ended, the one after it (holding the end) in progress and not listed yet: no longer read as an hour.
    ['begun before the range (the bucket holding begin), ended before the range does', { begin: T0 - 3 * MIN, end: T0 + MIN }, T0 - 5 * MIN, 5 * MIN],
    ['begun before the range, reaching past the bucket after it', { begin: T0 - 3 * MIN, end: T0 + 6 * MIN }, T0 - 5 * MIN, 60 * MIN],
    ['listed once complete: a whole 5m bucket, the next one in progress', { begin: T0, end: T0 + 8 * MIN }, T0, 5 * MIN],
    ['listed once complete, the range ending a second before the next one is', { begin: T0, end: T0 + 10 * MIN - 1000 }, T0, 5 * MIN],
    ['begun inside the range, a minute before its end: a 1m bucket would leave the minutes before it unlisted', { begin: T0 - 3 * MIN, end: T0 + MIN }, T0, 5 * MIN],
  ])('%s', (_name, span, t, width) => {
    expect(layoutOf([[t, 1]], span, MIN, true).width).toBe(width);
  });
});
