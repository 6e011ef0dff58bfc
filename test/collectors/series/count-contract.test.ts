// The counting walk against answers that do not look as assumed: what is
// counted, where the watermark stops, and which check each answer raises.
// Pure: hand-written answers, no simulator.
import { describe, expect, it } from 'vitest';
import type { RawPoint } from '../../../src/collectors/buckets.js';
import { seriesKey, type CounterSpec, type Piece } from '../../../src/collectors/series/index.js';
import { countAnswers, MIN, T0, UTC8, plan, pts, sumOf, val } from './fixtures.js';

type R = { x?: RawPoint[]; y?: RawPoint[] };
const spec = (metric: 'x' | 'y'): CounterSpec<R> => ({
  family: 'f_total', labels: { k: metric }, key: seriesKey('f_total', { k: metric }), metric, points: (r) => r[metric],
});
const X = spec('x');
const Y = spec('y');
const grid = { interval: '1m' as const, offsetMinutes: UTC8 };
// now T0, delay 3 min: the watermark T0-10m, buckets T0-9m .. T0-4m are due.
const WM = T0 - 10 * MIN;
const main = (r: R): Piece<R> => ({ range: { first: T0 - 30 * MIN, last: T0 }, span: { begin: T0 - 30 * MIN, end: T0 }, answer: r });
const first = T0 - 30 * MIN;
const full = pts(first, 30, '1m', val);

function count(pieces: Piece<R>[], specs: CounterSpec<R>[] = [X], withClock = false) {
  const plans = new Map(specs.map((s) => [s.key, plan(WM, T0, '1m', 3 * MIN)]));
  return countAnswers(specs, plans, pieces, grid, false, withClock);
}
const checks = (out: ReturnType<typeof count>) => [...new Set(out.findings.map((f) => f.check))].sort();

describe('the count (targetResult): answers that contradict an assumption', () => {
  it('every bucket listed, inside the range: counted, no finding', () => {
    const out = count([main({ x: full })], [X], true);
    expect(out.increments[0]?.value).toBe(sumOf(first, T0 - 9 * MIN, T0 - 4 * MIN, '1m', val));
    expect(out.watermarks[X.key]).toBe(T0 - 4 * MIN);
    expect(checks(out)).toEqual([]);
  });

  it('points outside the range are never counted: out_of_range', () => {
    const outside: RawPoint[] = [[T0 - 40 * MIN, 1e9], [T0 + 5 * MIN, 1e9]];
    const out = count([main({ x: [...full, ...outside] })]);
    expect(out.increments[0]?.value).toBe(sumOf(first, T0 - 9 * MIN, T0 - 4 * MIN, '1m', val));
    expect(checks(out)).toEqual(['out_of_range']);
  });

  it('the newest points missing (a clock behind ours): the watermark stops at the newest point; the clock is the cycle\'s finding, not the target\'s', () => {
    const behind = pts(first, 23, '1m', val); // up to T0-8m
    const out = count([main({ x: behind })], [X], true);
    // Settled by the upstream's clock (seven buckets behind): nothing due yet. Idle, not a failure.
    expect(out.watermarks[X.key]).toBeUndefined();
    expect(out.uncovered).toEqual([]);
    // clock_offset is counted once a cycle by closeCycle (contract/clock.ts), not once per target here.
    expect(checks(out)).toEqual([]);
  });

  it('a series answered with nothing, and no other answer reaching its range: it waits (out_of_range), never a zero', () => {
    const out = count([main({ x: [] })]);
    expect(out.watermarks[X.key]).toBeUndefined();
    expect(out.uncovered).toEqual([X.key]);
    expect(checks(out)).toEqual(['out_of_range']);
  });

  it('an empty series while another series of the cycle reaches its range: zero buckets left out (missing_buckets), counted as zero', () => {
    const out = count([main({ x: [], y: full })], [X, Y], true);
    expect(out.watermarks[X.key]).toBe(T0 - 4 * MIN);
    expect(out.increments.find((s) => s.labels.k === 'x')?.value).toBe(0);
    expect(checks(out)).toEqual(['missing_buckets']);
  });

  it('holes between points: counted as zero, missing_buckets', () => {
    const holes = full.filter(([t]) => t !== T0 - 6 * MIN);
    const out = count([main({ x: holes })]);
    expect(out.increments[0]?.value).toBe(sumOf(first, T0 - 9 * MIN, T0 - 4 * MIN, '1m', val) - val(24));
    expect(checks(out)).toEqual(['missing_buckets']);
  });

  it('an answer that begins after the first bucket due (the range read later than asked): the buckets wait', () => {
    const late = pts(T0 - 7 * MIN, 7, '1m', val);
    const out = count([main({ x: late, y: late })], [X, Y]);
    expect(out.watermarks[X.key]).toBeUndefined();
    expect(checks(out)).toEqual(['out_of_range']);
  });

  it('statistics points 5 minutes apart for a 1-minute interval: bucket_width; each counted whole once all of it settled', () => {
    const coarse = pts(T0 - 30 * MIN, 6, '5m', () => 10); // T0-30m .. T0-5m
    const out = count([main({ x: coarse })]);
    // Due T0-9m..T0-4m: the bucket of T0-10m (T0-10m..T0-6m) began before the watermark (not ours); T0-5m..T0-1m has not settled.
    expect(out.increments[0]?.value).toBe(0);
    expect(out.watermarks[X.key]).toBe(T0 - 6 * MIN);
    expect(checks(out)).toEqual(['bucket_width']);
  });
});
