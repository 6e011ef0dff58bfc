// Reading one window of deny records from describeLogV2 (`logs`), page by
// page until a short page (see readWindow for what short means). The upstream orders records by timeStamp
// descending: a record ingested while we page lands ahead of our position and
// pushes the rest down, so a record may show up on two pages (the caller
// drops repeats by requestId) but none is skipped.
import type { DescribeLogV2Request, PlatformClock, ReadClient, WafLogRecord } from '../api/index.js';
import type { Config } from '../config/index.js';
import type { TimeWindow } from './window.js';

export type WafSeverity = '高风险' | '中风险' | '低风险';

export interface WafOtherFilter {
  readonly oneVal: NonNullable<DescribeLogV2Request['otherFilter']>[number]['oneVal'];
  readonly twoVal: NonNullable<DescribeLogV2Request['otherFilter']>[number]['twoVal'];
  readonly threeVal: readonly string[];
}

/** What is asked besides action=deny (waf_events config). */
export interface WafQuery {
  /** Records per page (waf_events.page_size). */
  readonly pageSize: number;
  readonly severity?: WafSeverity | undefined;
  /** Absent or empty: every domain of the account. */
  readonly domains?: readonly string[] | undefined;
  readonly otherFilter?: readonly WafOtherFilter[] | undefined;
}

/** The query `waf_events` configures: the forwarder reads with it, and `doctor` asks the same. */
export function wafQuery(waf: Config['waf_events']): WafQuery {
  return {
    pageSize: waf.page_size,
    ...(waf.severity ? { severity: waf.severity } : {}),
    ...(waf.domains ? { domains: waf.domains } : {}),
    otherFilter: waf.other_filter,
  };
}

export function logsRequest(window: TimeWindow, pageNo: number, query: WafQuery, tz: PlatformClock): DescribeLogV2Request {
  return denyRequest({ metricName: 'logs', pageNo, pageSize: query.pageSize }, window, query, tz);
}

/**
 * One action of describeLogV2 over `window` with what the query asks besides
 * action=deny: the records (`logs`, above) and the delivery audit's counts
 * (`logTread`, audit-check.ts) are asked alike, so the counts are of the
 * records the forwarder reads.
 */
export function denyRequest(action: DescribeLogV2Request['action'][number], window: TimeWindow, query: WafQuery, tz: PlatformClock): DescribeLogV2Request {
  return {
    action: [action],
    ...(query.domains && query.domains.length > 0 ? { domains: [...query.domains] } : {}),
    otherFilter: (query.otherFilter ?? []).map((f) => ({ oneVal: f.oneVal, twoVal: f.twoVal, threeVal: [...f.threeVal] })),
    searchHeader: { action: 'deny', ...(query.severity === undefined ? {} : { severityLevel: query.severity }) },
    // [begin, end): whole seconds, the format the query takes.
    params: { beginTime: tz.formatDateTime(window.startMs), endTime: tz.formatDateTime(window.endMs) },
  };
}

export interface PageReader {
  readonly client: Pick<ReadClient, 'describeLogV2'>;
  readonly tz: PlatformClock;
  readonly query: WafQuery;
  readonly signal: AbortSignal;
}

/**
 * One page of a window, and whether it is the window's last (no further page
 * is asked for). `records` is the reader's own array, the caller's from then
 * on: the drain takes each record out as it reads it (drain.ts).
 */
export interface Page {
  readonly records: WafLogRecord[];
  readonly last: boolean;
}

/**
 * The window's records, one page at a time (nothing beyond the current page
 * is held). A page shorter than asked is the last one only when it is empty
 * or shorter than the first page: the document gives pageSize no maximum and
 * `logs` no total, and an upstream that caps pageSize below what is asked
 * answers every page short. Stopping at its first page would skip the rest
 * of the window for good (the cursor moves past it). So a first page shorter
 * than asked is followed by one more request (empty from an upstream that
 * does not cap: one request more for a window that fits in one page), and
 * then pages as long as the first are full ones (docs/upstream-notes.md).
 */
export async function* readWindow(reader: PageReader, window: TimeWindow): AsyncGenerator<Page> {
  let full = reader.query.pageSize;
  for (let pageNo = 1; ; pageNo++) {
    reader.signal.throwIfAborted();
    const answer = await reader.client.describeLogV2(logsRequest(window, pageNo, reader.query, reader.tz), { signal: reader.signal });
    // `data: null` (nothing matched) arrives as [].
    const records = answer.data.find((item) => item.metricName === 'logs')?.list ?? [];
    const count = records.length;
    const last = count === 0 || (pageNo > 1 && count < full);
    yield { records, last };
    if (last) return;
    // Counted before the yield: the caller empties the array.
    if (pageNo === 1) full = Math.min(full, count);
  }
}
