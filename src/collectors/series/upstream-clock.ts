// How far the upstream's own clock has got, as a cycle's answers show it.
// An answer that ends now should hold the current bucket; when its newest
// point is behind, the upstream's clock is behind ours, and its buckets settle
// that much later than ours say (count.ts counts them then). Pure.
import { alignDown } from '../buckets.js';
import { answerBounds, type CounterSpec, type Piece } from './piece.js';
import { bucketMs, type Grid } from './options.js';

/** What a cycle's answers say of the upstream's clock. */
export interface UpstreamClock {
  /** Start of the newest point any answer carried: the upstream has reported up to here. */
  readonly newest: number;
  /**
   * How far the newest point of the answers that end now lags the current
   * bucket (0 when none ends now): the upstream's clock runs at least this far
   * behind ours, so its buckets settle that much later.
   */
  readonly lagMs: number;
  /** The raw difference: buckets missing at the end of answers that end now. */
  readonly behindMs: number;
}

/** The newest point of any answer of a cycle, and the lag it shows; undefined when no answer carried a point. */
export function upstreamClock<R>(
  targets: ReadonlyArray<{ readonly specs: readonly CounterSpec<R>[]; readonly pieces: readonly Piece<R>[] }>, grid: Grid, now: number,
): UpstreamClock | undefined {
  const size = bucketMs(grid);
  let newest: number | undefined;
  let end: number | undefined;
  for (const t of targets) {
    for (const p of t.pieces) {
      const n = answerBounds(p, t.specs, size).newest;
      if (n !== undefined && (newest === undefined || n > newest)) newest = n;
      if (p.response !== undefined && p.span !== undefined && p.span.end >= now) end = p.span.end;
    }
  }
  if (newest === undefined) return undefined;
  // The newest bucket a request ending at `end` can hold: request times are whole seconds, and the end is exclusive.
  const expected = end === undefined ? undefined : alignDown(grid.interval, Math.floor(Math.min(end, now) / 1000) * 1000 - 1, grid.offsetMinutes);
  const behind = expected === undefined ? 0 : Math.max(0, expected - alignDown(grid.interval, newest, grid.offsetMinutes));
  // Behind at all, its clock is somewhere in the newest bucket it listed (that bucket may have only just begun): assume the start.
  return { newest, lagMs: behind > 0 ? behind + size : 0, behindMs: behind };
}
