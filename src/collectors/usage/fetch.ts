// The usage request: one describeL7UsageData per package and span, with
// trafficTrend and bandwidthTrend together (back-fill spans: trafficTrend only).
import type { DescribeL7UsageDataRequest, DescribeL7UsageDataAnswer, Interval, PlatformClock, ReadClient } from '../../api/index.js';
import { paramsOf, type CounterSpec, type TimeSpan } from '../series/index.js';
import { usageMetrics, type UsageTrendMetric } from './convert.js';

export function usageRequest(
  pkg: string, interval: Interval, params: DescribeL7UsageDataRequest['params'], metrics: readonly UsageTrendMetric[],
): DescribeL7UsageDataRequest {
  return { oids: [pkg], interval, params, action: metrics.map((metricName) => ({ metricName })) };
}

interface UsageSendContext {
  readonly client: ReadClient;
  readonly tz: PlatformClock;
  readonly signal: AbortSignal;
  readonly interval: Interval;
  readonly pkg: string;
  readonly gaugeFamilies: readonly string[];
}

export function usageSender(s: UsageSendContext, specs: readonly CounterSpec<DescribeL7UsageDataAnswer>[]) {
  return (span: TimeSpan, kind: 'main' | 'backfill'): Promise<DescribeL7UsageDataAnswer> => {
    const metrics = usageMetrics(specs, kind === 'main' ? s.gaugeFamilies : []);
    return s.client.describeL7UsageData(usageRequest(s.pkg, s.interval, paramsOf(s.tz, span), metrics), { signal: s.signal });
  };
}
