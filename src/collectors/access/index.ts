// The access collector: per-domain traffic, requests and status classes as
// counters, bandwidth, its peak and 95th percentile and the average request
// time as gauges, from one describeL7DataV2 request per domain and cycle
// (describeL7Data with `api: v1`: one per terminal).
import type { DescribeL7DataV2Response } from '../../api/index.js';
import type { BandwidthUnit, RequestTimeUnit } from '../units.js';
import type { Collector, CollectContext, CollectOutput, MetricDef } from '../types.js';
import {
  assemble, audited, AuditBook, checkSeriesOptions, upstreamClock, NO_AUDIT, logUncovered, nonNegative, runTrendTarget, type CounterSpec, type SeriesOptions, type TargetResult,
  type Tally, type TimeSpan, type TrendTargetRun,
} from '../series/index.js';
import { accessCounters, convertAccessV2, type ConvertInput } from './convert.js';
import { accessV1Counters, convertAccessV1, type V1Pair } from './convert-v1.js';
import { v1Sender, v2Sender, type SendContext } from './fetch.js';
import { ACCESS_V1_FAMILIES, ACCESS_V2_FAMILIES, DOMAIN_BANDWIDTH_P95, DOMAIN_BANDWIDTH_PEAK } from './metrics.js';

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
  sender(s: SendContext, specs: readonly CounterSpec<R>[]): (span: TimeSpan, kind: 'main' | 'backfill') => Promise<R>;
  convert(input: ConvertInput<R>): TargetResult;
}

const V2_VARIANT: Variant<DescribeL7DataV2Response> = {
  families: ACCESS_V2_FAMILIES, counters: accessCounters, sender: v2Sender, convert: convertAccessV2,
};
const V1_VARIANT: Variant<V1Pair> = {
  families: ACCESS_V1_FAMILIES, counters: accessV1Counters, sender: v1Sender, convert: convertAccessV1,
};

export function createAccessCollector(options: AccessOptions): Collector {
  checkSeriesOptions('access', options);
  nonNegative('access', 'summaryWindowMs', options.summaryWindowMs);
  if (options.api !== 'v2' && options.api !== 'v1') throw new RangeError(`access: api must be v2 or v1, got ${String(options.api)}`);
  const book = new AuditBook(options.audit ?? NO_AUDIT);
  return {
    name: 'access',
    targets: ['domains'],
    operations: [options.api === 'v2' ? 'describeL7DataV2' : 'describeL7Data'],
    families: options.api === 'v2' ? ACCESS_V2_FAMILIES : ACCESS_V1_FAMILIES,
    // Spelled out per variant so each call keeps its response type.
    collect: (ctx) => (options.api === 'v2' ? collect(ctx, options, V2_VARIANT, book) : collect(ctx, options, V1_VARIANT, book)),
  };
}

async function collect<R>(ctx: CollectContext, options: AccessOptions, variant: Variant<R>, book: AuditBook): Promise<CollectOutput> {
  const log = ctx.log.child({ collector: 'access' });
  const gaugeFamilies = variant.families.filter((f) => f.type === 'gauge' && ctx.enabled(f.name)).map((f) => f.name);
  const windowed = gaugeFamilies.some((f) => f === DOMAIN_BANDWIDTH_PEAK.name || f === DOMAIN_BANDWIDTH_P95.name);
  const runs = await Promise.all(ctx.targets.domains.map(async (domain) => {
    const specs = variant.counters(domain).filter((s) => ctx.enabled(s.family));
    if (specs.length === 0 && gaugeFamilies.length === 0) return undefined;
    const send = variant.sender({ client: ctx.client, tz: ctx.tz, signal: ctx.signal, interval: options.interval, domain, gaugeFamilies }, specs);
    const dlog = log.child({ domain });
    const run: TrendTargetRun<R> = await runTrendTarget({
      ctx, options, log: dlog, target: { domain }, specs, send,
      gauges: gaugeFamilies.length > 0, gaugeWindowMs: windowed ? options.summaryWindowMs : undefined,
    });
    return { domain, specs, run, dlog, send };
  }));
  const done = runs.filter((r) => r !== undefined);
  // Converted once every answer is in: another domain's points say how far the upstream's clock has got.
  const clock = upstreamClock(done.map(({ specs, run }) => ({ specs, pieces: run.fetched.pieces })), { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes }, ctx.now);
  const outcomes = done.map(({ domain, specs, run, dlog }): [TargetResult, Tally] => {
    const result = variant.convert({
      specs, plans: run.plans, pieces: run.fetched.pieces, main: run.fetched.main, grid: run.grid, ...(clock === undefined ? {} : { clock }),
      gauges: {
        domain, lastSettled: run.lastSettled, windowBucket: run.currentBucket, timestamps: options.timestamps, families: gaugeFamilies,
        ...(options.bandwidthUnit === undefined ? {} : { bandwidthUnit: options.bandwidthUnit }),
        ...(options.requestTimeUnit === undefined ? {} : { requestTimeUnit: options.requestTimeUnit }),
      },
    });
    logUncovered(dlog, result);
    return [result, run.fetched];
  });
  const output = assemble({
    collector: 'access', previous: ctx.watermarks, gaugeFamilies,
    results: outcomes.map(([r]) => r), tallies: outcomes.map(([, t]) => t),
  });
  const grid = { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes };
  const withAudit = await audited(book, done.map(({ specs, send, dlog }) => ({ specs, send, log: dlog })), grid, ctx.now, output);
  for (const [result] of outcomes) book.record(result.counted, ctx.now, grid);
  return withAudit;
}
