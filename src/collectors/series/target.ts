// One target's cycle up to the conversion: plan its series from the
// watermarks, choose the request window, and run the requests. Shared by the
// collectors whose targets answer counters and gauges in one request
// (access per domain, usage per package, cc-attack).
import { alignDown, lastSettledStart, type Plan } from '../buckets.js';
import type { CollectContext, CollectorLogger } from '../types.js';
import type { CounterSpec } from './count.js';
import { fetchWindow, type Fetched } from './fetch.js';
import type { Labels } from './keys.js';
import type { Grid, SeriesOptions } from './options.js';
import { planSeries, requestWindow, type RequestWindow, type TimeSpan } from './window.js';

export interface TrendTargetInput<R> {
  readonly ctx: CollectContext;
  readonly options: SeriesOptions;
  /** Bound to the collector and the target. */
  readonly log: CollectorLogger;
  /** The target's labels, for log records. */
  readonly target: Labels;
  /** Enabled counter series only. */
  readonly specs: readonly CounterSpec<R>[];
  /** True when an enabled gauge is read from the main request. */
  readonly gauges: boolean;
  /** The fixed window of the enabled window gauges (peak, p95); undefined when none is enabled. */
  readonly gaugeWindowMs: number | undefined;
  send(span: TimeSpan, kind: 'main' | 'backfill'): Promise<R>;
}

export interface TrendTargetRun<R> {
  readonly plans: ReadonlyMap<string, Plan>;
  readonly window: RequestWindow;
  readonly fetched: Fetched<R>;
  readonly grid: Grid;
  /** Start of the newest settled bucket. */
  readonly lastSettled: number;
  /** Start of the bucket containing now: the newest bucket of every window. */
  readonly currentBucket: number;
}

export async function runTrendTarget<R>(input: TrendTargetInput<R>): Promise<TrendTargetRun<R>> {
  const { ctx, options } = input;
  const grid: Grid = { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes };
  const plans = planSeries(input.specs.map((s) => s.key), { now: ctx.now, watermarks: ctx.watermarks, tz: ctx.tz, log: input.log }, options, input.target);
  const window = requestWindow({
    plans: plans.values(), now: ctx.now, grid, delayMs: options.delayMs, gaugeWindowMs: input.gaugeWindowMs,
    ...(options.maxBucketsPerRequest === undefined ? {} : { maxBuckets: options.maxBucketsPerRequest }),
  });
  // Without gauges and with nothing to count (first sight or nothing settled) no request is needed.
  const needMain = input.gauges || [...plans.values()].some((p) => p.kind === 'count');
  const fetched = await fetchWindow({ window, needMain, grid, tz: ctx.tz, log: input.log, send: (span, kind) => input.send(span, kind) });
  for (const error of fetched.errors) input.log.debug({ err: error }, 'request failed; its series wait for the next cycle');
  return {
    plans, window, fetched, grid,
    lastSettled: lastSettledStart(ctx.now, grid.interval, options.delayMs, grid.offsetMinutes),
    currentBucket: alignDown(grid.interval, ctx.now, grid.offsetMinutes),
  };
}
