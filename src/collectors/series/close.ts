// The close of a series cycle, once every target is counted: the upstream's
// clock judged once for the cycle (clock_offset), a look-back when no answer
// showed it (lookback.ts), the audit when due (audit.ts), and the buckets
// counted recorded for later audits. A failed audit request costs nothing but
// that audit: the buckets are compared next time.
import pLimit from 'p-limit';
import { seconds, type Mismatch } from '../contract/checks.js';
import type { CollectContext, CollectorLogger, CollectOutput } from '../collector.js';
import { ClockReading, lagFinding, type SeriesTarget, type UpstreamClock } from './answer.js';
import type { AuditRecord } from './audit.js';
import { asError } from './fetch.js';
import { lookBackDue, lookBackRange } from './lookback.js';
import { bucketMs, type AutoDelay, type Grid } from './options.js';
import type { CountedRange } from './read-buckets.js';
import { spanOf } from './window.js';

/** A target as the close may ask it again. */
export type Reasked<R> = Pick<SeriesTarget<R>, 'labels' | 'specs' | 'send' | 'clockSpecs'>;

interface CloseInput<R> {
  /** Bound to the collector. */
  readonly log: CollectorLogger;
  readonly grid: Grid;
  readonly audit: AuditRecord;
  /** The delay in force this cycle. */
  readonly delayMs: number;
  /** Under `delay: auto`: the audit's suggestion is put in force for the next cycle, within these bounds. */
  readonly autoDelay: AutoDelay | undefined;
  readonly targets: readonly Reasked<R>[];
  /** The first target with counter series that got an answer: the look-back asks it. */
  readonly answered: Reasked<R> | undefined;
  /** The clock over every answer of the cycle. */
  readonly clock: UpstreamClock | undefined;
  /** Per target, the buckets its series counted. */
  readonly counted: ReadonlyArray<ReadonlyMap<string, CountedRange>>;
  /** Targets whose requests may be under way at once (collect.ts). */
  readonly inFlight: number;
}

/** The summed output with the cycle's clock finding and the audit's outcome. */
export async function closeCycle<R>(ctx: CollectContext, cycle: CloseInput<R>, summed: CollectOutput): Promise<CollectOutput> {
  // One clock per cycle, read over every target's answers: counted once a cycle, not once per target.
  const field = cycle.targets.find((t) => t.specs.length > 0)?.specs[0]?.metric ?? 'objectArrayListMap';
  // After the sum: a cycle that failed (every request, or EDGE_NO_DATA) has thrown, and its look-back would be a wasted request.
  const lag = cycle.clock === undefined ? await lookBack(ctx, cycle, field) : lagFinding(cycle.clock, bucketMs(cycle.grid), cycle.delayMs, field);
  const mismatches = lag === undefined ? summed.mismatches : [...(summed.mismatches ?? []), lag];
  const output: CollectOutput = { ...summed, ...(mismatches === undefined ? {} : { mismatches }), counted: cycle.counted, bucketMs: bucketMs(cycle.grid) };
  const withAudit = await audited(ctx.now, cycle, output);
  if (withAudit.audit !== undefined) {
    noteSuggestion(ctx, cycle, withAudit.audit.suggestedDelayMs);
    const next = cycle.audit.adopt(withAudit.audit.suggestedDelayMs, cycle.delayMs, cycle.autoDelay);
    if (next !== undefined) ctx.log.info({ delay: seconds(next), was: seconds(cycle.delayMs) }, `delay: auto puts ${seconds(next)} in force from the next cycle`);
  }
  for (const c of cycle.counted) cycle.audit.record(c, ctx.now, cycle.grid);
  return withAudit;
}

/**
 * No answer held a point, so no clock could be read: at most once an hour,
 * one target's series asked over the day before (lookback.ts), and the
 * clock_offset its newest point shows. Judged only, never counted.
 */
async function lookBack<R>(ctx: CollectContext, cycle: CloseInput<R>, field: string): Promise<Mismatch | undefined> {
  const target = cycle.answered;
  if (target === undefined || !lookBackDue({ answered: true, lastMs: cycle.audit.lastLookBack(), now: ctx.now })) return undefined;
  cycle.audit.lookedBack(ctx.now);
  const { range, span } = lookBackRange(ctx.now, cycle.grid);
  try {
    const reading = new ClockReading(cycle.grid, ctx.now);
    reading.see(target.clockSpecs ?? target.specs, [{ range, span, answer: await target.send(span, 'backfill') }]);
    const clock = reading.clock();
    return clock === undefined ? undefined : lagFinding(clock, bucketMs(cycle.grid), cycle.delayMs, field);
  } catch (err) {
    cycle.log.child(target.labels).debug({ err: asError(err) }, 'clock look-back request failed; asked again in an hour');
    return undefined;
  }
}

/** The output with the audit's corrections, late revisions and tally: one request per target for the buckets its series counted within lookback. */
async function audited<R>(now: number, cycle: CloseInput<R>, output: CollectOutput): Promise<CollectOutput> {
  const { audit, grid } = cycle;
  if (!audit.due(now)) return output;
  const pool = pLimit(cycle.inFlight);
  const results = await Promise.all(cycle.targets.map((target) => pool(async () => {
    const range = audit.range(target.specs.map((s) => s.key));
    if (range === undefined) return undefined;
    const span = spanOf(range, grid);
    try {
      return audit.compare(target.specs, await target.send(span, 'backfill'), span, grid, now);
    } catch (err) {
      cycle.log.child(target.labels).debug({ err: asError(err) }, 'audit request failed; these buckets are compared next time');
      return undefined;
    }
  })));
  const done = results.filter((r) => r !== undefined);
  return {
    ...output,
    increments: [...output.increments, ...done.flatMap((r) => r.corrections)],
    corrected: new Map(done.flatMap((r) => [...r.corrected])),
    mismatches: [...(output.mismatches ?? []), ...done.flatMap((r) => r.revisions)],
    audit: { match: done.reduce((n, r) => n + r.match, 0), revised: done.reduce((n, r) => n + r.revised, 0), suggestedDelayMs: audit.suggestion(now, cycle.delayMs) },
  };
}

/** Logs the suggested delay where it differs from the one in force: once a day, or when it moved by more than a bucket. */
function noteSuggestion<R>(ctx: CollectContext, cycle: CloseInput<R>, suggestedMs: number): void {
  if (!cycle.audit.logSuggestion(ctx.now, suggestedMs, cycle.delayMs, bucketMs(cycle.grid))) return;
  ctx.log.warn(
    { delay: seconds(cycle.delayMs), suggested_delay: seconds(suggestedMs) },
    `the audit saw buckets revised later than delay over the last day; a delay of ${seconds(suggestedMs)} would have caught every revision (edge_exporter_suggested_delay_seconds)`,
  );
}
