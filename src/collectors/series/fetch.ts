// One target's requests for a cycle: its series planned from the watermarks,
// the request window chosen (window.ts), then the main request and the
// back-fill chunks. Chunks go one after another, oldest first, with progress
// in the log, and stop at the first failure: a later chunk could not be
// counted anyway (the watermark only moves over contiguous buckets) and is
// asked again next cycle.
import type { PlatformClock } from '../../api/index.js';
import { alignDown, lastSettledStart, type CountRange, type Plan } from '../buckets.js';
import type { CollectContext, CollectorLogger } from '../collector.js';
import type { Piece, Send, SeriesTarget } from './answer.js';
import type { Grid, SeriesOptions } from './options.js';
import { planSeries, requestWindow, spanOf, type BucketRange, type TimeSpan } from './window.js';
import { InternalError } from '../../shared/errors.js';

/** Requests a target made and the errors of those that failed. */
export interface Tally {
  readonly requests: number;
  readonly errors: readonly Error[];
}

/** A family's ranges for a series' buckets due under the options in force (waf-trend: on the upstream's grain). */
export type Ranges = (plan: CountRange, options: SeriesOptions) => readonly BucketRange[];

interface Fetched<R> extends Tally {
  /** Back-fill chunks (as far as they got) and the main request, for the count. */
  readonly pieces: readonly Piece<R>[];
  /** The main answer, for the gauges; undefined when it failed or was not needed. */
  readonly main: R | undefined;
}

interface TargetFetchInput<R> extends SeriesTarget<R> {
  readonly ctx: CollectContext;
  readonly options: SeriesOptions;
  /** Bound to the collector and the target. */
  readonly log: CollectorLogger;
  /**
   * A family without a main request (waf-trend): the ranges asking for its
   * series' buckets due, oldest first; the last reaches on to now, so its
   * answer shows the upstream's clock.
   */
  readonly ranges?: Ranges | undefined;
}

interface TargetFetch<R> {
  readonly plans: ReadonlyMap<string, Plan>;
  readonly fetched: Fetched<R>;
  /** Start of the newest settled bucket. */
  readonly lastSettled: number;
  /** Start of the bucket containing now: the newest bucket of every window. */
  readonly currentBucket: number;
}

export async function fetchTarget<R>(input: TargetFetchInput<R>): Promise<TargetFetch<R>> {
  const { ctx, options, log } = input;
  const grid: Grid = { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes };
  const plans = planSeries(input.specs.map((s) => s.key), { now: ctx.now, watermarks: ctx.watermarks, tz: ctx.tz, log }, options);
  const window = requestWindow({
    plans: plans.values(), now: ctx.now, grid, delayMs: options.delayMs, gaugeWindowMs: input.gaugeWindowMs,
    ...(options.maxBucketsPerRequest === undefined ? {} : { maxBuckets: options.maxBucketsPerRequest }),
  });
  const counting = [...plans.values()].filter((p) => p.kind === 'count');
  // Without gauges and with nothing to count (first sight or nothing settled) no request is needed.
  const needMain = input.ranges === undefined && (input.gauges || counting.length > 0);
  const ranges = input.ranges === undefined ? window.backfill : counting.flatMap((p) => input.ranges?.(p, options) ?? []);
  const lastEnd = input.ranges === undefined ? {} : { lastEnd: ctx.now, quiet: ranges.length === 1 };
  const [chunks, main] = await Promise.all([
    fetchChunks(ranges, { grid, tz: ctx.tz, log, send: input.send, ...lastEnd }),
    needMain ? tryRequest(() => input.send(window.main, 'main')) : Promise.resolve(undefined),
  ]);
  const errors = [...chunks.errors, ...(main?.error ? [main.error] : [])];
  const mainRange: BucketRange = window.main;
  const mainSpan: TimeSpan = { begin: window.main.begin, end: window.main.end };
  const pieces = [...chunks.pieces, ...(main ? [{ range: mainRange, span: mainSpan, answer: main.answer }] : [])];
  for (const error of errors) log.debug({ err: error }, 'request failed; its series wait for the next cycle');
  return {
    plans,
    fetched: { pieces, main: main?.answer, requests: chunks.requests + (main ? 1 : 0), errors },
    lastSettled: lastSettledStart(ctx.now, grid.interval, options.delayMs, grid.offsetMinutes),
    currentBucket: alignDown(grid.interval, ctx.now, grid.offsetMinutes),
  };
}

/** Sequential chunk requests with progress logging. */
async function fetchChunks<R>(
  chunks: readonly BucketRange[],
  input: {
    readonly grid: Grid;
    readonly tz: PlatformClock;
    readonly log: CollectorLogger;
    readonly send: Send<R>;
    /** Progress at debug instead of info: a routine one-chunk catch-up is not a back-fill worth reporting. */
    readonly quiet?: boolean;
    /** The last chunk's request ends here (now) instead of at its last bucket's end: its answer then shows the upstream's clock. */
    readonly lastEnd?: number;
  },
): Promise<{ pieces: Piece<R>[]; requests: number; errors: Error[] }> {
  const pieces: Piece<R>[] = [];
  const errors: Error[] = [];
  for (const [i, range] of chunks.entries()) {
    const exact = spanOf(range, input.grid);
    const span = i === chunks.length - 1 && input.lastEnd !== undefined && input.lastEnd > exact.end ? { ...exact, end: input.lastEnd } : exact;
    // For the log lines: ISO 8601 in the platform zone, with its offset.
    const from = input.tz.formatIso(span.begin);
    const to = input.tz.formatIso(span.end);
    const result = await tryRequest(() => input.send(span, 'backfill'));
    if (result.error) {
      input.log.warn({ err: result.error, from, to, chunk: i + 1, of: chunks.length }, 'back-fill chunk failed; retrying from it next cycle');
      errors.push(result.error);
      break;
    }
    pieces.push({ range, span, answer: result.answer });
    const progress = { from, to, chunk: i + 1, of: chunks.length };
    if (input.quiet) input.log.debug(progress, 'back-filled');
    else input.log.info(progress, 'back-filled');
  }
  return { pieces, requests: pieces.length + errors.length, errors };
}

/** One request of the series toolkit, its failure kept as a value: a failed request costs its series, not the cycle. */
async function tryRequest<R>(call: () => Promise<R>): Promise<{ answer: R | undefined; error: Error | undefined }> {
  try {
    return { answer: await call(), error: undefined };
  } catch (err) {
    return { answer: undefined, error: asError(err) };
  }
}

export function asError(err: unknown): Error {
  return err instanceof Error ? err : new InternalError(String(err), { cause: err });
}
