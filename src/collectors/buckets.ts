// Counting each bucket exactly once. The upstream reports quantities per time
// bucket and revises the newest buckets for a while after they end; a counter
// built from them must add each bucket once, only after it has settled, never
// again when it is revised, and must catch up on buckets missed while the
// exporter or the upstream was down. Which buckets are due is decided here,
// purely; how an answer's points fill them is series/read-buckets.ts.

// The interval table is the upstream's vocabulary: defined once, in src/api.
import { INTERVAL_MS } from '../api/schemas/common.js';

export { INTERVAL_MS };
export type BucketInterval = keyof typeof INTERVAL_MS;

/**
 * Start of the bucket containing `t`. Daily buckets start at midnight in the
 * platform zone; shorter ones at epoch multiples (the same instants for any
 * whole-hour offset).
 */
export function alignDown(interval: BucketInterval, t: number, offsetMinutes: number): number {
  const size = INTERVAL_MS[interval];
  const shift = interval === '1d' ? offsetMinutes * 60_000 : 0;
  return Math.floor((t + shift) / size) * size - shift;
}

/** Buckets to count in this cycle: starts in [from, lastSettled], both aligned. */
export interface CountRange {
  readonly from: number;
  readonly lastSettled: number;
  /** Buckets between the watermark and `from` given up because of max_backfill. */
  readonly skipped: number;
}

interface PlanInput {
  /** Start of the last bucket counted for the series; undefined on first sight. */
  readonly watermark: number | undefined;
  readonly now: number;
  readonly interval: BucketInterval;
  /** A bucket counts only once it ended at least this long ago. */
  readonly delayMs: number;
  /** Oldest bucket start worth back-filling, relative to the last settled one. */
  readonly maxBackfillMs: number;
  readonly offsetMinutes: number;
}

export type Plan =
  /** First sight of a series: start counting after the last settled bucket (the counter starts at 0). */
  | { readonly kind: 'initial'; readonly lastSettled: number }
  /** Nothing new has settled since the watermark. */
  | { readonly kind: 'idle'; readonly lastSettled: number }
  | ({ readonly kind: 'count' } & CountRange);

/** Start of the newest bucket that has ended at least `delayMs` before `now`. */
export function lastSettledStart(now: number, interval: BucketInterval, delayMs: number, offsetMinutes: number): number {
  // Bucket b has settled when b + size + delay <= now, i.e. b <= now - delay - size.
  return alignDown(interval, now - delayMs - INTERVAL_MS[interval], offsetMinutes);
}

export function planCount(input: PlanInput): Plan {
  const { watermark, interval, offsetMinutes } = input;
  const size = INTERVAL_MS[interval];
  const lastSettled = lastSettledStart(input.now, interval, input.delayMs, offsetMinutes);
  if (watermark === undefined) return { kind: 'initial', lastSettled };
  // A watermark off the grid (interval changed in config) snaps to its bucket.
  const next = alignDown(interval, watermark, offsetMinutes) + size;
  if (next > lastSettled) return { kind: 'idle', lastSettled };
  const oldest = alignDown(interval, lastSettled - input.maxBackfillMs, offsetMinutes);
  const from = Math.max(next, oldest);
  const skipped = from > next ? countBuckets(interval, next, from) : 0;
  return { kind: 'count', from, lastSettled, skipped };
}

/** Number of buckets with starts in [from, to), both aligned. Daily buckets are whole days in a fixed offset. */
function countBuckets(interval: BucketInterval, from: number, to: number): number {
  return Math.max(0, Math.round((to - from) / INTERVAL_MS[interval]));
}

export type RawPoint = readonly [number, number | null];

/** The value of the newest settled bucket (a gauge such as bandwidth), or undefined. */
export function latestSettled(points: readonly RawPoint[], lastSettled: number): { start: number; value: number } | undefined {
  let best: { start: number; value: number } | undefined;
  for (const [t, v] of points) {
    if (t > lastSettled || v === null || !Number.isFinite(v)) continue;
    if (best === undefined || t >= best.start) best = { start: t, value: v };
  }
  return best;
}
