// Hand-written response building blocks for the conversion tests.
import { planCount, type BucketInterval, type Plan } from '../../../src/collectors/buckets.js';
import { INTERVAL_MS } from '../../../src/collectors/buckets.js';
import {
  ClockReading, targetResult, type Converted, type CounterSpec, type Grid, type Piece, type TargetAnswers, type TargetResult,
} from '../../../src/collectors/series/index.js';
import { wafFindings, type WafAnswer } from '../../../src/collectors/waf-trend/convert.js';

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
 * One target's count as the driver makes it (targetResult, series/count.ts),
 * with no family conversion: the counters alone. `withClock`: the clock read
 * off these answers, as a probe's would be.
 */
export function countAnswers<R>(
  specs: readonly CounterSpec<R>[], plans: ReadonlyMap<string, Plan>, pieces: readonly Piece<R>[], grid: Grid, timestamps: boolean, withClock = false,
) {
  const reading = new ClockReading(grid, T0);
  reading.see(specs, pieces);
  const clock = withClock ? reading.clock() : undefined;
  const out = targetResult({ specs, plans, pieces, main: undefined, grid }, { gauges: [], findings: [] }, timestamps, clock);
  return { ...out, findings: out.mismatches ?? [], uncovered: out.uncovered ?? [], rejected: out.rejected ?? [] };
}

/** A target's result as the driver makes it of a family's conversion: its counters counted, then the conversion's gauges and findings. */
export function driven<R, I extends TargetAnswers<R> & { readonly gauges: { readonly timestamps: boolean } }>(convert: (input: I) => Converted, input: I): TargetResult {
  return targetResult(input, convert(input), input.gauges.timestamps);
}

/** One waf-trend series' result as the driver makes it: counted, then its answers' findings. */
export function drivenWaf(
  spec: CounterSpec<WafAnswer>, plans: ReadonlyMap<string, Plan>, pieces: readonly Piece<WafAnswer>[], grid: Grid, timestamps: boolean,
): TargetResult {
  return targetResult({ specs: [spec], plans, pieces, main: undefined, grid }, { gauges: [], findings: wafFindings(pieces, grid) }, timestamps);
}
