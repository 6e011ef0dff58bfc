// Which buckets a cycle asks the upstream for. Counters need every bucket
// from their oldest watermark on; window gauges (peak, p95) need a fixed
// summary window ending now. One "main" request per target serves both in
// the normal case; a back-fill older than the gauge window goes into separate
// chunked requests so the window gauges keep their fixed window and no single
// request grows without bound.
import type { PlatformClock } from '../../api/index.js';
import { alignDown, lastSettledStart, planCount, type Plan } from '../buckets.js';
import type { CollectorLogger } from '../collector.js';
import { bucketMs, type Grid, type SeriesOptions } from './options.js';

/** Most buckets one request asks for: a day of minutes, ~5 days of 5m, 60 days of hours. */
export const MAX_BUCKETS_PER_REQUEST = 1440;

/** Bucket starts `first`..`last`, both inclusive and on the grid. */
export interface BucketRange {
  readonly first: number;
  readonly last: number;
}

/** A request's time range: `begin` on the grid, `end` exclusive (now, or the end of the range's last bucket). */
export interface TimeSpan {
  readonly begin: number;
  readonly end: number;
}

export interface RequestWindow {
  /** The request for every metric of the target: gauges and the counters' recent buckets, ending now. */
  readonly main: BucketRange & TimeSpan;
  /** Older buckets still to count, oldest first, each at most `maxBuckets` long; counter metrics only. */
  readonly backfill: readonly BucketRange[];
}

interface WindowInput {
  readonly plans: Iterable<Plan>;
  readonly now: number;
  readonly grid: Grid;
  readonly delayMs: number;
  /** Fixed window of the gauges in the main request; undefined when it carries none (it may then stretch over the back-fill). */
  readonly gaugeWindowMs: number | undefined;
  readonly maxBuckets?: number;
}

export function requestWindow(input: WindowInput): RequestWindow {
  const { grid, now } = input;
  const size = bucketMs(grid);
  const maxBuckets = input.maxBuckets ?? MAX_BUCKETS_PER_REQUEST;
  const current = alignDown(grid.interval, now, grid.offsetMinutes);
  const lastSettled = lastSettledStart(now, grid.interval, input.delayMs, grid.offsetMinutes);
  const oldest = oldestFrom(input.plans);
  let first: number;
  if (input.gaugeWindowMs !== undefined) {
    // The latest settled bucket is always inside, whatever the configured window.
    first = alignDown(grid.interval, Math.min(now - input.gaugeWindowMs, lastSettled), grid.offsetMinutes);
  } else {
    const wanted = alignDown(grid.interval, Math.min(oldest ?? lastSettled, lastSettled), grid.offsetMinutes);
    first = Math.max(wanted, current - (maxBuckets - 1) * size);
  }
  const backfill = oldest !== undefined && oldest < first ? chunkRange({ first: oldest, last: first - size }, grid, maxBuckets) : [];
  return { main: { first, last: current, begin: first, end: now }, backfill };
}

function oldestFrom(plans: Iterable<Plan>): number | undefined {
  let oldest: number | undefined;
  for (const p of plans) if (p.kind === 'count' && (oldest === undefined || p.from < oldest)) oldest = p.from;
  return oldest;
}

/** Splits a range into consecutive ranges of at most `maxBuckets` buckets, oldest first. */
export function chunkRange(range: BucketRange, grid: Grid, maxBuckets: number): BucketRange[] {
  const size = bucketMs(grid);
  const out: BucketRange[] = [];
  for (let first = range.first; first <= range.last; first += maxBuckets * size) {
    out.push({ first, last: Math.min(range.last, first + (maxBuckets - 1) * size) });
  }
  return out;
}

/**
 * The time span asking for exactly a range's buckets: end is the end of the
 * last bucket. The upstream treats end as exclusive (the simulator does, and
 * WAF events in the last second would otherwise be lost); a bucket starting at
 * end that an inclusive upstream might add is outside the range and ignored.
 */
export function spanOf(range: BucketRange, grid: Grid): TimeSpan {
  return { begin: range.first, end: range.last + bucketMs(grid) };
}

/** Request params in the platform zone. */
export function paramsOf(tz: PlatformClock, span: TimeSpan): { beginTime: string; endTime: string } {
  return { beginTime: tz.formatDateTime(span.begin), endTime: tz.formatDateTime(span.end) };
}

/** Plans every series of a target from the persisted watermarks, and warns once about buckets given up to max_backfill (`ctx.log` names the target). */
export function planSeries(
  keys: readonly string[],
  ctx: { readonly now: number; readonly watermarks: Readonly<Record<string, number>>; readonly log: CollectorLogger; readonly tz: PlatformClock },
  options: SeriesOptions,
): Map<string, Plan> {
  const plans = new Map<string, Plan>();
  // A plan depends on the watermark alone, and a target's series mostly share one: one plan object each, held until the cycle closes.
  const byWatermark = new Map<number | undefined, Plan>();
  let skipped = 0;
  let from: number | undefined;
  for (const key of keys) {
    const watermark = ctx.watermarks[key];
    let plan = byWatermark.get(watermark);
    if (plan === undefined) {
      plan = planCount({
        watermark, now: ctx.now, interval: options.interval, delayMs: options.delayMs, maxBackfillMs: options.maxBackfillMs, offsetMinutes: ctx.tz.offsetMinutes,
      });
      byWatermark.set(watermark, plan);
    }
    plans.set(key, plan);
    if (plan.kind === 'count' && plan.skipped > skipped) {
      skipped = plan.skipped;
      from = plan.from;
    }
  }
  if (skipped > 0 && from !== undefined) {
    ctx.log.warn({ skipped, resumeFrom: ctx.tz.formatIso(from) }, 'buckets older than max_backfill are not counted');
  }
  return plans;
}
