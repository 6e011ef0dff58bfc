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

/** The piece's request time range: its span, or exactly its buckets. */
export function pieceSpan<R>(piece: Piece<R>, size: number): TimeSpan {
  return piece.span ?? { begin: piece.range.first, end: piece.range.last + size };
}

/** Where an answer's points lie, over every series it carries. */
export interface AnswerBounds {
  /** Oldest point inside the span: where the answer really begins. */
  readonly oldest: number | undefined;
  /** Newest point before the span's end: how far the upstream has reported. */
  readonly newest: number | undefined;
}

/** One pass over every series of the piece's answer. */
export function answerBounds<R>(piece: Piece<R>, specs: readonly CounterSpec<R>[], size: number): AnswerBounds {
  if (piece.response === undefined) return { oldest: undefined, newest: undefined };
  const { begin, end } = pieceSpan(piece, size);
  let oldest: number | undefined;
  let newest: number | undefined;
  for (const spec of specs) {
    for (const [t] of spec.points(piece.response) ?? []) {
      if (t >= end) continue;
      if (newest === undefined || t > newest) newest = t;
      if (t >= begin && (oldest === undefined || t < oldest)) oldest = t;
    }
  }
  return { oldest, newest };
}
