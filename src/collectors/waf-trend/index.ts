// The WAF trend collector: WAF log events by action and severity as
// counters, from describeLogV2's logTread. The account is the one target;
// each of its six series is handed to the series driver apart, with its own
// watermark and requests, made only when a bucket has settled since the last
// one counted. `delay` must
// cover the log ingest lag (the simulator's is up to 90 s): an event ingested
// after its bucket was counted is not counted.
import { lastSettledStart } from '../buckets.js';
import type { Collector, CollectContext, CollectOutput } from '../collector.js';
import {
  assemble, bucketMs, driveSeries, seriesCollector, type Grid, type SeriesOptions, type SeriesState, type SeriesTarget,
} from '../series/index.js';
import { grainOf, wafChunkBuckets, wafCombos, wafCounter, wafFindings, type Grain, type WafAnswer } from './convert.js';
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
    options, (ctx, state) => collect(ctx, options, state, grain),
    // One request per series (action x severity) and cycle, over every domain at once; none without a domain.
    ({ domains }) => {
      const series = domains > 0 ? wafCombos().length : 0;
      return { requests: series, counted: series };
    },
  );
}

async function collect(ctx: CollectContext, options: WafTrendOptions, state: SeriesState, memory: GrainMemory): Promise<CollectOutput> {
  // A denied family costs nothing; no domain selected means nothing to ask ([] would mean all).
  if (!ctx.enabled(WAF_EVENTS.name) || ctx.targets.domains.length === 0) {
    return assemble({ collector: 'waf-trend', previous: ctx.watermarks, gaugeFamilies: [], results: [], tallies: [] });
  }
  const grid: Grid = { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes };
  const size = bucketMs(grid);
  // The six series share one upstream grain. A range is chosen before its answer shows one, and a count reads it (a zero
  // for `data: null` is laid on it): the last one seen, then what the probe's answers show, fixed for the fan-out.
  let grain = memory.get();
  let probed = false;
  let seen: Grain | undefined;
  const series = wafCombos().map((combo): SeriesTarget<WafAnswer> => {
    const send = wafSender({ client: ctx.client, tz: ctx.tz, signal: ctx.signal, domains: ctx.targets.domains, size }, combo);
    const spec = wafCounter(combo, grid, () => grain);
    // Begun on the coarse grid, so a strict upstream lists the first bucket asked (a range from wafRanges already is).
    return {
      labels: spec.labels, specs: [spec], send: (span) => send(wafAuditSpan(span, grid, grain)), gauges: false, gaugeWindowMs: undefined,
      // The clock is read off the answers as they came: `data: null` as zeros up to the range's last bucket, on no grain.
      clockSpecs: [wafCounter(combo, grid)],
    };
  });
  try {
    return await driveSeries<WafAnswer, SeriesTarget<WafAnswer>>(ctx, options, state, {
      collector: 'waf-trend', log: ctx.log, gaugeFamilies: [], targets: series, accountWide: true,
      // On the upstream's coarse grid once seen, so either reading of a range lists every coarse bucket due (ranges.ts).
      ranges: (plan, inForce) => {
        // The last chunk reaches on to now, so its answer shows how far the upstream's clock has got; leave room for that.
        const toNow = Math.ceil((ctx.now - (lastSettledStart(ctx.now, grid.interval, inForce.delayMs, grid.offsetMinutes) + size)) / size);
        const perChunk = Math.max(1, Math.min(wafChunkBuckets(inForce.interval) - toNow, inForce.maxBucketsPerRequest ?? Infinity));
        return wafRanges(plan, grid, perChunk, grain);
      },
      answered: (pieces) => {
        const shown = grainOf(pieces, grid);
        if (shown !== undefined && (seen === undefined || shown.width > seen.width)) seen = shown;
        if (probed) return;
        probed = true;
        grain = shown ?? grain;
      },
      convert: (_, answers) => ({ gauges: [], findings: wafFindings(answers.pieces, grid) }),
      uncoveredWarning: 'logTread answer covered none of the buckets due (no logTread item, or no point yet for them); asked again next cycle',
    });
  } finally {
    // The coarsest grain the cycle's answers showed is the next cycle's; answers without a point leave the last one.
    memory.see(seen);
  }
}
