// The WAF trend collector: WAF log events by action and severity as
// counters, from describeLogV2's logTread. Each of the six series has its own
// watermark and request, made only when a bucket has settled since the last
// one counted. `delay` must cover the log ingest lag (the simulator's is up
// to 90 s): an event ingested after its bucket was counted is not counted.
import { lastSettledStart } from '../buckets.js';
import type { Collector, CollectContext, CollectOutput } from '../types.js';
import {
  assemble, bucketMs, closeCycle, fetchChunks, inForce, planSeries, seriesCollector, type AuditBook, type FetchedUnit, type Grid, type Piece,
  type SeriesOptions,
} from '../series/index.js';
import { convertWaf, grainOf, wafChunkBuckets, wafCombos, wafCounter, type WafAnswer } from './convert.js';
import { wafSender } from './fetch.js';
import { GrainMemory, wafAuditSpan, wafRanges } from './ranges.js';
import { WAF_EVENTS, WAF_TREND_FAMILIES } from './metrics.js';

export * from './metrics.js';

/** Only the common options: the six series are fixed by the document. */
export type WafTrendOptions = SeriesOptions;

export function createWafTrendCollector(options: WafTrendOptions): Collector {
  const grain = new GrainMemory();
  return seriesCollector(
    { name: 'waf-trend', targets: ['domains'], operations: ['describeLogV2'], families: WAF_TREND_FAMILIES },
    options, (ctx, book) => collect(ctx, options, book, grain),
    // One request per series (action x severity) and cycle, over every domain at once; none without a domain.
    ({ domains }) => {
      const series = domains > 0 ? wafCombos().length : 0;
      return { requests: series, counted: series };
    },
  );
}

async function collect(ctx: CollectContext, configured: WafTrendOptions, book: AuditBook, seen: GrainMemory): Promise<CollectOutput> {
  const options = inForce(configured, book);
  const log = ctx.log.child({ collector: 'waf-trend' });
  // A denied family costs nothing; no domain selected means nothing to ask ([] would mean all).
  if (!ctx.enabled(WAF_EVENTS.name) || ctx.targets.domains.length === 0) {
    return assemble({ collector: 'waf-trend', previous: ctx.watermarks, gaugeFamilies: [], results: [], tallies: [] });
  }
  const grid: Grid = { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes };
  const size = bucketMs(grid);
  const series = wafCombos().map((combo) => ({
    combo,
    spec: wafCounter(combo, grid),
    send: wafSender({ client: ctx.client, tz: ctx.tz, signal: ctx.signal, domains: ctx.targets.domains, size }, combo),
  }));
  // One plan for the six series: they share one max_backfill warning.
  const plans = planSeries(series.map((s) => s.spec.key), { now: ctx.now, watermarks: ctx.watermarks, tz: ctx.tz, log }, options, {});
  // The last chunk reaches on to now, so its answer shows how far the upstream's clock has got; leave room for that.
  const toNow = Math.ceil((ctx.now - (lastSettledStart(ctx.now, grid.interval, options.delayMs, grid.offsetMinutes) + size)) / size);
  const perChunk = Math.max(1, Math.min(wafChunkBuckets(options.interval) - toNow, options.maxBucketsPerRequest ?? Infinity));
  const fetchedAll = await Promise.all(series.map(async ({ combo, spec, send }) => {
    const plan = plans.get(spec.key);
    const seriesLog = log.child(spec.labels);
    let fetched: { pieces: Piece<WafAnswer>[]; requests: number; errors: Error[] } = { pieces: [], requests: 0, errors: [] };
    if (plan?.kind === 'count') {
      // On the upstream's coarse grid once seen, so either reading of a range lists every coarse bucket due (ranges.ts).
      const chunks = wafRanges(plan, grid, perChunk, seen.get());
      fetched = await fetchChunks(chunks, { grid, tz: ctx.tz, log: seriesLog, send, quiet: chunks.length === 1, lastEnd: ctx.now });
    }
    return { combo, spec, send, log: seriesLog, fetched: { ...fetched, main: undefined } };
  }));
  // The six series share one upstream grain, as their answers show it together; answers without a point show the last one seen.
  seen.see(grainOf(fetchedAll.flatMap(({ fetched }) => fetched.pieces), grid));
  const grain = seen.get();
  const units = fetchedAll.map(({ combo, spec, send, log: seriesLog, fetched }): FetchedUnit<WafAnswer> => ({
    specs: [spec], send: (span) => send(wafAuditSpan(span, grid, grain)), log: seriesLog, fetched,
    convert: (clock) => {
      const counter = wafCounter(combo, grid, grain);
      const result = convertWaf(counter, plans, fetched.pieces, grid, options.timestamps, clock);
      if (fetched.errors.length === 0 && (result.uncovered?.length ?? 0) > 0) {
        log.warn({ ...counter.labels }, 'logTread answer covered none of the buckets due (no logTread item, or no point yet for them); asked again next cycle');
      }
      return result;
    },
  }));
  return closeCycle(ctx, { collector: 'waf-trend', gaugeFamilies: [], grid, book, delayMs: options.delayMs, autoDelay: options.autoDelay }, units);
}
