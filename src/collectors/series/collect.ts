// The series driver: the one way from a bucketed family's answers to
// increments (access, usage, cc-attack, waf-trend). A family supplies its
// targets (labels, counter series, a `send` of one span, whether gauges are
// read), a pure conversion of one target's answers to gauges and findings,
// and its metric table (seriesCollector's shape); the driver alone plans and fetches each target
// (fetch.ts), counts it (count.ts), adds it to the cycle's output (sum.ts)
// and closes the cycle (close.ts: clock_offset, look-back, audit).
//
// Each target is counted as its answers arrive, and then dropped: a count
// needs the upstream's clock (answer.ts), and that is fixed before the
// fan-out: one target is asked alone first (the probe), and its reading or
// the previous cycle's, whichever is less behind, is the cycle's (nearer()
// below). The reading over every answer still makes the cycle's
// clock_offset finding and the next cycle's fallback. Holding every target's
// answers until all had answered, to read the clock over all of them, was
// most of the daemon's memory at 100k series.
import pLimit from 'p-limit';
import type { CollectContext, CollectorLogger, CollectOutput } from '../collector.js';
import { ClockReading, type Piece, type SeriesTarget, type UpstreamClock } from './answer.js';
import { closeCycle, type Reasked } from './close.js';
import { targetResult, type Converted, type TargetAnswers, type TargetResult } from './count.js';
import { fetchTarget, type Ranges, type Tally } from './fetch.js';
import type { SeriesState } from './collector.js';
import type { Grid, SeriesOptions } from './options.js';
import { CycleSum } from './sum.js';

/** Where a target's buckets stand this cycle, for its gauges. */
interface BucketsNow {
  /** Start of the newest settled bucket: the latest-bucket gauges show it. */
  readonly lastSettled: number;
  /** Start of the bucket containing now: window gauges are stamped with it. */
  readonly currentBucket: number;
}

