// Range queries over Stats, shared by the statistics handlers so every
// operation agrees on which buckets a time range holds and how they add up.
//
// Range rule: the buckets of `interval` whose start s satisfies
// alignDown(begin) <= s < end (end exclusive, so consecutive windows
// [t0,t1) [t1,t2) never count a bucket twice) and s <= now (later buckets are
// absent). Buckets are reported whole, never clipped to the range.
//
// Multi-domain values are the sum of each domain's reported value, so per-domain
// answers always add up to the all-domain answer, also while buckets are still
// being revised.
import type { BandwidthUnit } from './readings.js';
import { addInto, INTERVAL_MS, zeroSample, type Interval, type TrafficSample, type Stats } from './stats.js';
import { EdgeError } from '../shared/errors.js';

/** Refuse ranges that would make one answer enormous (the document gives no limit). */
const MAX_BUCKETS = 50_000;

export interface SeriesPoint {
  readonly start: number;
  readonly sample: TrafficSample;
}

export class RangeTooLargeError extends EdgeError {
  readonly code = 'EDGE_SIM_RANGE_TOO_LARGE';
}

export function bucketStarts(stats: Stats, interval: Interval, begin: number, end: number, now: number): number[] {
  const len = INTERVAL_MS[interval];
  const first = stats.alignDown(interval, begin);
  const last = Math.min(end - 1, now);
  if (last < first) return [];
  if ((last - first) / len >= MAX_BUCKETS) throw new RangeTooLargeError(`range holds more than ${MAX_BUCKETS} buckets`);
  const starts: number[] = [];
  for (let s = first; s <= last; s += len) starts.push(s);
  return starts;
}

/** The summed series of `domains` over the range, as reported at `now`. */
export function querySeries(
  stats: Stats, domains: readonly string[], interval: Interval, begin: number, end: number, now: number,
): SeriesPoint[] {
  return bucketStarts(stats, interval, begin, end, now).map((start) => {
    const sample = zeroSample();
    for (const d of domains) {
      const v = stats.reported(d, interval, start, now);
      if (v) addInto(sample, v);
    }
    return { start, sample };
  });
}

/** Per-domain totals over the range (each the sum of its reported buckets). */
export function domainTotals(
  stats: Stats, domains: readonly string[], interval: Interval, begin: number, end: number, now: number,
): Map<string, TrafficSample> {
  const starts = bucketStarts(stats, interval, begin, end, now);
  return new Map(domains.map((d) => {
    const total = zeroSample();
    for (const s of starts) {
      const v = stats.reported(d, interval, s, now);
      if (v) addInto(total, v);
    }
    return [d, total];
  }));
}

export function totalOf(points: readonly SeriesPoint[]): TrafficSample {
  return points.reduce((acc, p) => addInto(acc, p.sample), zeroSample());
}

/**
 * Bandwidth of a bucket in bits per second: bytes × 8 / bucket length in
 * seconds, rounded down to an integer. The document does not define it; an
 * average rate over the bucket is what a traffic chart of that granularity shows.
 * The bandwidthUnit reading bytes_per_second drops the × 8.
 */
export function bandwidth(bytes: number, interval: Interval, unit: BandwidthUnit = 'bits_per_second'): number {
  return Math.floor((unit === 'bits_per_second' ? bytes * 8 : bytes) / (INTERVAL_MS[interval] / 1000));
}

/** A total as the totalsSkew reading reports it: floor(total × factor); exactly the total at 1. */
export function skewed(total: number, factor: number): number {
  return factor === 1 ? total : Math.floor(total * factor);
}

/** Nearest-rank 95th percentile: sort ascending, take index ceil(0.95 × n) − 1 (0 for no values). */
export function percentile95(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(0.95 * sorted.length) - 1] ?? 0;
}

export function peak(values: readonly number[]): number {
  return values.reduce((a, b) => Math.max(a, b), 0);
}

/** Request-weighted mean request time in ms, rounded to 2 decimals; 0 for a bucket without requests. */
export function meanRequestTime(s: Readonly<TrafficSample>): number {
  return s.requests === 0 ? 0 : Math.round((s.requestTimeSum / s.requests) * 100) / 100;
}
