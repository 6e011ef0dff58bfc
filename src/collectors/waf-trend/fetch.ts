// The WAF trend requests: one describeLogV2 (logTread only) per action and
// severity and per chunk of buckets to count; none when nothing has settled.
import type { DescribeLogV2Request, PlatformClock, ReadClient } from '../../api/index.js';
import { paramsOf, type TimeSpan } from '../series/index.js';
import type { Combo, WafAnswer } from './convert.js';

export function wafRequest(combo: Combo, domains: readonly string[], params: DescribeLogV2Request['params']): DescribeLogV2Request {
  return {
    action: [{ metricName: 'logTread' }],
    domains: [...domains],
    otherFilter: [],
    searchHeader: { action: combo.action, severityLevel: combo.level },
    params,
  };
}

interface WafSendContext {
  readonly client: ReadClient;
  readonly tz: PlatformClock;
  readonly signal: AbortSignal;
  /** Explicit list: [] would mean every domain of the account. */
  readonly domains: readonly string[];
  readonly size: number;
}

export function wafSender(s: WafSendContext, combo: Combo) {
  return async (span: TimeSpan): Promise<WafAnswer> => {
    const tread = await s.client.describeLogV2(wafRequest(combo, s.domains, paramsOf(s.tz, span)), { signal: s.signal });
    // The buckets the span reaches into (its end is now for the last chunk, not a bucket boundary).
    return { range: { first: span.begin, last: span.begin + Math.floor((span.end - 1 - span.begin) / s.size) * s.size }, tread };
  };
}