/** A family's cycle; `T` carries what its conversion needs of a target (its domain, its package). */
interface SeriesCycle<R, T extends SeriesTarget<R>> {
  readonly collector: string;
  /** Bound to the collector (the context's): each target's child adds its labels. */
  readonly log: CollectorLogger;
  /** Enabled gauge families this cycle produces (each replaces its previous series, even when empty). */
  readonly gaugeFamilies: readonly string[];
  readonly targets: readonly T[];
  /** The family's pure conversion of one target's answers: gauges and findings, never a count. */
  convert(target: T, answers: TargetAnswers<R>, now: BucketsNow, log: CollectorLogger): Converted;
  /** Each entry is one series of the account's (waf-trend asks for each apart): no per-target freshness. */
  readonly accountWide?: boolean;
  /** A family without a main request (waf-trend): the ranges asking for a series' buckets due (fetch.ts). */
  readonly ranges?: Ranges;
  /** Told of every target's answers as they arrive, the probe's first and alone (waf-trend reads the upstream's grain). */
  answered?(pieces: readonly Piece<R>[]): void;
  /** Logged at warn instead of debug when a target none of whose requests failed covered no bucket due. */
  readonly uncoveredWarning?: string;
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

/** A target counted: its result, its requests, and whether it got an answer. */
interface Done {
  readonly result: TargetResult;
  readonly tally: Tally;
  readonly answered: boolean;
}

/**
 * One cycle of a family: the probe, then every other target (TARGETS_IN_FLIGHT
 * at a time), each counted as its answers arrive and added to the output in
 * target order, whatever the order of arrival.
 */
export async function driveSeries<R, T extends SeriesTarget<R>>(
  ctx: CollectContext, configured: SeriesOptions, state: SeriesState, cycle: SeriesCycle<R, T>,
): Promise<CollectOutput> {
  const options = configured.autoDelay === undefined ? configured : { ...configured, delayMs: state.audit.delayInForce(configured.delayMs, configured.autoDelay) };
  const grid: Grid = { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes };
  const reading = new ClockReading(grid, ctx.now);
  const sum = new CycleSum({ collector: cycle.collector, previous: ctx.watermarks, gaugeFamilies: cycle.gaugeFamilies });
  const counted: Array<NonNullable<TargetResult['counted']>> = [];
  let answered: Reasked<R> | undefined;
  const count = async (target: T, clock: () => UpstreamClock | undefined): Promise<Done> => {
    const log = Object.keys(target.labels).length > 0 ? cycle.log.child(target.labels) : cycle.log;
    const run = await fetchTarget({ ctx, options, log, ...target, ranges: cycle.ranges });
    const { pieces, main, requests, errors } = run.fetched;
    cycle.answered?.(pieces);
    reading.see(target.clockSpecs ?? target.specs, pieces);
    const answers: TargetAnswers<R> = { specs: target.specs, plans: run.plans, pieces, main, grid };
    const converted = cycle.convert(target, answers, { lastSettled: run.lastSettled, currentBucket: run.currentBucket }, log);
    const result = targetResult(answers, converted, options.timestamps, clock());
    if ((result.uncovered?.length ?? 0) > 0) {
      if (cycle.uncoveredWarning !== undefined && errors.length === 0) log.warn({}, cycle.uncoveredWarning);
      // Debug only: the data-lag self-metric makes a lasting gap visible.
      else log.debug({ series: result.uncovered }, 'no answer covered these series; they wait for the next cycle');
    }
    return { result, tally: { requests, errors }, answered: target.specs.length > 0 && pieces.some((p) => p.answer !== undefined) };
  };
  // Added in target order: a target done early waits here for those before it.
  const waiting = new Map<number, Done>();
  let next = 0;
  const add = (at: number, done: Done): void => {
    waiting.set(at, done);
    for (let d = waiting.get(next); d !== undefined; d = waiting.get(++next)) {
      waiting.delete(next);
      const target = cycle.targets[next];
      if (d.answered && answered === undefined) answered = target;
      sum.add(d.result, d.tally, cycle.accountWide === true || target === undefined ? undefined : targetName(target.labels));
      if (d.result.counted !== undefined && d.result.counted.size > 0) counted.push(d.result.counted);
    }
  };
  // The probe: the first target with counter series, asked alone; its answers and the last cycle's fix the clock every count reads.
  const probe = cycle.targets.findIndex((t) => t.specs.length > 0);
  let fixed: UpstreamClock | undefined = state.clock;
  const probed = probe < 0 ? undefined : cycle.targets[probe];
  if (probed !== undefined) add(probe, await count(probed, () => (fixed = nearer(reading.clock(), state.clock))));
  const pool = pLimit(TARGETS_IN_FLIGHT);
  await Promise.all(cycle.targets.map((target, i) => (i === probe ? undefined : pool(async () => add(i, await count(target, () => fixed))))));
  const clock = reading.clock();
  if (clock !== undefined) state.clock = clock;
  return closeCycle(ctx, {
    log: cycle.log, grid, audit: state.audit, delayMs: options.delayMs, autoDelay: options.autoDelay,
    targets: cycle.targets, answered, clock, counted, inFlight: TARGETS_IN_FLIGHT,
  }, sum.output());
}

/**
 * The less behind of two readings. One target's answers may show a clock
 * behind that the cycle's other answers contradict (a coarse or sparse
 * series: waf-trend's); the last cycle's reading, over every answer, says how
 * far the upstream had got a cycle ago. A clock that falls behind is still
 * seen: by this cycle's clock_offset finding, and by every count from the next.
 */
function nearer(probe: UpstreamClock | undefined, last: UpstreamClock | undefined): UpstreamClock | undefined {
  if (probe === undefined || last === undefined) return probe ?? last;
  return { newest: Math.max(probe.newest, last.newest), lagMs: Math.min(probe.lagMs, last.lagMs), behindMs: Math.min(probe.behindMs, last.behindMs) };
}

/** A target's name for the freshness self-metric: its domain or package; undefined for an account-wide target. */
function targetName(target: SeriesTarget<unknown>['labels']): string | undefined {
  const values = Object.values(target);
  return values.length > 0 ? values.join(',') : undefined;
}
