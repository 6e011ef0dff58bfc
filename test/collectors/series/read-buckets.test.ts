// How one answer's points fill the buckets due (moved here from countSettled,
// which readBuckets replaced): each bucket once, the last repeat winning, in
// any order; a null is a gap; negative and non-finite values are refused; a
// bucket after the last one due waits.
import { describe, expect, it } from 'vitest';
import type { RawPoint } from '../../../src/collectors/buckets.js';
import type { RejectTally } from '../../../src/collectors/rejects.js';
import { viewSeries } from '../../../src/collectors/contract/series-view.js';
import { countView, readBuckets } from '../../../src/collectors/series/index.js';
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
    const read = readBuckets(countView(viewSeries(points, span, MIN)), span, grid, at);
    const values = [...read.values.values()];
    expect({ increment: values.reduce((a, b) => a + b, 0), buckets: values.length, rejected: read.rejected }).toEqual(expected);
  });
});
