// Turns the answers of one target into counter increments and watermarks,
// with the exactly-once rules of ../buckets.ts. Pure: no I/O, no clock.
//
// A series advances only over buckets an answer actually covered: a piece
// covers a series when its request asked for those buckets and the answer
// carried the series (its metric item and key were present). Pieces are
// walked from the plan's first bucket; the watermark stops at the first
// bucket no successful piece covers, so a failed back-fill chunk is retried
// next cycle and nothing after it is counted out of order.
//
// The answer, not the request, says how wide its buckets are
// (../contract/series-layout.ts): a bucket coarser than the interval is counted
// whole, attributed to its start, once all of it has settled, and the
// watermark stops before a coarse bucket that has not. A watermark never
// passes the newest point the answer carried: an upstream whose clock runs
// behind, or that read the range in another zone, answers the newest buckets
// with nothing, and those buckets wait (the data lag grows and the answer is
// reported as out_of_range) instead of being counted as zero for good.
// Points outside the range asked for are never counted.
//
// `data: null` (which the client hands over as []) or a missing metric item
// covers nothing. For a range without traffic an upstream might answer that
// way, but it might equally be a glitch, and an answer that says nothing is
// no evidence of zero: the buckets are asked again next cycle (up to
// max_backfill), which costs a wider request, where advancing would lose data
// for good. The simulator answers zeros for idle ranges. An item whose series
// is an empty list did answer, and counts as zero where other answers reach
// past it; unless the family knows its data is not listed yet (the spec's
// `pending`: waf-trend's logTread with data but no bucket, from an upstream
// that lists a coarse bucket only once complete), which waits, idle. (The WAF
// log query documents null as "nothing matched"; waf-trend treats it as zero.)
import type { Plan } from '../buckets.js';
import type { Mismatch } from '../contract/checks.js';
import { emptyTally, rejectedOf, REJECT_REASONS, type RejectedPoints, type RejectTally } from '../rejects.js';
import type { Sample } from '../collector.js';
import { answerBounds, pieceSpan, type AnswerBounds, type CounterSpec, type Piece, type UpstreamClock } from './answer.js';
import type { Labels } from './keys.js';
import { bucketMs, type Grid } from './options.js';
import { layoutIn, readBuckets, seriesFindings, type CountedRange } from './read-buckets.js';

/** What one target's cycle produced, for the cycle's sum (sum.ts). */
export interface TargetResult {
  readonly increments: readonly Sample[];
  readonly watermarks: Readonly<Record<string, number>>;
  readonly gauges: readonly Sample[];
  readonly newestBucketEndMs: number | undefined;
  /** Counter series with buckets to count that no answer covered (they did not advance). */
  readonly uncovered?: readonly string[];
  /** Answers that contradicted an assumption (findings of every series; assemble keeps one per check and target). */
  readonly mismatches?: readonly Mismatch[];
  /** Series key -> the buckets counted this cycle (the audit's record). */
  readonly counted?: ReadonlyMap<string, CountedRange>;
  /** Points refused (counters' and gauges'), per series and reason: the engine counts and logs them. */
  readonly rejected?: readonly RejectedPoints[];
}

/**
 * One target's result: its counters counted by the one rule of this file
 * (with the cycle's upstream clock), then what its family's conversion read.
 * The only way from answers to increments: the driver (collect.ts) calls it
 * for every bucketed family.
 */
export function targetResult<R>(answers: TargetAnswers<R>, converted: Converted, timestamps: boolean, clock?: UpstreamClock): TargetResult {
  const { specs, plans, pieces, grid } = answers;
  const size = bucketMs(grid);
  const increments: Sample[] = [];
  const watermarks: Record<string, number> = {};
  const uncovered: string[] = [];
  const findings: Mismatch[] = [];
  const counted = new Map<string, CountedRange>();
  const rejected: RejectedPoints[] = [];
  let newest: number | undefined;
  // Where each answer begins, over all its series: read once, not once per series.
  const bounds = new Map(pieces.map((p) => [p, answerBounds(p, specs, size)]));
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
      increments.push(counterSample(spec, 0, timestamps ? plan.lastSettled : undefined));
      seen(plan.lastSettled);
      continue;
    }
    // Settled by the upstream's clock too: a clock behind ours still revises what ours calls settled.
    const lastSettled = plan.lastSettled - (clock?.lagMs ?? 0);
    if (lastSettled < plan.from) {
      // Nothing new has settled by the upstream's clock: idle, not uncovered.
      seen(plan.from - size);
      continue;
    }
    const walked = walk(spec, { from: plan.from, lastSettled }, pieces, grid, clock?.newest, bounds);
    rejected.push(...rejectedOf(spec.key, walked.rejected));
    findings.push(...walked.findings);
    if (walked.watermark === undefined && walked.waiting) {
      seen(plan.from - size);
      continue;
    }
    if (walked.watermark === undefined) {
      uncovered.push(spec.key);
      // Still counted up to its watermark: the data lag grows from there (an upstream further behind than any range asked shows no point at all).
      seen(plan.from - size);
      continue;
    }
    watermarks[spec.key] = walked.watermark;
    counted.set(spec.key, { from: plan.from, to: walked.watermark, values: walked.buckets });
    increments.push(counterSample(spec, walked.increment, timestamps ? walked.watermark : undefined));
    seen(walked.watermark);
  }
  findings.push(...converted.findings);
  return { increments, watermarks, newestBucketEndMs: newest, uncovered, rejected, mismatches: findings, counted, gauges: converted.gauges };
}

