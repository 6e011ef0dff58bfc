// Turns the responses of one target into counter increments and watermarks,
// with the exactly-once rules of ../buckets.ts. Pure: no I/O, no clock.
//
// A series advances only over buckets a response actually covered: a piece
// covers a series when its request asked for those buckets and the response
// carried the series (its metric item and key were present). Pieces are
// walked from the plan's first bucket; the watermark stops at the first
// bucket no successful piece covers, so a failed back-fill chunk is retried
// next cycle and nothing after it is counted out of order.
//
// `data: null` (which the client hands over as []) or a missing metric item
// covers nothing. For a range without traffic an upstream might answer that
// way, but it might equally be a glitch, and an answer that says nothing is
// no evidence of zero: the buckets are asked again next cycle (up to
// max_backfill), which costs a wider request, where advancing would lose data
// for good. The simulator answers zeros for idle ranges. An item whose series
// is an empty list did answer, and counts as zero. (The WAF log query
// documents null as "nothing matched"; waf-trend treats it as zero.)
import { countSettled, type Plan, type RawPoint } from '../buckets.js';
import type { Sample } from '../types.js';
import type { Labels } from './keys.js';
import { bucketMs, type Grid } from './options.js';
import type { TargetResult } from './output.js';
import type { BucketRange } from './window.js';

/** One counter series of a target and where its points are in a response. */
export interface CounterSpec<R> {
  readonly family: string;
  readonly labels: Labels;
  /** seriesKey(family, labels): the watermark's key. */
  readonly key: string;
  /** Upstream metricName that carries it (requests leave out metrics no enabled series needs). */
  readonly metric: string;
  /** The series' points in a response; undefined when the response does not carry the series. */
  points(response: R): readonly RawPoint[] | undefined;
}

/** A response and the buckets its request asked for; no response when the request failed. */
export interface Piece<R> {
  readonly range: BucketRange;
  readonly response: R | undefined;
}

export interface CountOutcome {
  readonly increments: Sample[];
  /** Updated watermarks only; series that did not move are absent. */
  readonly watermarks: Record<string, number>;
  /** End of the newest bucket counted, first seen settled or found idle. */
  readonly newestBucketEndMs: number | undefined;
  /** Keys of series with buckets to count that no response covered. */
  readonly uncovered: string[];
  /** Points rejected as negative or non-finite. */
  readonly rejected: number;
}

export function countTarget<R>(
  specs: readonly CounterSpec<R>[],
  plans: ReadonlyMap<string, Plan>,
  pieces: readonly Piece<R>[],
  grid: Grid,
  timestamps: boolean,
): CountOutcome {
  const size = bucketMs(grid);
  const increments: Sample[] = [];
  const watermarks: Record<string, number> = {};
  const uncovered: string[] = [];
  let rejected = 0;
  let newest: number | undefined;
  const seen = (bucketStart: number): void => {
    newest = Math.max(newest ?? bucketStart + size, bucketStart + size);
  };
  for (const spec of specs) {
    const plan = plans.get(spec.key);
    if (plan === undefined) continue;
    if (plan.kind === 'idle') {
      seen(plan.lastSettled);
      continue;
    }
    if (plan.kind === 'initial') {
      // First sight: the counter starts at 0 after the last settled bucket.
      // Exposing the 0 right away lets increase() see the first real bucket.
      watermarks[spec.key] = plan.lastSettled;
      increments.push(sample(spec, 0, timestamps ? plan.lastSettled : undefined));
      seen(plan.lastSettled);
      continue;
    }
    const walked = walk(spec, plan, pieces, size);
    rejected += walked.rejected;
    if (walked.watermark === undefined) {
      uncovered.push(spec.key);
      continue;
    }
    watermarks[spec.key] = walked.watermark;
    increments.push(sample(spec, walked.increment, timestamps ? walked.watermark : undefined));
    seen(walked.watermark);
  }
  return { increments, watermarks, newestBucketEndMs: newest, uncovered, rejected };
}

function walk<R>(
  spec: CounterSpec<R>,
  plan: { readonly from: number; readonly lastSettled: number },
  pieces: readonly Piece<R>[],
  size: number,
): { increment: number; watermark: number | undefined; rejected: number } {
  let pos = plan.from;
  let increment = 0;
  let rejected = 0;
  let watermark: number | undefined;
  while (pos <= plan.lastSettled) {
    const covering = covers(spec, pieces, pos);
    if (covering === undefined) break;
    const to = Math.min(covering.range.last, plan.lastSettled);
    const r = countSettled(covering.points, { from: pos, lastSettled: to });
    increment += r.increment;
    rejected += r.rejected;
    watermark = to;
    pos = to + size;
  }
  return { increment, watermark, rejected };
}

function covers<R>(spec: CounterSpec<R>, pieces: readonly Piece<R>[], pos: number): { range: BucketRange; points: readonly RawPoint[] } | undefined {
  for (const piece of pieces) {
    if (piece.response === undefined || pos < piece.range.first || pos > piece.range.last) continue;
    const points = spec.points(piece.response);
    if (points !== undefined) return { range: piece.range, points };
  }
  return undefined;
}

function sample<R>(spec: CounterSpec<R>, value: number, timestampMs: number | undefined): Sample {
  return timestampMs === undefined ? { name: spec.family, labels: spec.labels, value } : { name: spec.family, labels: spec.labels, value, timestampMs };
}

/** One target's responses: its counter series and plans, every piece, and the main response that carries the gauges. */
export interface TargetConvertInput<R, G extends { readonly timestamps: boolean }> {
  readonly specs: readonly CounterSpec<R>[];
  readonly plans: ReadonlyMap<string, Plan>;
  readonly pieces: readonly Piece<R>[];
  /** The response carrying the gauges; undefined when it failed or no gauge is enabled. */
  readonly main: R | undefined;
  readonly grid: Grid;
  readonly gauges: G;
}

/** Counters from every piece, gauges from the main response only: one target's cycle. */
export function convertTarget<R, G extends { readonly timestamps: boolean }>(
  input: TargetConvertInput<R, G>,
  gaugesOf: (main: R, gauges: G) => Sample[],
): TargetResult {
  const counted = countTarget(input.specs, input.plans, input.pieces, input.grid, input.gauges.timestamps);
  return {
    increments: counted.increments, watermarks: counted.watermarks, newestBucketEndMs: counted.newestBucketEndMs,
    uncovered: counted.uncovered, gauges: input.main === undefined ? [] : gaugesOf(input.main, input.gauges),
  };
}
