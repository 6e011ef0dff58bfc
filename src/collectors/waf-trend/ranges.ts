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
import { chunkRange, type BucketRange, type Grid } from '../series/index.js';
import { bucketMs } from '../series/index.js';
import type { Grain } from './convert.js';

/**
 * The ranges asking for buckets `from`..`lastSettled` (configured grid), at
 * most `perChunk` configured buckets each, oldest first; aligned to `grain`
 * when it is coarser than the interval and a whole number of its buckets (a
 * grid that does not line up with ours is asked on ours).
 */
export function wafRanges(plan: { readonly from: number; readonly lastSettled: number }, grid: Grid, perChunk: number, grain: Grain | undefined): BucketRange[] {
  const size = bucketMs(grid);
  const ratio = grain === undefined ? 1 : grain.width / size;
  if (grain === undefined || ratio <= 1 || !Number.isInteger(ratio) || (grain.anchor - plan.from) % size !== 0) {
    return chunkRange({ first: plan.from, last: plan.lastSettled }, grid, perChunk);
  }
  const first = grain.anchor + Math.floor((plan.from - grain.anchor) / grain.width) * grain.width;
  return chunkRange({ first, last: plan.lastSettled }, grid, Math.max(1, Math.floor(perChunk / ratio)) * ratio);
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
