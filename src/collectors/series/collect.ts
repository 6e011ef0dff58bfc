// The cycle of a time-series collector, driven once per collect: each
// target's requests (fetch.ts), the upstream's clock over all the answers,
// the family's pure conversion of each target, the cycle's output, and the
// audit. Written once so the collectors agree on what a partial failure
// means: a gauge family is replaced by whatever the successful requests
// produced (a target whose request failed has no gauge this cycle rather than
// a stale one), counters of a failed target simply do not advance, and a
// cycle in which every request failed throws, so the engine records the failure and
// reports it. So does a cycle in which nothing advanced because every answer
// that came back said nothing (`data: null`, no item for the series): those
// buckets are asked again next cycle (count.ts), but a collector up and
// lagging silently behind an upstream that returns no data would hide the
// outage. A failed audit request costs nothing but that audit: the buckets
// are compared next time.
import pLimit from 'p-limit';
import { firstPerCheck, seconds, type Mismatch } from '../contract/checks.js';
import type { RejectedPoints } from '../rejects.js';
import type { CollectContext, Collector, CollectorLogger, CollectOutput, Sample, TargetCounts } from '../types.js';
import { lagFinding, upstreamClock, type CounterSpec, type UpstreamClock } from './answer.js';
import { AuditBook, NO_AUDIT } from './audit.js';
import { compactAnswer, compactPieces, compactSpecs, expandPieces, type CompactAnswer } from './compact.js';
import { countedResult, type TargetAnswers, type TargetResult } from './count.js';
import type { CountedRange } from './read-buckets.js';
import { asError, fetchTarget, type Fetched, type Send, type Tally } from './fetch.js';
import type { Labels } from './keys.js';
import { bucketMs, checkSeriesOptions, nonNegative, type AutoDelay, type Grid, type SeriesOptions } from './options.js';
import { lookBackDue, lookBackRange } from './lookback.js';
import { spanOf } from './window.js';

/**
 * A time-series collector: its options checked once, and an audit book that
 * lives as long as it does. `summaryWindowMs`, where a collector has one,
 * is the window of its summary gauges.
 */
export function seriesCollector(
  shape: Omit<Collector, 'collect' | 'requests'>,
  options: SeriesOptions & { readonly summaryWindowMs?: number },
  collect: (ctx: CollectContext, book: AuditBook) => Promise<CollectOutput>,
  units: (targets: TargetCounts) => UnitCounts,
): Collector {
  checkSeriesOptions(shape.name, options);
  if (options.summaryWindowMs !== undefined) nonNegative(shape.name, 'summaryWindowMs', options.summaryWindowMs);
  const book = new AuditBook(options.audit ?? NO_AUDIT);
  const everyMs = options.audit?.everyMs ?? 0;
  return {
    ...shape,
    collect: (ctx) => collect(ctx, book),
    requests: (targets) => {
      const { requests, counted } = units(targets);
      // An audit asks once more for each target with counter series (audited() below).
      return { run: requests, ...(everyMs > 0 && counted > 0 ? { audit: { requests: counted, everyMs } } : {}) };
    },
  };
}

/** A cycle's targets for the request estimate: requests of the main span, and how many of them carry counter series (each audited). */
export interface UnitCounts {
  readonly requests: number;
  readonly counted: number;
}

/** One target of a cycle: the family's request of a span, and its series. */
export interface TrendUnit<R> {
  /** The target's labels, for log records ({} for an account-wide target). */
  readonly target: Labels;
  /** Enabled counter series only. */
  readonly specs: readonly CounterSpec<R>[];
  readonly send: Send<R>;
  /** True when an enabled gauge is read from the main request. */
  readonly gauges: boolean;
  /** The fixed window of the enabled window gauges; undefined when none is enabled. */
  readonly gaugeWindowMs: number | undefined;
}

/** A target's answers, and where its buckets stand this cycle. */
export interface UnitAnswers<R> {
  readonly answers: TargetAnswers<R>;
  /** Start of the newest settled bucket: the latest-bucket gauges show it. */
  readonly lastSettled: number;
  /** Start of the bucket containing now: window gauges are stamped with it. */
  readonly currentBucket: number;
}

