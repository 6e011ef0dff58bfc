// Options every time-series collector shares, and the bucket grid they imply.
import { INTERVAL_MS, type BucketInterval } from '../buckets.js';
import { ArgumentError } from '../../shared/errors.js';

export interface AuditOptions {
  /** How often the audit runs, ms; 0 turns it off. */
  readonly everyMs: number;
  /** Buckets that ended within this long (ms) are read again. */
  readonly lookbackMs: number;
  /** Add upward revisions to the counters. */
  readonly correct: boolean;
}

export interface SeriesOptions {
  /** Bucket size asked of the upstream and counted by the watermarks. */
  readonly interval: BucketInterval;
  /** A bucket is counted only once it ended at least this long ago (the upstream revises recent buckets). */
  readonly delayMs: number;
  /** Oldest bucket worth back-filling after downtime, relative to the last settled one. */
  readonly maxBackfillMs: number;
  /** Attach the bucket time to gauge samples (and to increments: the newest bucket they include). */
  readonly timestamps: boolean;
  /** Most buckets one back-fill request asks for (default MAX_BUCKETS_PER_REQUEST, 1440). */
  readonly maxBucketsPerRequest?: number;
  /** Re-reading counted buckets (collectors.<name>.audit); absent: no audit. */
  readonly audit?: AuditOptions;
  /** `delay: auto`: the audit's suggested delay is put in force within these bounds, starting at `delayMs`. */
  readonly autoDelay?: AutoDelay;
}

export interface AutoDelay {
  readonly floorMs: number;
  readonly ceilingMs: number;
}

/** The bucket grid of one cycle: interval plus the platform zone (daily buckets start at its midnight). */
export interface Grid {
  readonly interval: BucketInterval;
  readonly offsetMinutes: number;
}

export function bucketMs(grid: Grid): number {
  return INTERVAL_MS[grid.interval];
}

/** Rejects options that would make the accounting meaningless; the config schema should catch these first. */
export function checkSeriesOptions(collector: string, options: SeriesOptions): void {
  if (!Object.hasOwn(INTERVAL_MS, options.interval)) throw new ArgumentError(`${collector}: unknown interval ${String(options.interval)}`);
  nonNegative(collector, 'delayMs', options.delayMs);
  nonNegative(collector, 'maxBackfillMs', options.maxBackfillMs);
  if (options.maxBucketsPerRequest !== undefined) positiveInteger(collector, 'maxBucketsPerRequest', options.maxBucketsPerRequest);
  if (options.autoDelay !== undefined) {
    nonNegative(collector, 'autoDelay.floorMs', options.autoDelay.floorMs);
    if (!(options.autoDelay.ceilingMs >= options.autoDelay.floorMs)) throw new ArgumentError(`${collector}: autoDelay.ceilingMs must be at least floorMs`);
  }
  if (options.audit !== undefined) {
    nonNegative(collector, 'audit.everyMs', options.audit.everyMs);
    nonNegative(collector, 'audit.lookbackMs', options.audit.lookbackMs);
  }
}

export function nonNegative(collector: string, name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new ArgumentError(`${collector}: ${name} must be a non-negative number of ms, got ${value}`);
}

export function positiveInteger(collector: string, name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new ArgumentError(`${collector}: ${name} must be a positive integer, got ${value}`);
}
