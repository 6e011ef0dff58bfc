// The usage collector: inbound and outbound traffic per layer-7 package as
// counters, their bandwidth and peak as gauges, from one describeL7UsageData
// request per package and cycle. Packages are getPackages `value`s.
import type { Collector, CollectContext, CollectOutput } from '../types.js';
import type { BandwidthUnit } from '../units.js';
import {
  assemble, audited, AuditBook, checkSeriesOptions, upstreamClock, logUncovered, NO_AUDIT, nonNegative, runTrendTarget, type SeriesOptions, type TargetResult, type Tally,
} from '../series/index.js';
import { convertUsage, usageCounters } from './convert.js';
import { usageSender } from './fetch.js';
import { PACKAGE_BANDWIDTH_PEAK, USAGE_FAMILIES } from './metrics.js';

export * from './metrics.js';

export interface UsageOptions extends SeriesOptions {
  /** Window of the peak gauges, ending now (rounded down to a bucket boundary). */
  readonly summaryWindowMs: number;
  /** What the upstream's bandwidth values are in (upstream.units.bandwidth; default bits_per_second). */
  readonly bandwidthUnit?: BandwidthUnit;
}

export function createUsageCollector(options: UsageOptions): Collector {
  checkSeriesOptions('usage', options);
  nonNegative('usage', 'summaryWindowMs', options.summaryWindowMs);
  const book = new AuditBook(options.audit ?? NO_AUDIT);
  return {
    name: 'usage',
    targets: ['packages'],
    operations: ['describeL7UsageData'],
    families: USAGE_FAMILIES,
    collect: (ctx) => collect(ctx, options, book),
  };
}

async function collect(ctx: CollectContext, options: UsageOptions, book: AuditBook): Promise<CollectOutput> {
  const log = ctx.log.child({ collector: 'usage' });
  const gaugeFamilies = USAGE_FAMILIES.filter((f) => f.type === 'gauge' && ctx.enabled(f.name)).map((f) => f.name);
  const windowed = gaugeFamilies.includes(PACKAGE_BANDWIDTH_PEAK.name);
  const runs = await Promise.all(ctx.targets.packages.map(async (pkg) => {
    const specs = usageCounters(pkg).filter((s) => ctx.enabled(s.family));
    if (specs.length === 0 && gaugeFamilies.length === 0) return undefined;
    const send = usageSender({ client: ctx.client, tz: ctx.tz, signal: ctx.signal, interval: options.interval, pkg, gaugeFamilies }, specs);
    const dlog = log.child({ package: pkg });
    const run = await runTrendTarget({
      ctx, options, log: dlog, target: { package: pkg }, specs, send,
      gauges: gaugeFamilies.length > 0, gaugeWindowMs: windowed ? options.summaryWindowMs : undefined,
    });
    return { pkg, specs, run, dlog, send };
  }));
  const done = runs.filter((r) => r !== undefined);
  // Converted once every answer is in: another package's points say how far the upstream's clock has got.
  const clock = upstreamClock(done.map(({ specs, run }) => ({ specs, pieces: run.fetched.pieces })), { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes }, ctx.now);
  const outcomes = done.map(({ pkg, specs, run, dlog }): [TargetResult, Tally] => {
    const result = convertUsage({
      specs, plans: run.plans, pieces: run.fetched.pieces, main: run.fetched.main, grid: run.grid, ...(clock === undefined ? {} : { clock }),
      gauges: {
        pkg, lastSettled: run.lastSettled, windowBucket: run.currentBucket, timestamps: options.timestamps, families: gaugeFamilies,
        ...(options.bandwidthUnit === undefined ? {} : { bandwidthUnit: options.bandwidthUnit }),
      },
    });
    logUncovered(dlog, result);
    return [result, run.fetched];
  });
  const output = assemble({ collector: 'usage', previous: ctx.watermarks, gaugeFamilies, results: outcomes.map(([r]) => r), tallies: outcomes.map(([, t]) => t) });
  const grid = { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes };
  const withAudit = await audited(book, done.map(({ specs, send, dlog }) => ({ specs, send, log: dlog })), grid, ctx.now, output);
  for (const [result] of outcomes) book.record(result.counted, ctx.now, grid);
  return withAudit;
}
