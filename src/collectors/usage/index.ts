// The usage collector: inbound and outbound traffic per layer-7 package as
// counters, their bandwidth and peak as gauges, from one describeL7UsageData
// request per package and cycle. Packages are getPackages `value`s.
import type { DescribeL7UsageDataAnswer } from '../../api/index.js';
import type { Collector, CollectContext, CollectOutput } from '../collector.js';
import type { BandwidthUnit } from '../units.js';
import { driveSeries, seriesCollector, type SeriesOptions, type SeriesState } from '../series/index.js';
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
  return seriesCollector(
    { name: 'usage', targets: ['packages'], operations: ['describeL7UsageData'], families: USAGE_FAMILIES },
    options, (ctx, state) => collect(ctx, options, state),
    // One request per package and cycle.
    ({ packages }) => ({ requests: packages, counted: packages }),
  );
}

function collect(ctx: CollectContext, options: UsageOptions, state: SeriesState): Promise<CollectOutput> {
  const gaugeFamilies = USAGE_FAMILIES.filter((f) => f.type === 'gauge' && ctx.enabled(f.name)).map((f) => f.name);
  const windowed = gaugeFamilies.includes(PACKAGE_BANDWIDTH_PEAK.name);
  const targets = ctx.targets.packages.flatMap((pkg) => {
    const specs = usageCounters(pkg).filter((s) => ctx.enabled(s.family));
    if (specs.length === 0 && gaugeFamilies.length === 0) return [];
    const send = usageSender({ client: ctx.client, tz: ctx.tz, signal: ctx.signal, interval: options.interval, pkg, gaugeFamilies }, specs);
    return [{ pkg, labels: { package: pkg }, specs, send, gauges: gaugeFamilies.length > 0, gaugeWindowMs: windowed ? options.summaryWindowMs : undefined }];
  });
  return driveSeries<DescribeL7UsageDataAnswer, (typeof targets)[number]>(ctx, options, state, {
    collector: 'usage', log: ctx.log, gaugeFamilies, targets,
    convert: ({ pkg }, answers, { lastSettled, currentBucket }) => convertUsage({
      ...answers,
      gauges: {
        pkg, lastSettled, windowBucket: currentBucket, timestamps: options.timestamps, families: gaugeFamilies,
        ...(options.bandwidthUnit === undefined ? {} : { bandwidthUnit: options.bandwidthUnit }),
      },
    }),
  });
}
