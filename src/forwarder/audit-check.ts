// One check of the delivery audit: a single describeLogV2 `logTread` request
// (action deny, the forwarder's own severity, domains and other_filter) over
// the range the audit compares, and its settled buckets. One request per
// check, whatever the number of buckets: the look-back twice over is two
// hours, one-minute buckets under the reading that sizes buckets by the range
// (at most six hours of them), coarser ones under any other (audit.ts reads
// the grid off the answer).
import type { DescribeLogV2Request, PlatformClock, ReadClient } from '../api/index.js';
import { settledBuckets, type AuditBucket } from './audit.js';
import { minuteOf } from './delivered-minutes.js';
import { denyRequest, type WafQuery } from './fetch.js';
import type { TimeWindow } from './window.js';

export function trendRequest(range: TimeWindow, query: WafQuery, tz: PlatformClock): DescribeLogV2Request {
  return denyRequest({ metricName: 'logTread' }, range, query, tz);
}

/**
 * The range one check asks: from the later of where the audit may begin (a
 * whole minute, audit-scope.ts) and the start of a bucket `widthMs` wide
 * ending after the horizon (audit.ts), to the last whole minute the final
 * pass has read; undefined when that is empty.
 */
export function auditRange(fromMs: number, finalMs: number, horizonMs: number, widthMs: number): TimeWindow | undefined {
  const startMs = Math.max(fromMs, minuteOf(horizonMs - widthMs + 60_000));
  const endMs = minuteOf(finalMs);
  return endMs > startMs ? { startMs, endMs } : undefined;
}

interface TrendReader {
  readonly client: Pick<ReadClient, 'describeLogV2'>;
  readonly tz: PlatformClock;
  readonly signal: AbortSignal;
}

/** The upstream's deny counts for the range's whole buckets (`data: null`: nothing matched, so none listed to compare). */
export async function readCounts(reader: TrendReader, range: TimeWindow, query: WafQuery): Promise<Array<AuditBucket & { counted: number }>> {
  const answer = await reader.client.describeLogV2(trendRequest(range, query, reader.tz), { signal: reader.signal });
  const points = answer.data.find((item) => item.metricName === 'logTread')?.objectArrayList ?? [];
  return settledBuckets(points, range.startMs, range.endMs);
}