/** `U`: what the family keeps of a target for its conversion (its domain, its package). */
export interface TrendCycle<R, U> {
  readonly collector: string;
  readonly log: CollectorLogger;
  readonly book: AuditBook;
  /** Enabled gauge families this cycle produces (each replaces its previous series, even when empty). */
  readonly gaugeFamilies: readonly string[];
  readonly units: ReadonlyArray<TrendUnit<R> & U>;
  /** The family's pure conversion of one target's answers. */
  convert(unit: TrendUnit<R> & U, answers: UnitAnswers<R>, log: CollectorLogger): TargetResult;
}

/**
 * Targets whose requests may be under way at once. The client bounds the
 * requests in flight (upstream.concurrency, default 8); this bounds the
 * targets waiting for a slot, each with its plans, request bodies and
 * suspended calls (~15 KB): started all at once, 6,667 of them were most of
 * the live heap during a cycle, and V8 lets the heap grow to a few times its
 * live size between full collections.
 */
const TARGETS_IN_FLIGHT = 64;

/**
 * Every target asked (TARGETS_IN_FLIGHT at a time), then counted together: another target's points
 * say how far the upstream's clock has got. What does not depend on that
 * clock (the gauges, the family's findings) is converted as each target's
 * answers arrive, and of the answers only the counter series' points are kept
 * (compact.ts): a cycle's parsed answers, held until every target had
 * answered, were most of the daemon's memory at 100k series.
 */
export async function collectTrend<R, U>(ctx: CollectContext, configured: SeriesOptions, cycle: TrendCycle<R, U>): Promise<CollectOutput> {
  const options = inForce(configured, cycle.book);
  const pool = pLimit(TARGETS_IN_FLIGHT);
  const fetched = await Promise.all(cycle.units.map((unit) => pool(async (): Promise<FetchedUnit<CompactAnswer>> => {
    const child = (): CollectorLogger => (Object.keys(unit.target).length > 0 ? cycle.log.child(unit.target) : cycle.log);
    const log = child();
    const run = await fetchTarget({ ctx, options, log, ...unit });
    const { plans, grid, fetched: { pieces, main, requests, errors } } = run;
    // With no counter series the family's conversion is its gauges and findings alone: neither reads the clock.
    const early = cycle.convert(unit, {
      answers: { specs: [], plans, pieces, main, grid }, lastSettled: run.lastSettled, currentBucket: run.currentBucket,
    }, log);
    const specs = compactSpecs(unit.specs);
    const kept = compactPieces(unit.specs, pieces, plans, bucketMs(grid));
    const send: Send<CompactAnswer> = async (span, kind) => compactAnswer(unit.specs, await unit.send(span, kind));
    return new HeldTarget(targetName(unit.target), specs, { pieces: kept, main: undefined, requests, errors }, child, send, (clock) => {
      const expanded = expandPieces(specs, kept);
      const counted = countedResult({ ...expanded, plans, main: undefined, grid, ...(clock === undefined ? {} : { clock }) }, options.timestamps);
      return withEarly(counted, early);
    });
  })));
  const grid: Grid = { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes };
  return closeCycle(ctx, { collector: cycle.collector, gaugeFamilies: cycle.gaugeFamilies, grid, book: cycle.book, delayMs: options.delayMs, autoDelay: options.autoDelay }, fetched);
}

/** The options of this cycle: `delayMs` is the delay in force (under `delay: auto`, what the audit last put in force). */
export function inForce<O extends SeriesOptions>(options: O, book: AuditBook): O {
  return options.autoDelay === undefined ? options : { ...options, delayMs: book.delayInForce(options.delayMs, options.autoDelay) };
}

/**
 * A target whose answers are in, held until the cycle's clock is known. A
 * class: an object literal with a getter is kept in dictionary mode, ~430
 * bytes more per target for the whole cycle.
 */
