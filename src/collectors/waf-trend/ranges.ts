// Which ranges the WAF trend asks for. logTread picks its own bucket, and the
// document does not say whether a range lists the bucket holding its start or
// only the buckets that begin inside it. On the configured grid both readings
// agree while the upstream's buckets are no coarser than the interval. Once
// they are (the cycle's answers show it: grainOf), a range beginning inside a
// coarse bucket lists it under one reading and not under the other, so from
// then on the ranges begin at the start of the coarse bucket holding the first
// bucket due and are whole coarse buckets long: every coarse bucket due then
// begins inside a range under either reading. Counting is unchanged: a bucket
// before the first one due is read but not counted (read-buckets.ts).
import { bucketMs, chunkRange, type BucketRange, type Grid, type TimeSpan } from '../series/index.js';
import type { Grain } from './convert.js';

/**
 * The ranges asking for buckets `from`..`lastSettled` (configured grid), at
 * most `perChunk` configured buckets each, oldest first; once `grain` is
 * coarser than the interval, from its bucket holding `from` and in whole
 * buckets of it.
 */
export function wafRanges(plan: { readonly from: number; readonly lastSettled: number }, grid: Grid, perChunk: number, grain: Grain | undefined): BucketRange[] {
  const ratio = coarseRatio(plan.from, grid, grain);
  const first = coarseStart(plan.from, grid, grain);
  return chunkRange({ first, last: plan.lastSettled }, grid, Math.max(1, Math.floor(perChunk / ratio)) * ratio);
}

/** The audit's span, begun on the coarse grid too, so a strict upstream lists the first bucket it re-reads. */
export function wafAuditSpan(span: TimeSpan, grid: Grid, grain: Grain | undefined): TimeSpan {
  return { begin: coarseStart(span.begin, grid, grain), end: span.end };
}

/** Start of the coarse bucket holding `t` (on the configured grid); `t` when coarseRatio is 1. */
function coarseStart(t: number, grid: Grid, grain: Grain | undefined): number {
  if (grain === undefined || coarseRatio(t, grid, grain) === 1) return t;
  return grain.anchor + Math.floor((t - grain.anchor) / grain.width) * grain.width;
}

/**
 * Configured buckets per coarse bucket: 1 unless `grain` is coarser than the
 * interval and a whole number of its buckets on our grid (a grid that does not
 * line up with ours is asked on ours).
 */
function coarseRatio(t: number, grid: Grid, grain: Grain | undefined): number {
  const size = bucketMs(grid);
  if (grain === undefined || grain.width <= size || grain.width % size !== 0 || (grain.anchor - t) % size !== 0) return 1;
  return grain.width / size;
}

/** The upstream's grain as this collector last saw it: kept across cycles, since a range is chosen before its answer shows one. */
export class GrainMemory {
  private last: Grain | undefined;

  get(): Grain | undefined {
    return this.last;
  }

  /** A cycle whose answers carried no point shows no grain and leaves the last one. */
  see(grain: Grain | undefined): void {
    if (grain !== undefined) this.last = grain;
  }
}
