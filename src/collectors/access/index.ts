// The access collector: per-domain traffic, requests and status classes as
// counters, bandwidth, its peak and 95th percentile and the average request
// time as gauges, from one describeL7DataV2 request per domain and cycle
// (describeL7Data with `api: v1`: one per terminal).
import type { DescribeL7DataV2Answer } from '../../api/index.js';
import type { BandwidthUnit, RequestTimeUnit } from '../units.js';
import type { Collector, CollectContext, CollectOutput, MetricDef } from '../collector.js';
import { driveSeries, seriesCollector, type Converted, type CounterSpec, type Send, type SeriesOptions, type SeriesState } from '../series/index.js';
import { accessCounters, convertAccessV2, type ConvertInput } from './convert.js';
import { accessV1Counters, convertAccessV1, type V1Pair } from './convert-v1.js';
import { V1_TERMINALS, v1Sender, v2Sender, type SendContext } from './fetch.js';
import { ACCESS_V1_FAMILIES, ACCESS_V2_FAMILIES, DOMAIN_BANDWIDTH_P95, DOMAIN_BANDWIDTH_PEAK } from './metrics.js';
import { ArgumentError } from '../../shared/errors.js';

export * from './metrics.js';

export interface AccessOptions extends SeriesOptions {
  /** v2: describeL7DataV2 (every family); v1: describeL7Data (traffic, requests, bandwidth and its peak). */
  readonly api: 'v2' | 'v1';
  /** Window of the peak and 95th-percentile gauges, ending now (rounded down to a bucket boundary). */
  readonly summaryWindowMs: number;
  /** What the upstream's bandwidth values are in (upstream.units.bandwidth; default bits_per_second). */
  readonly bandwidthUnit?: BandwidthUnit;
  /** What the upstream's average request time is in (upstream.units.request_time; default milliseconds). */
  readonly requestTimeUnit?: RequestTimeUnit;
}

/** What differs between the two operations; the cycle around them is the same. */
interface Variant<R> {
  readonly families: readonly MetricDef[];
  counters(domain: string): CounterSpec<R>[];
  sender(s: SendContext, specs: readonly CounterSpec<R>[]): Send<R>;
  convert(input: ConvertInput<R>): Converted;
}

const V2_VARIANT: Variant<DescribeL7DataV2Answer> = {
  families: ACCESS_V2_FAMILIES, counters: accessCounters, sender: v2Sender, convert: convertAccessV2,
};
const V1_VARIANT: Variant<V1Pair> = {
  families: ACCESS_V1_FAMILIES, counters: accessV1Counters, sender: v1Sender, convert: convertAccessV1,
};

export function createAccessCollector(options: AccessOptions): Collector {
  const collector = seriesCollector({
    name: 'access',
    targets: ['domains'],
    operations: [options.api === 'v2' ? 'describeL7DataV2' : 'describeL7Data'],
    families: options.api === 'v2' ? ACCESS_V2_FAMILIES : ACCESS_V1_FAMILIES,
  }, options,
  // Spelled out per variant so each call keeps its answer type.
  (ctx, state) => (options.api === 'v2' ? collect(ctx, options, V2_VARIANT, state) : collect(ctx, options, V1_VARIANT, state)),
  // One request per domain; v1 asks the cdn and source terminals apart (v1Sender), with every family enabled.
  ({ domains }) => ({ requests: domains * (options.api === 'v2' ? 1 : V1_TERMINALS), counted: domains * (options.api === 'v2' ? 1 : V1_TERMINALS) }));
  if (options.api !== 'v2' && options.api !== 'v1') throw new ArgumentError(`access: api must be v2 or v1, got ${String(options.api)}`);
  return collector;
}

function collect<R>(ctx: CollectContext, options: AccessOptions, variant: Variant<R>, state: SeriesState): Promise<CollectOutput> {
  const gaugeFamilies = variant.families.filter((f) => f.type === 'gauge' && ctx.enabled(f.name)).map((f) => f.name);
  const windowed = gaugeFamilies.some((f) => f === DOMAIN_BANDWIDTH_PEAK.name || f === DOMAIN_BANDWIDTH_P95.name);
  const targets = ctx.targets.domains.flatMap((domain) => {
    const specs = variant.counters(domain).filter((s) => ctx.enabled(s.family));
    if (specs.length === 0 && gaugeFamilies.length === 0) return [];
    const send = variant.sender({ client: ctx.client, tz: ctx.tz, signal: ctx.signal, interval: options.interval, domain, gaugeFamilies }, specs);
    return [{ domain, labels: { domain }, specs, send, gauges: gaugeFamilies.length > 0, gaugeWindowMs: windowed ? options.summaryWindowMs : undefined }];
  });
  return driveSeries<R, (typeof targets)[number]>(ctx, options, state, {
    collector: 'access', log: ctx.log, gaugeFamilies, targets,
    convert: ({ domain }, answers, { lastSettled, currentBucket }) => variant.convert({
      ...answers,
      gauges: {
        domain, lastSettled, windowBucket: currentBucket, timestamps: options.timestamps, families: gaugeFamilies,
        ...(options.bandwidthUnit === undefined ? {} : { bandwidthUnit: options.bandwidthUnit }),
        ...(options.requestTimeUnit === undefined ? {} : { requestTimeUnit: options.requestTimeUnit }),
      },
    }),
  });
}
