// Operation 1, the WAF log query. Business errors use the document's messages
// and travel as HTTP 200 with envelope code 500 (the document does not show the
// status). `data` is null when no record matches the filters; otherwise one
// item per action, in request order:
//   logs     {metricName, list}: records ordered by timeStamp descending, then
//            requestId ascending, paged by the item's pageNo/pageSize (1/10).
//   logTread {metricName, objectArrayList: [[bucket ms, count]], count}.
// The time range is [beginTime, endTime): a record at endTime belongs to the next window.
// Readings: ignoreRanges answers the last hour whatever the params; with
// logTreadBucketMs the trend's buckets are counted whole, so `data` is null
// only when neither the range nor those buckets hold a match (with
// logTreadStrictRange only the buckets beginning inside the range are
// listed, so a range shorter than a bucket may list none; with
// logTreadCompleteOnly only the buckets ended by now); logTreadCountDelta
// shifts every non-empty point and `count` is the sum of the points, which
// totalsSkew then skews; wafLateIngest hides some deny records from both
// metrics alike (the visibleAt of the one pass below); naiveTimestamps and
// recordTimeLagMs change how a record shows its time (see shownRecord).
import { fail, ok, type HandlerTable, type SimRequest, type SimResponse } from '../types.js';
import type { SimContext } from '../context.js';
import type { Readings } from '../readings.js';
import { skewed } from '../stats-series.js';
import { isoWithOffset, naiveIso, type WafEvent, type WafRecord } from '../waf.js';
import {
  MSG_BAD_METRIC, MSG_QUERY_FAILED, otherFilter, searchHeader, TrendCounter, WafQueryError, type EventPredicate,
} from '../waf-query.js';
import { BadRequest, isRecord, obj, optArr, optStr, pageOf, paging, strings, timeRange, type Obj, type TimeRange } from './common.js';
import { DAY_MS, HOUR_MS } from '../../api/time.js';

const METRICS = ['logs', 'logTread'] as const;
type LogMetric = (typeof METRICS)[number];

interface LogAction {
  readonly metricName: LogMetric;
  readonly pageNo: number;
  readonly pageSize: number;
}

export function wafHandlers(ctx: SimContext): HandlerTable {
  return { describeLogV2: (req) => describeLog(ctx, req) };
}

function describeLog(ctx: SimContext, req: SimRequest): SimResponse {
  try {
    return answer(ctx, req);
  } catch (err) {
    if (err instanceof WafQueryError) return fail(200, 500, err.message);
    if (err instanceof BadRequest) return fail(200, 500, MSG_QUERY_FAILED);
    throw err;
  }
}

/** Refuse ranges that would make one query generate millions of events (the document gives no limit). */
const MAX_RANGE_MS = 31 * DAY_MS;
/** The range the ignoreRanges reading answers. */
const IGNORED_RANGE_MS = HOUR_MS;

function answer(ctx: SimContext, req: SimRequest): SimResponse {
  const b = obj(req.body);
  const actions = readActions(b);
  const predicates = readFilters(b);
  const readings = ctx.readings();
  const { begin, end } = logRange(ctx, b, req.now, readings);
  if (end - begin > MAX_RANGE_MS) throw new WafQueryError(MSG_QUERY_FAILED);
  optStr(b, 'cluster');
  const domains = strings(optArr(b, 'domains'), 'domains');
  const trend = new TrendCounter(begin, end, ctx.tz, {
    fixedStep: readings.logTreadBucketMs, strict: readings.logTreadStrictRange,
    completeOnly: readings.logTreadCompleteOnly, countDelta: readings.logTreadCountDelta,
  });
  const span = trend.span(req.now);
  const newest = new Newest(Math.max(0, ...actions.map((a) => (a.metricName === 'logs' ? a.pageNo * a.pageSize : 0))));
  let count = 0;
  ctx.waf.forEach(Math.min(begin, span.from), Math.max(end, span.to), { domains, visibleAt: req.now }, (e) => {
    if (!predicates.every((p) => p(e))) return;
    if (e.time >= span.from && e.time < span.to) trend.add(e.time);
    if (e.time < begin || e.time >= end) return;
    count += 1;
    newest.add(e);
  });
  if (count === 0 && trend.records() === 0) return ok({ data: null });
  const ordered = newest.list();
  const points = trend.points(req.now);
  const listed = points.reduce((sum, [, n]) => sum + n, 0);
  return ok({
    data: actions.map((a) => (a.metricName === 'logs'
      ? { metricName: a.metricName, list: pageOf(ordered, { pageNum: a.pageNo, pageSize: a.pageSize }).map((e) => shownRecord(e, ctx, readings)) }
      : { metricName: a.metricName, objectArrayList: points, count: skewed(listed, readings.totalsSkew) })),
  });
}

function logRange(ctx: SimContext, b: Obj, now: number, readings: Readings): TimeRange {
  const asked = timeRange(b, ctx.requestTz);
  return readings.ignoreRanges ? { begin: now - IGNORED_RANGE_MS, end: now } : asked;
}

/**
 * The record as served. recordTimeLagMs: its timeStamp is that much earlier
 * than the time that selected it (the order, by time, is the same either way);
 * naiveTimestamps: the platform wall-clock time without an offset.
 */
function shownRecord(e: WafEvent, ctx: SimContext, readings: Readings): WafRecord {
  if (!readings.naiveTimestamps && readings.recordTimeLagMs === 0) return e.record;
  const shown = e.time - readings.recordTimeLagMs;
  const offset = ctx.tz.offsetMinutes;
  return { ...e.record, timeStamp: readings.naiveTimestamps ? naiveIso(shown, offset) : isoWithOffset(shown, offset) };
}

/** Keeps the `limit` newest events (timeStamp descending, then requestId ascending) without holding them all. */
class Newest {
  private kept: WafEvent[] = [];
  constructor(private readonly limit: number) {}

  add(e: WafEvent): void {
    if (this.limit === 0) return;
    this.kept.push(e);
    if (this.kept.length >= 2 * this.limit + 1024) this.kept = this.list();
  }

  list(): WafEvent[] {
    return this.kept.sort((a, b) => b.time - a.time || (a.record.requestId < b.record.requestId ? -1 : 1)).slice(0, this.limit);
  }
}

function readActions(b: Obj): LogAction[] {
  const raw = optArr(b, 'action');
  if (!raw || raw.length === 0) throw new WafQueryError(MSG_QUERY_FAILED);
  return raw.map((item, i) => {
    const a = obj(item, `action[${i}]`);
    const name = a.metricName;
    const metricName = METRICS.find((m) => m === name);
    if (!metricName) throw new WafQueryError(MSG_BAD_METRIC);
    const p = paging(a, false, ['pageNo', 'pageSize']);
    return { metricName, pageNo: p.pageNum, pageSize: p.pageSize };
  });
}

function readFilters(b: Obj): EventPredicate[] {
  const filters = (optArr(b, 'otherFilter') ?? []).map((f) => {
    if (!isRecord(f)) throw new WafQueryError(MSG_QUERY_FAILED);
    return otherFilter(f);
  });
  const header = b.searchHeader;
  if (header === undefined || header === null) return filters;
  return [...filters, ...searchHeader(obj(header, 'searchHeader'))];
}