class HeldTarget implements FetchedUnit<CompactAnswer> {
  private keptLog: CollectorLogger | undefined;

  constructor(
    readonly target: string | undefined,
    readonly specs: readonly CounterSpec<CompactAnswer>[],
    readonly fetched: Fetched<CompactAnswer>,
    private readonly child: () => CollectorLogger,
    readonly send: Send<CompactAnswer>,
    private readonly count: (clock: UpstreamClock | undefined) => TargetResult,
  ) {}

  /** A child logger per target is a few hundred bytes held for the whole cycle; made again only when a record needs it. */
  get log(): CollectorLogger {
    return (this.keptLog ??= this.child());
  }

  convert(clock: UpstreamClock | undefined): TargetResult {
    return this.count(clock);
  }
}

/** The count of a target, then what its family's conversion added without counter series, in the order a single conversion gives. */
function withEarly(counted: TargetResult, early: TargetResult): TargetResult {
  return {
    ...counted,
    increments: [...counted.increments, ...early.increments],
    watermarks: { ...counted.watermarks, ...early.watermarks },
    gauges: [...counted.gauges, ...early.gauges],
    mismatches: [...(counted.mismatches ?? []), ...(early.mismatches ?? [])],
    rejected: [...(counted.rejected ?? []), ...(early.rejected ?? [])],
  };
}

/** A target's name for the freshness self-metric: its domain or package; undefined for an account-wide target. */
function targetName(target: Labels): string | undefined {
  const values = Object.values(target);
  return values.length > 0 ? values.join(',') : undefined;
}

/** A target whose requests are done; its conversion waits for the cycle's upstream clock. */
export interface FetchedUnit<R> {
  /** Its domain or package, for the per-target freshness; absent for an account-wide target (waf-trend's series). */
  readonly target?: string | undefined;
  readonly specs: readonly CounterSpec<R>[];
  /** Asks again for the audit. */
  readonly send: Send<R>;
  readonly log: CollectorLogger;
  readonly fetched: Fetched<R>;
  convert(clock: UpstreamClock | undefined): TargetResult;
}

interface CloseInput {
  readonly collector: string;
  readonly gaugeFamilies: readonly string[];
  readonly grid: Grid;
  readonly book: AuditBook;
  /** The delay in force this cycle. */
  readonly delayMs: number;
  /** Under `delay: auto`: the audit's suggestion is put in force for the next cycle, within these bounds. */
  readonly autoDelay: AutoDelay | undefined;
}

/**
 * From every target's answers to the cycle's output: each target counted and
 * added to the output in turn (its result then dropped: all of a cycle's
 * results at once were a third of the live heap at 100k series), audited,
 * and the counted buckets recorded for later audits.
 */
export async function closeCycle<R>(
  ctx: CollectContext,
  cycle: CloseInput,
  units: readonly FetchedUnit<R>[],
): Promise<CollectOutput> {
  const clock = upstreamClock(units.map((u) => ({ specs: u.specs, pieces: u.fetched.pieces })), cycle.grid, ctx.now);
  const sum = new CycleSum({ collector: cycle.collector, previous: ctx.watermarks, gaugeFamilies: cycle.gaugeFamilies });
  const counted: Array<ReadonlyMap<string, CountedRange>> = [];
  for (const unit of units) {
    const result = unit.convert(clock);
    // Debug only: the data-lag self-metric makes a lasting gap visible.
    if (result.uncovered && result.uncovered.length > 0) unit.log.debug({ series: result.uncovered }, 'no answer covered these series; they wait for the next cycle');
    sum.add(result, unit.fetched, unit.target);
    if (result.counted !== undefined && result.counted.size > 0) counted.push(result.counted);
  }
  const summed = sum.output();
  // One clock per cycle, read over every target's answers: counted once a cycle, not once per target.
  const field = units.find((u) => u.specs.length > 0)?.specs[0]?.metric ?? 'objectArrayListMap';
  // After the output: a cycle that failed (every request, or EDGE_NO_DATA) reports that, and its look-back would be a wasted request.
  const lag = clock === undefined ? await lookBack(ctx, cycle, units, field) : lagFinding(clock, bucketMs(cycle.grid), cycle.delayMs, field);
  const mismatches = lag === undefined ? summed.mismatches : [...(summed.mismatches ?? []), lag];
  const output: CollectOutput = { ...summed, ...(mismatches === undefined ? {} : { mismatches }), counted, bucketMs: bucketMs(cycle.grid) };
  const withAudit = await audited(cycle.book, units, cycle.grid, ctx.now, output, cycle.delayMs);
  if (withAudit.audit !== undefined) {
    noteSuggestion(ctx, cycle, withAudit.audit.suggestedDelayMs);
    const next = cycle.book.adopt(withAudit.audit.suggestedDelayMs, cycle.delayMs, cycle.autoDelay);
    if (next !== undefined) ctx.log.info({ collector: cycle.collector, delay: seconds(next), was: seconds(cycle.delayMs) }, `delay: auto puts ${seconds(next)} in force from the next cycle`);
  }
  for (const c of counted) cycle.book.record(c, ctx.now, cycle.grid);
  return withAudit;
}

