// What the counting reads: a counter series and where its points are in an
// answer, and an answer with the buckets and time range its request asked for.
import type { RawPoint } from '../buckets.js';
import type { Labels } from './keys.js';
import type { BucketRange, TimeSpan } from './window.js';

/** One counter series of a target and where its points are in a response. */
export interface CounterSpec<R> {
  readonly family: string;
  readonly labels: Labels;
  /** seriesKey(family, labels): the watermark's key. */
  readonly key: string;
  /** Upstream metricName that carries it (requests leave out metrics no enabled series needs). */
  readonly metric: string;
  /** True when the request names no interval and the upstream may answer finer buckets (logTread): summed, not a mismatch. */
  readonly finerBuckets?: boolean;
  /** The series' points in a response; undefined when the response does not carry the series. */
  points(response: R): readonly RawPoint[] | undefined;
}

/** A response and the buckets its request asked for; no response when the request failed. */
export interface Piece<R> {
  readonly range: BucketRange;
  /** The request's time range; default: exactly the range's buckets. The main request's ends at now. */
  readonly span?: TimeSpan;
  readonly response: R | undefined;
}
