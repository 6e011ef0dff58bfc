// The access requests: one describeL7DataV2 per domain and span, every
// needed trend metricName in it (v1: one describeL7Data per terminal).
// Back-fill spans ask only for the counters' metrics.
import type {
  DescribeL7DataRequest, DescribeL7DataAnswer, DescribeL7DataV2Request, DescribeL7DataV2Answer, Interval, PlatformClock, ReadClient,
} from '../../api/index.js';
import { paramsOf, type CounterSpec, type TimeSpan } from '../series/index.js';
import { v2Metrics, type V2TrendMetric } from './convert.js';
import { v1Metrics, type Terminal, type V1Pair, type V1TrendMetric } from './convert-v1.js';

export interface SendContext {
  readonly client: ReadClient;
  readonly tz: PlatformClock;
  readonly signal: AbortSignal;
  readonly interval: Interval;
  readonly domain: string;
  /** Enabled gauge families: their metrics go into the main request only. */
  readonly gaugeFamilies: readonly string[];
}

export function v2Request(domain: string, interval: Interval, params: DescribeL7DataV2Request['params'], metrics: readonly V2TrendMetric[]): DescribeL7DataV2Request {
  return { domains: [domain], interval, params, action: metrics.map((metricName) => ({ metricName })) };
}

/**
 * mostDimension, pageNum, pageSize and terminal are required in this variant
 * though they mean nothing to a trend; the values sent are the harmless ones
 * (the document gives no list for mostDimension here).
 */
export function v1Request(
  domain: string, interval: Interval, params: DescribeL7DataRequest['params'], terminal: Terminal, metrics: readonly V1TrendMetric[],
): DescribeL7DataRequest {
  return {
    domains: [domain], interval, params, terminal, mostDimension: 'requestCount', pageNum: 1, pageSize: 10,
    action: metrics.map((metricName) => ({ metricName })),
  };
}

export function v2Sender(s: SendContext, specs: readonly CounterSpec<DescribeL7DataV2Answer>[]) {
  return (span: TimeSpan, kind: 'main' | 'backfill'): Promise<DescribeL7DataV2Answer> => {
    const metrics = v2Metrics(specs, kind === 'main' ? s.gaugeFamilies : []);
    return s.client.describeL7DataV2(v2Request(s.domain, s.interval, paramsOf(s.tz, span), metrics), { signal: s.signal });
  };
}

/** Requests v1 makes per domain and span: one per terminal (cdn, source). */
export const V1_TERMINALS = 2;

/** Both terminals' requests of a span succeed or fail together: the pair is one piece. */
export function v1Sender(s: SendContext, specs: readonly CounterSpec<V1Pair>[]) {
  return async (span: TimeSpan, kind: 'main' | 'backfill'): Promise<V1Pair> => {
    const byTerminal = v1Metrics(specs, kind === 'main' ? s.gaugeFamilies : []);
    const ask = (terminal: Terminal, metrics: readonly V1TrendMetric[] | undefined): Promise<DescribeL7DataAnswer | undefined> =>
      metrics === undefined
        ? Promise.resolve(undefined)
        : s.client.describeL7Data(v1Request(s.domain, s.interval, paramsOf(s.tz, span), terminal, metrics), { signal: s.signal });
    const [cdn, source] = await Promise.all([ask('cdn', byTerminal.cdn), ask('source', byTerminal.source)]);
    return { ...(cdn ? { cdn } : {}), ...(source ? { source } : {}) };
  };
}