/**
 * No answer held a point, so no clock could be read: at most once an hour,
 * one target's series asked over the day before (lookback.ts), and the
 * clock_offset its newest point shows. Judged only, never counted.
 */
async function lookBack<R>(ctx: CollectContext, cycle: CloseInput, units: readonly FetchedUnit<R>[], field: string): Promise<Mismatch | undefined> {
  const unit = units.find((u) => u.specs.length > 0 && u.fetched.pieces.some((p) => p.response !== undefined));
  if (unit === undefined || !lookBackDue({ answered: true, lastMs: cycle.book.lastLookBack(), now: ctx.now })) return undefined;
  cycle.book.lookedBack(ctx.now);
  const { range, span } = lookBackRange(ctx.now, cycle.grid);
  try {
    const response = await unit.send(span, 'backfill');
    const clock = upstreamClock([{ specs: unit.specs, pieces: [{ range, span, response }] }], cycle.grid, ctx.now);
    return clock === undefined ? undefined : lagFinding(clock, bucketMs(cycle.grid), cycle.delayMs, field);
  } catch (err) {
    unit.log.debug({ err: asError(err) }, 'clock look-back request failed; asked again in an hour');
    return undefined;
  }
}

/** The output with the audit's corrections, late revisions and tally: one request per target for the buckets its series counted within lookback. */
async function audited<R>(book: AuditBook, units: readonly FetchedUnit<R>[], grid: Grid, now: number, output: CollectOutput, delayMs: number): Promise<CollectOutput> {
  if (!book.due(now)) return output;
  const pool = pLimit(TARGETS_IN_FLIGHT);
  const results = await Promise.all(units.map((unit) => pool(async () => {
    const range = book.range(unit.specs.map((s) => s.key));
    if (range === undefined) return undefined;
    const span = spanOf(range, grid);
    try {
      return book.compare(unit.specs, await unit.send(span, 'backfill'), span, grid, now);
    } catch (err) {
      unit.log.debug({ err: asError(err) }, 'audit request failed; these buckets are compared next time');
      return undefined;
    }
  })));
  const done = results.filter((r) => r !== undefined);
  return {
    ...output,
    increments: [...output.increments, ...done.flatMap((r) => r.corrections)],
    mismatches: [...(output.mismatches ?? []), ...done.flatMap((r) => r.revisions)],
    audit: { match: done.reduce((n, r) => n + r.match, 0), revised: done.reduce((n, r) => n + r.revised, 0), suggestedDelayMs: book.suggestion(now, delayMs) },
  };
}

