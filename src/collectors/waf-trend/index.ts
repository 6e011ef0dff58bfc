// The WAF trend collector: WAF log events by action and severity as
// counters, from describeLogV2's logTread. Each of the six series has its own
// watermark and request, made only when a bucket has settled since the last
// one counted. `delay` must cover the log ingest lag (the simulator's is up
// to 90 s): an event ingested after its bucket was counted is not counted.
import type { Collector, CollectContext, CollectOutput } from '../types.js';
import {
  assemble, bucketMs, checkSeriesOptions, chunkRange, fetchChunks, planSeries, type Grid, type Piece, type SeriesOptions,
  type TargetResult, type Tally,
} from '../series/index.js';
import { convertWaf, wafChunkBuckets, wafCombos, wafCounter, type WafAnswer } from './convert.js';
import { wafSender } from './fetch.js';
import { WAF_EVENTS, WAF_TREND_FAMILIES } from './metrics.js';

export * from './metrics.js';

/** Only the common options: the six series are fixed by the document. */
export type WafTrendOptions = SeriesOptions;

export function createWafTrendCollector(options: WafTrendOptions): Collector {
  checkSeriesOptions('waf-trend', options);
  return {
    name: 'waf-trend',
    targets: ['domains'],
    operations: ['describeLogV2'],
    families: WAF_TREND_FAMILIES,
    collect: (ctx) => collect(ctx, options),
  };
}

async function collect(ctx: CollectContext, options: WafTrendOptions): Promise<CollectOutput> {
  const log = ctx.log.child({ collector: 'waf-trend' });
  // A denied family costs nothing; no domain selected means nothing to ask ([] would mean all).
  if (!ctx.enabled(WAF_EVENTS.name) || ctx.targets.domains.length === 0) {
    return assemble({ collector: 'waf-trend', previous: ctx.watermarks, gaugeFamilies: [], results: [], tallies: [] });
  }
  const grid: Grid = { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes };
  const specs = wafCombos().map((combo) => ({ combo, spec: wafCounter(combo, grid) }));
  const plans = planSeries(specs.map((s) => s.spec.key), { now: ctx.now, watermarks: ctx.watermarks, tz: ctx.tz, log }, options, {});
  const outcomes = await Promise.all(specs.map(async ({ combo, spec }): Promise<[TargetResult, Tally]> => {
    const plan = plans.get(spec.key);
    let fetched: { pieces: Piece<WafAnswer>[]; requests: number; errors: Error[] } = { pieces: [], requests: 0, errors: [] };
    if (plan?.kind === 'count') {
      const chunks = chunkRange({ first: plan.from, last: plan.lastSettled }, grid, Math.min(wafChunkBuckets(options.interval), options.maxBucketsPerRequest ?? Infinity));
      const send = wafSender({ client: ctx.client, tz: ctx.tz, signal: ctx.signal, domains: ctx.targets.domains, size: bucketMs(grid) }, combo);
      fetched = await fetchChunks(chunks, { grid, tz: ctx.tz, log: log.child(spec.labels), send, quiet: chunks.length === 1 });
    }
    const result = convertWaf(spec, plans, fetched.pieces, grid, options.timestamps);
    if (fetched.errors.length === 0 && (result.uncovered?.length ?? 0) > 0) {
      log.warn({ ...spec.labels }, 'logTread answer did not cover its range (no logTread item, or buckets coarser than the interval); retrying next cycle');
    }
    return [result, fetched];
  }));
  return assemble({
    collector: 'waf-trend', previous: ctx.watermarks, gaugeFamilies: [],
    results: outcomes.map(([r]) => r), tallies: outcomes.map(([, t]) => t),
  });
}
