// The usage collector: inbound and outbound traffic per layer-7 package as
// counters, their bandwidth and peak as gauges, from one describeL7UsageData
// request per package and cycle. Packages are getPackages `value`s.
import type { Collector, CollectContext, CollectOutput } from '../types.js';
import {
  assemble, checkSeriesOptions, logUncovered, nonNegative, runTrendTarget, type SeriesOptions, type TargetResult, type Tally,
} from '../series/index.js';
import { convertUsage, usageCounters } from './convert.js';
import { usageSender } from './fetch.js';
import { PACKAGE_BANDWIDTH_PEAK, USAGE_FAMILIES } from './metrics.js';

export * from './metrics.js';

export interface UsageOptions extends SeriesOptions {
  /** Window of the peak gauges, ending now (rounded down to a bucket boundary). */
  readonly summaryWindowMs: number;
}

export function createUsageCollector(options: UsageOptions): Collector {
  checkSeriesOptions('usage', options);
  nonNegative('usage', 'summaryWindowMs', options.summaryWindowMs);
  return {
    name: 'usage',
    targets: ['packages'],
    operations: ['describeL7UsageData'],
    families: USAGE_FAMILIES,
    collect: (ctx) => collect(ctx, options),
  };
}

async function collect(ctx: CollectContext, options: UsageOptions): Promise<CollectOutput> {
  const log = ctx.log.child({ collector: 'usage' });
  const gaugeFamilies = USAGE_FAMILIES.filter((f) => f.type === 'gauge' && ctx.enabled(f.name)).map((f) => f.name);
  const windowed = gaugeFamilies.includes(PACKAGE_BANDWIDTH_PEAK.name);
  const outcomes = await Promise.all(ctx.targets.packages.map(async (pkg): Promise<[TargetResult, Tally] | undefined> => {
    const specs = usageCounters(pkg).filter((s) => ctx.enabled(s.family));
    if (specs.length === 0 && gaugeFamilies.length === 0) return undefined;
    const send = usageSender({ client: ctx.client, tz: ctx.tz, signal: ctx.signal, interval: options.interval, pkg, gaugeFamilies }, specs);
    const dlog = log.child({ package: pkg });
    const run = await runTrendTarget({
      ctx, options, log: dlog, target: { package: pkg }, specs, send,
      gauges: gaugeFamilies.length > 0, gaugeWindowMs: windowed ? options.summaryWindowMs : undefined,
    });
    const result = convertUsage({
      specs, plans: run.plans, pieces: run.fetched.pieces, main: run.fetched.main, grid: run.grid,
      gauges: { pkg, lastSettled: run.lastSettled, windowBucket: run.currentBucket, timestamps: options.timestamps, families: gaugeFamilies },
    });
    logUncovered(dlog, result);
    return [result, run.fetched];
  }));
  const done = outcomes.filter((o) => o !== undefined);
  return assemble({ collector: 'usage', previous: ctx.watermarks, gaugeFamilies, results: done.map(([r]) => r), tallies: done.map(([, t]) => t) });
}