/** Logs the suggested delay where it differs from the one in force: once a day, or when it moved by more than a bucket. */
function noteSuggestion(ctx: CollectContext, cycle: CloseInput, suggestedMs: number): void {
  if (!cycle.book.logSuggestion(ctx.now, suggestedMs, cycle.delayMs, bucketMs(cycle.grid))) return;
  ctx.log.warn(
    { collector: cycle.collector, delay: seconds(cycle.delayMs), suggested_delay: seconds(suggestedMs) },
    `the audit saw buckets revised later than delay over the last day; a delay of ${seconds(suggestedMs)} would have caught every revision (edge_exporter_suggested_delay_seconds)`,
  );
}

export interface CycleInput {
  readonly collector: string;
  /** Watermarks persisted so far; series not touched this cycle keep theirs. */
  readonly previous: Readonly<Record<string, number>>;
  readonly results: readonly TargetResult[];
  readonly tallies: readonly Tally[];
  /** Enabled gauge families this cycle produced (each replaces its previous series, even when empty). */
  readonly gaugeFamilies: readonly string[];
}

/** Every answer of a cycle covered nothing it was asked for. */
export class NoDataError extends Error {
  readonly code = 'EDGE_NO_DATA';
}

export function assemble(input: CycleInput): CollectOutput {
  const sum = new CycleSum(input);
  input.results.forEach((r, i) => sum.add(r, input.tallies[i]));
  for (const tally of input.tallies.slice(input.results.length)) sum.add(undefined, tally);
  return sum.output();
}

/** A cycle's output, added up one target at a time: its result, its requests, or both. */
class CycleSum {
  private readonly gauges: Map<string, Sample[]>;
  private readonly increments: Sample[] = [];
  private readonly watermarks: Record<string, number>;
  private readonly errors: Error[] = [];
  private readonly mismatches: Mismatch[] = [];
  private readonly rejected: RejectedPoints[] = [];
  private requests = 0;
  private newest: number | undefined;
  /** Per target: one entry per domain or package, not per series. */
  private readonly targetNewest = new Map<string, number>();
  private anyUncovered = false;
  private anyMoved = false;

  constructor(private readonly input: Omit<CycleInput, 'results' | 'tallies'>) {
    this.gauges = new Map(input.gaugeFamilies.map((f) => [f, []]));
    this.watermarks = { ...input.previous };
  }

  add(r: TargetResult | undefined, tally: Tally | undefined, target?: string): void {
    if (tally !== undefined) {
      this.errors.push(...tally.errors);
      this.requests += tally.requests;
    }
    if (r === undefined) return;
    if ((r.uncovered?.length ?? 0) > 0) this.anyUncovered = true;
    if (Object.keys(r.watermarks).length > 0 || r.gauges.length > 0) this.anyMoved = true;
    this.rejected.push(...(r.rejected ?? []));
    this.mismatches.push(...firstPerCheck(r.mismatches ?? []));
    this.increments.push(...r.increments);
    Object.assign(this.watermarks, r.watermarks);
    for (const g of r.gauges) this.gauges.get(g.name)?.push(g);
    if (r.newestBucketEndMs === undefined) return;
    this.newest = Math.max(this.newest ?? r.newestBucketEndMs, r.newestBucketEndMs);
    if (target !== undefined) this.targetNewest.set(target, Math.max(this.targetNewest.get(target) ?? r.newestBucketEndMs, r.newestBucketEndMs));
  }

  output(): CollectOutput {
    const { errors, requests } = this;
    if (requests > 0 && errors.length === requests) {
      throw errors.length === 1 && errors[0] ? errors[0] : new AggregateError(errors, `${this.input.collector}: every request failed`);
    }
    if (this.anyUncovered && !this.anyMoved) {
      throw errors[0] ?? new NoDataError(`${this.input.collector}: no answer carried data for the buckets to count (data: null or missing items); asked again next cycle`);
    }
    return {
      gauges: this.gauges, increments: this.increments, watermarks: this.watermarks, errors, mismatches: this.mismatches,
      ...(this.rejected.length > 0 ? { rejected: this.rejected } : {}),
      ...(this.newest === undefined ? {} : { newestBucketEndMs: this.newest }),
      ...(this.targetNewest.size === 0 ? {} : { targetNewestBucketEndMs: this.targetNewest }),
    };
  }
}