interface Walked {
  /** No piece let the watermark move, but one covered it with a coarse bucket still settling, or with data not listed yet (pending). */
  waiting: boolean;
  increment: number;
  watermark: number | undefined;
  rejected: RejectTally;
  buckets: Array<readonly [number, number]>;
  findings: Mismatch[];
}

function walk<R>(
  spec: CounterSpec<R>, plan: { readonly from: number; readonly lastSettled: number }, pieces: readonly Piece<R>[], grid: Grid, evidence: number | undefined,
  bounds: ReadonlyMap<Piece<R>, AnswerBounds>,
): Walked {
  const size = bucketMs(grid);
  const out: Walked = { waiting: false, increment: 0, watermark: undefined, rejected: emptyTally(), buckets: [], findings: [] };
  let pos = plan.from;
  while (pos <= plan.lastSettled) {
    let moved = false;
    for (const piece of pieces) {
      if (piece.answer === undefined || pos < piece.range.first || pos > piece.range.last) continue;
      // Data not listed yet (a bucket listed only once complete): nothing is due from this answer, and no finding.
      if (spec.pending?.(piece.answer) === true) {
        out.waiting = true;
        continue;
      }
      const span = pieceSpan(piece, size);
      const layout = layoutIn(spec, piece.answer, span, size);
      if (layout === undefined) continue;
      const step = readBuckets(layout, span, grid, { pos, to: Math.min(piece.range.last, plan.lastSettled), evidence, answerFrom: bounds.get(piece)?.oldest });
      out.findings.push(...seriesFindings(spec, step, span, size));
      if (step.coarseWait) out.waiting = true;
      if (step.reach < pos) continue;
      for (const v of step.values.values()) out.increment += v;
      for (const reason of REJECT_REASONS) out.rejected[reason] += step.rejected[reason];
      out.buckets.push(...step.values);
      out.watermark = step.reach;
      pos = step.reach + size;
      moved = true;
      break;
    }
    if (!moved) break;
  }
  return out;
}

function counterSample<R>(spec: CounterSpec<R>, value: number, timestampMs: number | undefined): Sample {
  return timestampMs === undefined ? { name: spec.family, labels: spec.labels, value } : { name: spec.family, labels: spec.labels, value, timestampMs };
}

/** A gauge sample with its bucket's start; its exposition timestamp only when the collector is configured with `timestamps`. */
export function gaugeSample(name: string, labels: Labels, value: number, bucketStart: number | undefined, timestamps: boolean): Sample {
  if (bucketStart === undefined) return { name, labels, value };
  return timestamps ? { name, labels, value, timestampMs: bucketStart, bucketStartMs: bucketStart } : { name, labels, value, bucketStartMs: bucketStart };
}

/** One target's answers, as the driver (collect.ts) hands them to the family's conversion. */
export interface TargetAnswers<R> {
  readonly specs: readonly CounterSpec<R>[];
  readonly plans: ReadonlyMap<string, Plan>;
  readonly pieces: readonly Piece<R>[];
  /** The answer carrying the gauges; undefined when it failed or no gauge is enabled. */
  readonly main: R | undefined;
  readonly grid: Grid;
}

/** One target's answers with what its gauges need. */
export type TargetConvertInput<R, G extends { readonly timestamps: boolean }> = TargetAnswers<R> & { readonly gauges: G };

/** What a family's pure conversion reads of one target's answers: its gauges and what the answers contradict. Never a count. */
export interface Converted {
  readonly gauges: readonly Sample[];
  readonly findings: readonly Mismatch[];
}
