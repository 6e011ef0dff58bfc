// The top-N request: one describeL7MostData per mostDimension, every
// configured dimension as an action item, first page of `top` items.
import type { DescribeL7MostDataRequest, DescribeL7MostDataAnswer, Interval, PlatformClock, ReadClient } from '../../api/index.js';
import { paramsOf, type TimeSpan } from '../series/index.js';
import type { TopnBy } from './metrics.js';

export type MostMetric = NonNullable<DescribeL7MostDataRequest['action'][number]['metricName']>;

interface TopnRequestInput {
  readonly by: TopnBy;
  readonly dimensions: readonly MostMetric[];
  readonly top: number;
  readonly interval: Interval;
  /** Domains after include/exclude; sent explicitly because [] would mean every domain of the account. */
  readonly domains: readonly string[];
  readonly span: TimeSpan;
  readonly tz: PlatformClock;
}

export function topnRequest(input: TopnRequestInput): DescribeL7MostDataRequest {
  return {
    mostDimension: input.by,
    action: input.dimensions.map((metricName) => ({ metricName })),
    domains: [...input.domains],
    interval: input.interval,
    params: paramsOf(input.tz, input.span),
    pageNum: 1,
    pageSize: input.top,
    otherFilter: [],
  };
}

export function fetchTopn(client: ReadClient, request: DescribeL7MostDataRequest, signal: AbortSignal): Promise<DescribeL7MostDataAnswer> {
  return client.describeL7MostData(request, { signal });
}
