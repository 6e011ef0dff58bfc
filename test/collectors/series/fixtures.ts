// Hand-written response building blocks for the conversion tests.
import { expect } from 'vitest';
import { planCount, type BucketInterval, type Plan } from '../../../src/collectors/buckets.js';
import { INTERVAL_MS } from '../../../src/collectors/buckets.js';
import { compactPieces, compactSpecs, expandPieces } from '../../../src/collectors/series/compact.js';
import {
  bucketMs, countTarget, upstreamClock, type CountOutcome, type CounterSpec, type Grid, type Piece,
} from '../../../src/collectors/series/index.js';

export const MIN = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;
export const UTC8 = 480;
/** 2026-03-02 12:00:00 UTC+8. */
export const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);

/** A point as the client's schemas type it (a mutable tuple; assignable to RawPoint). */
export type Point = [number, number | null];

/** `n` points from `first`, one per bucket, value f(i) (null for a gap). */
export function pts(first: number, n: number, interval: BucketInterval, f: (i: number) => number | null): Point[] {
  return Array.from({ length: n }, (_, i): Point => [first + i * INTERVAL_MS[interval], f(i)]);
}

/** Sum of f(i) over buckets i in [from, to] of the series pts(first, ...). */
export function sumOf(first: number, from: number, to: number, interval: BucketInterval, f: (i: number) => number | null): number {
  let total = 0;
  for (let t = from; t <= to; t += INTERVAL_MS[interval]) total += f((t - first) / INTERVAL_MS[interval]) ?? 0;
  return total;
}

export function plan(watermark: number | undefined, now: number, interval: BucketInterval, delayMs: number, maxBackfillMs = 30 * DAY): Plan {
  return planCount({ watermark, now, interval, delayMs, maxBackfillMs, offsetMinutes: UTC8 });
}

/** A deterministic, bucket-dependent value so a miscounted bucket changes the sum. */
export const val = (i: number): number => 1000 + ((i * 7919) % 1013);

/**
 * An upstream that revises its newest buckets: a bucket's reported value grows
 * until `delay` after its end, then stays final (as the simulator does).
 * `salt` makes different series of one response differ.
 */
export function revising(interval: BucketInterval, delay: number) {
  const size = INTERVAL_MS[interval];
  const final = (start: number, salt = 0): number => ((Math.floor(start / size) + salt * 31) % 97) * 10 + 5;
  const points = (begin: number, end: number, now: number, salt = 0): Point[] => {
    const out: Point[] = [];
    for (let t = begin; t < end && t <= now; t += size) {
      const fraction = Math.min(1, (now - t) / (size + delay));
      out.push([t, Math.floor(final(t, salt) * fraction)]);
    }
    return out;
  };
  /** Sum of final values of buckets first..last (inclusive). */
  const total = (first: number, last: number, salt = 0): number => {
    let sum = 0;
    for (let t = first; t <= last; t += size) sum += final(t, salt);
    return sum;
  };
  return { final, points, total };
}

/**
 * countTarget over the answers as they came, and over the same answers as a
 * cycle keeps them while it waits for its other targets (compact.ts: trimmed
 * by the plans, expanded back at close), with the clock read each way: the
 * two must agree exactly. Returns the count over the answers as they came.
 */
export function countBothWays<R>(
  specs: readonly CounterSpec<R>[], plans: ReadonlyMap<string, Plan>, pieces: readonly Piece<R>[], grid: Grid, timestamps: boolean, withClock = false,
): CountOutcome {
  const size = bucketMs(grid);
  const rawClock = withClock ? upstreamClock([{ specs, pieces }], grid, T0) : undefined;
  const raw = countTarget(specs, plans, pieces, grid, timestamps, rawClock);
  const kept = compactPieces(specs, pieces, plans, size);
  const keptSpecs = compactSpecs(specs);
  const keptClock = withClock ? upstreamClock([{ specs: keptSpecs, pieces: kept }], grid, T0) : undefined;
  expect(keptClock).toStrictEqual(rawClock);
  const expanded = expandPieces(keptSpecs, kept);
  expect(countTarget(expanded.specs, plans, expanded.pieces, grid, timestamps, keptClock)).toStrictEqual(raw);
  return raw;
}
