// How far the upstream's clock has got, read off answers that end now
// (ClockReading), with buckets as wide as ours and coarser: a coarse bucket
// listed only once complete leaves the one in progress out, which is waiting,
// not a clock behind; one listed while in progress holds now.
import { describe, expect, it } from 'vitest';
import type { RawPoint } from '../../../src/collectors/buckets.js';
import { lagFinding } from '../../../src/collectors/series/answer.js';
import { ClockReading, seriesKey, type CounterSpec, type Piece } from '../../../src/collectors/series/index.js';
import { MIN, T0, UTC8, pts } from './fixtures.js';

type R = { readonly x: RawPoint[] };
const grid = { interval: '1m' as const, offsetMinutes: UTC8 };
const spec: CounterSpec<R> = { family: 'f_total', labels: {}, key: seriesKey('f_total', {}), metric: 'x', finerBuckets: true, points: (r) => r.x };
const DELAY = 3 * MIN;

/** The clock read off one answer asked from `begin` to `now` (the request that reaches on to now). */
function read(begin: number, now: number, points: RawPoint[]) {
  const reading = new ClockReading(grid, now);
  const piece: Piece<R> = { range: { first: begin, last: now - MIN }, span: { begin, end: now }, answer: { x: points } };
  reading.see([spec], [piece]);
  const clock = reading.clock();
  return { behindMs: clock?.behindMs, lagMs: clock?.lagMs, finding: clock === undefined ? undefined : lagFinding(clock, MIN, DELAY, 'x')?.check };
}

describe('ClockReading', () => {
  it.each<[string, number, number, RawPoint[], { behindMs: number; lagMs: number; finding: string | undefined }]>([
    // T0 is 12:00; the answers end at `now`.
    ['1m buckets up to the one holding now: in step', T0 - 3 * MIN, T0 + 7 * MIN, pts(T0 - 3 * MIN, 10, '1m', () => 1), { behindMs: 0, lagMs: 0, finding: undefined }],
    ['1m buckets, the one holding now missing: within one, counted a bucket later', T0 - 3 * MIN, T0 + 7 * MIN, pts(T0 - 3 * MIN, 9, '1m', () => 1),
      { behindMs: MIN, lagMs: 2 * MIN, finding: undefined }],
    ['1m buckets seven behind: clock_offset', T0 - 20 * MIN, T0 + 7 * MIN, pts(T0 - 20 * MIN, 20, '1m', () => 1),
      { behindMs: 7 * MIN, lagMs: 8 * MIN, finding: 'clock_offset' }],
    ['5m buckets, the one holding now listed while in progress: in step', T0 - 5 * MIN, T0 + 7 * MIN, pts(T0 - 5 * MIN, 3, '5m', () => 1),
      { behindMs: 0, lagMs: 0, finding: undefined }],
    ['5m buckets listed once complete, 12:05 in progress and absent at 12:07: in step', T0 - 5 * MIN, T0 + 7 * MIN, pts(T0 - 5 * MIN, 2, '5m', () => 1),
      { behindMs: 0, lagMs: 0, finding: undefined }],
    ['the same at 12:09:59, the last moment 12:05 is in progress', T0 - 5 * MIN, T0 + 10 * MIN - 1000, pts(T0 - 5 * MIN, 2, '5m', () => 1),
      { behindMs: 0, lagMs: 0, finding: undefined }],
    ['a lone complete 5m bucket at the start of the range: in step', T0, T0 + 8 * MIN, [[T0, 4]], { behindMs: 0, lagMs: 0, finding: undefined }],
    ['12:05 ended two minutes ago and still absent: behind', T0 - 5 * MIN, T0 + 12 * MIN, pts(T0 - 5 * MIN, 2, '5m', () => 1),
      { behindMs: 2 * MIN, lagMs: 3 * MIN, finding: 'clock_offset' }],
  ])('%s', (_name, begin, now, points, expected) => {
    expect(read(begin, now, points)).toEqual(expected);
  });
});
