// The doctor's requests, each small: statistics of every domain or package
// at once (`[]` means all, as documented) over a few dozen buckets, logTread,
// and one page of WAF logs. Each answer comes back as an Answer of the shape
// the checks read (trends.ts).
import type { Interval, PlatformClock, WafLogRecord } from '../api/index.js';
import type { Answer, Prober } from './probe.js';
import type { StatsSource } from './setup.js';
import { accessV1Trend, accessV2Trend, logTreadTrend, usageTrend, type Trend } from './trends.js';

/** [begin, end) in epoch ms. */
export interface Span {
  readonly begin: number;
  readonly end: number;
}

/** Records per `logs` page: enough to see the timeStamp form, small enough to be quick. */
const LOG_PAGE_SIZE = 10;

export function paramsOf(tz: PlatformClock, span: Span): { beginTime: string; endTime: string } {
  return { beginTime: tz.formatDateTime(span.begin), endTime: tz.formatDateTime(span.end) };
}

function mapAnswer<T, U>(answer: Answer<T>, f: (value: T) => U): Answer<U> {
  return answer.kind === 'answer' ? { kind: 'answer', value: f(answer.value), sentAt: answer.sentAt } : answer;
}

/** The traffic, bandwidth and request trends of the source's operation, over `span` in buckets of `interval`. */
export async function askStats(prober: Prober, tz: PlatformClock, source: StatsSource, span: Span, interval: Interval = source.interval): Promise<Answer<Trend>> {
  const params = paramsOf(tz, span);
  switch (source.operation) {
    case 'describeL7DataV2':
      return mapAnswer(await prober.ask('describeL7DataV2', {
        domains: [], interval, params,
        action: [{ metricName: 'trafficTrend' }, { metricName: 'bandwidthTrend' }, { metricName: 'requestTrend' }],
      }), accessV2Trend);
    case 'describeL7Data':
      // Required in this variant though meaningless for trends; the values the access collector sends.
      return mapAnswer(await prober.ask('describeL7Data', {
        domains: [], interval, params, terminal: 'cdn', mostDimension: 'requestCount', pageNum: 1, pageSize: 10,
        action: [{ metricName: 'trafficTrend' }, { metricName: 'bandwidthTrend' }, { metricName: 'requestTrend' }],
      }), accessV1Trend);
    case 'describeL7UsageData':
      return mapAnswer(await prober.ask('describeL7UsageData', {
        oids: [], interval, params, action: [{ metricName: 'trafficTrend' }, { metricName: 'bandwidthTrend' }],
      }), usageTrend);
  }
}

/** The log-volume trend of every domain, all actions and levels: the upstream picks the bucket from the range. */
export async function askLogTread(prober: Prober, tz: PlatformClock, span: Span): Promise<Answer<Trend>> {
  return mapAnswer(await prober.ask('describeLogV2', { action: [{ metricName: 'logTread' }], otherFilter: [], params: paramsOf(tz, span) }), logTreadTrend);
}

/** One page of log records, newest first as far as the upstream orders them. */
export async function askLogs(prober: Prober, tz: PlatformClock, span: Span, action?: 'deny' | 'pass'): Promise<Answer<readonly WafLogRecord[]>> {
  const answer = await prober.ask('describeLogV2', {
    action: [{ metricName: 'logs', pageNo: 1, pageSize: LOG_PAGE_SIZE }],
    otherFilter: [],
    ...(action === undefined ? {} : { searchHeader: { action } }),
    params: paramsOf(tz, span),
  });
  return mapAnswer(answer, (r) => r.data.find((i) => i.metricName === 'logs')?.list ?? []);
}
