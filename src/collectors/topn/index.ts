// The top-N collector: the configured dimensions ranked by requests and/or
// traffic over a window, as gauges replaced every cycle. The window is the
// last `windowMs` of settled buckets (ending at the newest bucket older than
// `delay`), so the ranking shows final values rather than buckets the
// upstream is still revising. A family whose request fails is left out of
// the cycle and keeps its last values.
import { MOST_METRICS } from '../../api/schemas/index.js';
import { alignDown, lastSettledStart } from '../buckets.js';
import type { Collector, CollectContext, CollectOutput } from '../collector.js';
import {
  asError, assemble, bucketMs, checkSeriesOptions, positiveInteger, type Grid, type SeriesOptions, type TargetResult, type Tally,
  type TimeSpan,
} from '../series/index.js';
import { convertTopn } from './convert.js';
import { fetchTopn, topnRequest, type MostMetric } from './fetch.js';
import { FAMILY_BY, type TopnBy } from './metrics.js';
import { ArgumentError } from '../../shared/errors.js';

export * from './metrics.js';

/** `delayMs` places the window's end; `maxBackfillMs` is not used (gauges only, nothing to back-fill). */
export interface TopnOptions extends SeriesOptions {
  /** describeL7MostData metricNames: url, ip, referer, status, country_name, ... */
  readonly dimensions: readonly string[];
  /** requestCount -> edge_topn_requests, trafficSum -> edge_topn_traffic_bytes. */
  readonly by: readonly TopnBy[];
  /** Entries per dimension (the request's pageSize). */
  readonly top: number;
  /** Add key="__other__" = total - sum(top N). */
  readonly other: boolean;
  /** Length of the ranked window. */
  readonly windowMs: number;
}

function isMostMetric(d: string): d is MostMetric {
  return MOST_METRICS.some((m) => m === d);
}

export function createTopnCollector(options: TopnOptions): Collector {
  checkSeriesOptions('topn', options);
  positiveInteger('topn', 'top', options.top);
  if (!Number.isFinite(options.windowMs) || options.windowMs <= 0) throw new ArgumentError(`topn: windowMs must be positive, got ${options.windowMs}`);
  const unknown = options.dimensions.filter((d) => !isMostMetric(d));
  if (unknown.length > 0) throw new ArgumentError(`topn: unknown dimensions ${unknown.join(', ')} (allowed: ${MOST_METRICS.join(', ')})`);
  const dimensions = [...new Set(options.dimensions.filter(isMostMetric))];
  if (dimensions.length === 0) throw new ArgumentError('topn: at least one dimension is required');
  const by = [...new Set(options.by)];
  if (by.length === 0 || by.some((b) => !Object.hasOwn(FAMILY_BY, b))) throw new ArgumentError('topn: by must list requestCount and/or trafficSum');
  return {
    name: 'topn',
    targets: ['domains'],
    operations: ['describeL7MostData'],
    families: by.map((b) => FAMILY_BY[b]),
    collect: (ctx) => collect(ctx, options, dimensions, by),
    // One ranking request per `by`, over every domain at once; none without a domain. Gauges only: nothing audited.
    requests: ({ domains }) => ({ run: domains > 0 ? by.length : 0 }),
  };
}

/** The settled window: whole buckets ending with the newest settled one. */
export function topnSpan(now: number, options: Pick<SeriesOptions, 'interval' | 'delayMs'> & { windowMs: number }, grid: Grid): TimeSpan {
  const last = lastSettledStart(now, grid.interval, options.delayMs, grid.offsetMinutes);
  const end = last + bucketMs(grid);
  return { begin: Math.min(last, alignDown(grid.interval, end - options.windowMs, grid.offsetMinutes)), end };
}

async function collect(ctx: CollectContext, options: TopnOptions, dimensions: readonly MostMetric[], by: readonly TopnBy[]): Promise<CollectOutput> {
  const grid: Grid = { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes };
  const span = topnSpan(ctx.now, options, grid);
  const bucketStart = span.end - bucketMs(grid);
  const active = by.filter((b) => ctx.enabled(FAMILY_BY[b].name));
  // No domain selected: empty families, and no request ([] would mean every domain).
  const asked = ctx.targets.domains.length === 0 ? [] : active;
  const outcomes = await Promise.all(asked.map(async (b): Promise<[TargetResult | undefined, Tally]> => {
    const family = FAMILY_BY[b].name;
    const request = topnRequest({ by: b, dimensions, top: options.top, interval: options.interval, domains: ctx.targets.domains, span, tz: ctx.tz });
    try {
      const answer = await fetchTopn(ctx.client, request, ctx.signal);
      const gauges = convertTopn(answer, { family, dimensions, top: options.top, other: options.other, bucketStart, timestamps: options.timestamps });
      return [{ increments: [], watermarks: {}, gauges, newestBucketEndMs: span.end }, { requests: 1, errors: [] }];
    } catch (err) {
      ctx.log.debug({ err, mostDimension: b }, 'top-N request failed; the family keeps its last values');
      return [undefined, { requests: 1, errors: [asError(err)] }];
    }
  }));
  const produced = asked.length === 0 ? active : asked.filter((_, i) => outcomes[i]?.[0] !== undefined);
  return assemble({
    collector: 'topn', previous: ctx.watermarks,
    gaugeFamilies: produced.map((b) => FAMILY_BY[b].name),
    results: outcomes.flatMap(([r]) => (r ? [r] : [])),
    tallies: outcomes.map(([, t]) => t),
  });
}
