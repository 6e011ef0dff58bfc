// The CC-attack request: every needed metricName in one describeL7CCAttack,
// parsed defensively on arrival (the item shapes are not documented).
import type { DescribeL7CCAttackRequest, Interval, PlatformClock, ReadClient } from '../../api/index.js';
import { paramsOf, type TimeSpan } from '../series/index.js';
import type { CcMetric } from './convert.js';
import { parseCcAnswer, type CcParsed } from './parse.js';

export function ccRequest(
  domains: readonly string[], interval: Interval, params: NonNullable<DescribeL7CCAttackRequest['params']>, metrics: readonly CcMetric[],
): DescribeL7CCAttackRequest {
  return { domains: [...domains], interval, params, action: metrics.map((metricName) => ({ metricName })) };
}

interface CcSendContext {
  readonly client: ReadClient;
  readonly tz: PlatformClock;
  readonly signal: AbortSignal;
  readonly interval: Interval;
  /** Explicit list: [] would mean every domain of the account, not the filtered selection. */
  readonly domains: readonly string[];
}

/** main: `mainMetrics`; back-fill spans: the counter's ccPolicyTrend only. */
export function ccSender(s: CcSendContext, mainMetrics: readonly CcMetric[]) {
  return async (span: TimeSpan, kind: 'main' | 'backfill'): Promise<CcParsed> => {
    const metrics = kind === 'main' ? mainMetrics : (['ccPolicyTrend'] as const);
    const answer = await s.client.describeL7CCAttack(ccRequest(s.domains, s.interval, paramsOf(s.tz, span), metrics), { signal: s.signal });
    return parseCcAnswer(answer.data);
  };
}
