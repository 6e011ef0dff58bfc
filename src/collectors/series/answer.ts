// The shapes the series path shares (a counter series, an answer with the
// buckets its request asked for, where an answer's points lie) and how far
// the upstream's own clock has got. An answer that ends now should hold the
// current bucket; when its newest point is behind, the upstream's clock is
// behind ours, and its buckets settle that much later than ours say (count.ts
// counts them then). An answer's buckets may be coarser than ours, and an
// upstream may list a coarse bucket only once it is complete: the bucket
// after its newest may then be in progress and absent, which is waiting, not
// a clock behind (see ClockReading). Imports no other file of series/ but its
// grid types.
import { alignDown, type RawPoint } from '../buckets.js';
import type { Mismatch } from '../contract/checks.js';
import { clockMismatch, judgeClockOffset } from '../contract/clock.js';
import { layoutOf } from '../contract/series-layout.js';
import type { Labels } from './keys.js';
import { bucketMs, type Grid } from './options.js';
import type { BucketRange, TimeSpan } from './window.js';

/** One counter series of a target and where its points are in an answer. */
export interface CounterSpec<R> {
  readonly family: string;
  readonly labels: Labels;
  /** seriesKey(family, labels): the watermark's key. */
  readonly key: string;
  /** Upstream metricName that carries it (requests leave out metrics no enabled series needs). */
  readonly metric: string;
  /** True when the request names no interval and the upstream may answer finer buckets (logTread): summed, not a mismatch. */
  readonly finerBuckets?: boolean;
  /** The series' points in an answer; undefined when the answer does not carry the series. */
  points(answer: R): readonly RawPoint[] | undefined;
  /**
   * True when the answer carries the series without a bucket although it
   * says the range holds data (logTread: `data` not null): the buckets holding
   * it are not listed yet, so the series waits (idle; neither zeros nor
   * uncovered). Default: never.
   */
  pending?(answer: R): boolean;
}

/** Asks the upstream for one span: `main` carries the gauges' metrics too, `backfill` only the counters'. */
export type Send<R> = (span: TimeSpan, kind: 'main' | 'backfill') => Promise<R>;

/**
 * What the driver asks for together in a cycle: the series of one target (a
 * domain, a package, the account), or one series of the account's where a
 * family asks for each apart (waf-trend).
 */
export interface SeriesTarget<R> {
  /** For log records; {} for an account-wide target. */
  readonly labels: Labels;
  /** Enabled counter series only. */
  readonly specs: readonly CounterSpec<R>[];
  readonly send: Send<R>;
  /** True when an enabled gauge is read from the main request. */
  readonly gauges: boolean;
  /** The fixed window of the enabled window gauges; undefined when none is enabled. */
  readonly gaugeWindowMs: number | undefined;
  /** The series the upstream's clock is read off; default `specs` (waf-trend's count lays `data: null` on a grain the clock must not read). */
  readonly clockSpecs?: readonly CounterSpec<R>[];
}

/** An answer and the buckets its request asked for; no answer when the request failed. */
export interface Piece<R> {
  readonly range: BucketRange;
  /** The request's time range; default: exactly the range's buckets. The main request's ends at now. */
  readonly span?: TimeSpan;
  readonly answer: R | undefined;
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
  if (piece.answer === undefined) return { oldest: undefined, newest: undefined };
  const { begin, end } = pieceSpan(piece, size);
  let oldest: number | undefined;
  let newest: number | undefined;
  for (const spec of specs) {
    for (const [t] of spec.points(piece.answer) ?? []) {
      if (t >= end) continue;
      if (newest === undefined || t > newest) newest = t;
      if (t >= begin && (oldest === undefined || t < oldest)) oldest = t;
    }
  }
  return { oldest, newest };
}

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

/**
 * The upstream's clock as a cycle's answers show it, taken in as each
 * target's answers arrive: only the newest point seen and the latest end of
 * an answer that ends now are kept, never the answers.
 */
export class ClockReading {
  private newest: number | undefined;
  /** The newest of our buckets the answers account for (see accounted()). */
  private accounted: number | undefined;
  private end: number | undefined;

  constructor(private readonly grid: Grid, private readonly now: number) {}

  /** Takes in one target's answers. */
  see<R>(specs: readonly CounterSpec<R>[], pieces: readonly Piece<R>[]): void {
    const size = bucketMs(this.grid);
    for (const p of pieces) {
      const n = answerBounds(p, specs, size).newest;
      if (n !== undefined && (this.newest === undefined || n > this.newest)) this.newest = n;
      const a = n === undefined ? undefined : accounted(p, specs, n, size);
      if (a !== undefined && (this.accounted === undefined || a > this.accounted)) this.accounted = a;
      if (p.answer !== undefined && p.span !== undefined && p.span.end >= this.now) this.end = p.span.end;
    }
  }

  /** The newest point of the answers seen, and the lag it shows; undefined when no answer carried a point. */
  clock(): UpstreamClock | undefined {
    const { grid, newest, accounted, end, now } = this;
    if (newest === undefined || accounted === undefined) return undefined;
    // The newest bucket a request ending at `end` can hold: request times are whole seconds, and the end is exclusive.
    const expected = end === undefined ? undefined : alignDown(grid.interval, Math.floor(Math.min(end, now) / 1000) * 1000 - 1, grid.offsetMinutes);
    const behind = expected === undefined ? 0 : Math.max(0, expected - alignDown(grid.interval, accounted, grid.offsetMinutes));
    // Behind at all, its clock is somewhere in the last bucket accounted for (that bucket may have only just begun): assume the start.
    return { newest, lagMs: behind > 0 ? behind + bucketMs(grid) : 0, behindMs: behind };
  }
}

/**
 * The newest of our buckets an answer whose newest point starts at `newest`
 * accounts for. A point as wide as ours (or finer) is the bucket the
 * upstream's clock is in: that bucket. A coarser one is a whole bucket of the
 * upstream's own width, and an upstream may list such a bucket only once it
 * is complete, so the bucket after it may be in progress and absent: our
 * buckets up to that one's end are accounted for (under the other reading,
 * the newest coarse bucket holds now, and the same bound holds).
 */
function accounted<R>(piece: Piece<R>, specs: readonly CounterSpec<R>[], newest: number, size: number): number | undefined {
  if (piece.answer === undefined) return undefined;
  const span = pieceSpan(piece, size);
  for (const spec of specs) {
    const points = spec.points(piece.answer);
    if (points === undefined || !points.some(([t]) => t === newest)) continue;
    const { width } = layoutOf(points, span, size, spec.finerBuckets === true);
    return width > size ? newest + 2 * width - size : newest;
  }
  return newest;
}

/** The lag as a clock_offset mismatch (the judgement doctor makes too), once it is more than a bucket: within one, the newest bucket may simply not have begun upstream. */
export function lagFinding(clock: UpstreamClock, size: number, delayMs: number, field: string): Mismatch | undefined {
  return clockMismatch(judgeClockOffset({ behindMs: clock.behindMs, size, delayMs }), field);
}
