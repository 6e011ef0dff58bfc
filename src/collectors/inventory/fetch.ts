// The requests behind the inventory: every list paged to its end, the
// layer-4 details per package, the cache records of the window per type.
// Nothing here converts; errors propagate to the caller, which decides which
// families they cost.
import type { OperationName } from '../../api/index.js';
import type { CollectContext, CollectorLogger } from '../collector.js';
import type { CacheRecordRow } from './convert-cache.js';
import type { CertificateRow } from './convert-certificates.js';
import type { DomainRow } from './convert-domains.js';
import type { LiveOrderListRow, LiveQualityRow } from './convert-live.js';
import type { Layer4DetailsOf, Layer4Row, PackageOption } from './convert-packages.js';
import { CACHE_TYPES, type CacheTypeCode } from './metrics.js';

export interface Paging {
  /** Rows per request. */
  readonly pageSize: number;
  /** Pages read at most per list, a guard against a total that never ends. */
  readonly maxPages: number;
}

export interface PageAnswer<Row> {
  readonly rows: readonly Row[];
  /** Rows matching the query; absent when the upstream did not say. */
  readonly total?: number | undefined;
}

/**
 * Reads pages 1, 2, ... until the rows reach `total`, a page comes back empty,
 * or (without a total) a page comes back short. A total that keeps promising
 * rows is cut off at `maxPages` with a warning, returning what was read.
 */
export async function readAllPages<Row>(
  operation: OperationName,
  fetchPage: (pageNum: number, pageSize: number) => Promise<PageAnswer<Row>>,
  paging: Paging,
  log: CollectorLogger,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (let pageNum = 1; pageNum <= paging.maxPages; pageNum++) {
    const page = await fetchPage(pageNum, paging.pageSize);
    // A loop, not push(...rows): an upstream ignoring pageSize can send more rows than call arguments fit on the stack.
    for (const row of page.rows) rows.push(row);
    if (page.rows.length === 0) return rows;
    const done = page.total === undefined ? page.rows.length < paging.pageSize : rows.length >= page.total;
    if (done) return rows;
  }
  log.warn({ operation, pages: paging.maxPages, rows: rows.length }, 'list still not complete after the page limit; using the rows read');
  return rows;
}

export async function fetchPackageOptions(ctx: CollectContext): Promise<PackageOption[]> {
  return (await ctx.client.getPackages({}, { signal: ctx.signal })).data;
}

export async function fetchLayer4Packages(ctx: CollectContext, paging: Paging): Promise<Layer4Row[]> {
  return readAllPages('listLayer4Packages',
    (pageNum, pageSize) => ctx.client.listLayer4Packages({ pageNum, pageSize }, { signal: ctx.signal }), paging, ctx.log);
}

/**
 * Awaits every request before reporting a failure, so none outlives the
 * cycle that started it; then throws the first failure.
 */
async function settleAll<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
}

/** Details of every listed package, requested together (the client bounds the concurrency). */
export async function fetchLayer4Details(ctx: CollectContext, oids: readonly string[]): Promise<Layer4DetailsOf[]> {
  return settleAll(oids.map(async (oid) => {
    const answer = await ctx.client.getPackageDetails({ oid }, { signal: ctx.signal });
    return { oid, details: answer.data ?? null };
  }));
}

export async function fetchDomains(ctx: CollectContext, paging: Paging): Promise<DomainRow[]> {
  // An empty isActive list asks for every state; naming the three documented
  // codes instead would hide a domain in a state the document does not list.
  return readAllPages('listDomains',
    (pageNum, pageSize) => ctx.client.listDomains({ filters: [], searchHeader: { isActive: [] }, pageNum, pageSize }, { signal: ctx.signal }),
    paging, ctx.log);
}

export async function fetchCertificates(ctx: CollectContext, paging: Paging): Promise<CertificateRow[]> {
  return readAllPages('describeHosting',
    (pageNum, pageSize) => ctx.client.describeHosting({ pageNum, pageSize }, { signal: ctx.signal }), paging, ctx.log);
}

/** Records of each type created in [now - windowMs, now], in the platform zone. */
export async function fetchCacheRecords(ctx: CollectContext, paging: Paging, windowMs: number): Promise<Record<CacheTypeCode, CacheRecordRow[]>> {
  const params = { beginTime: ctx.tz.formatDateTime(ctx.now - windowMs), endTime: ctx.tz.formatDateTime(ctx.now) };
  const lists = await settleAll(CACHE_TYPES.map(async ({ code }) => {
    const rows = await readAllPages('getCacheRecordList',
      (pageNum, pageSize) => ctx.client.getCacheRecordList({ type: code, pageNum, pageSize, params }, { signal: ctx.signal }),
      paging, ctx.log);
    return [code, rows] as const;
  }));
  const byType: Record<CacheTypeCode, CacheRecordRow[]> = { '1': [], '2': [], '3': [] };
  for (const [code, rows] of lists) byType[code] = rows;
  return byType;
}

export async function fetchLiveOrders(ctx: CollectContext, paging: Paging): Promise<LiveOrderListRow[]> {
  // No time filter: expired orders stay listed (status "expired") for as long as the upstream lists them.
  return readAllPages('describeHostAcceleratePackOrder',
    (pageNum, pageSize) => ctx.client.describeHostAcceleratePackOrder({ pageNum, pageSize }, { signal: ctx.signal }), paging, ctx.log);
}

export async function fetchLiveQualityReports(ctx: CollectContext, paging: Paging): Promise<LiveQualityRow[]> {
  return readAllPages('describeVQUserData',
    (pageNum, pageSize) => ctx.client.describeVQUserData({ pageNum, pageSize }, { signal: ctx.signal }), paging, ctx.log);
}
