// Operations 5 (access monitoring v2) and 6 (resource-monitoring variant).
// totalBytesSent is defined as bytesSent (edge) + upstreamBytesSent (origin).
// Rank metrics list {name, value} by domain (statusCodeRank: by status class),
// sorted descending and paged by pageNum/pageSize; `total` counts the entries.
import { ok, type HandlerTable, type SimRequest } from '../types.js';
import type { SimContext } from '../context.js';
import type { Readings } from '../readings.js';
import type { Interval, TrafficSample } from '../stats.js';
import {
  bandwidth, domainTotals, meanRequestTime, peak, percentile95, querySeries, skewed, totalOf, type SeriesPoint,
} from '../stats-series.js';
import { guard, interval, metricNames, obj, oneOf, paging, reqArr, reqStr, strings, type Obj } from './common.js';
import { checkOtherFilter, domainsOf, nonEmptyActions, pointsOf, ranked, statRange } from './stat-common.js';

const ACCESS_V2_METRICS = [
  'trafficTrend', 'trafficRank', 'bandwidthTrend', 'requestTrend', 'requestRank', 'statusCodeTrend', 'statusCodeRank', 'requestTimeTrend',
] as const;
const ACCESS_METRICS = [
  'trafficTrend', 'trafficRank', 'totalTraffic', 'bandwidthTrend', 'bandwidthRank', 'totalRequest', 'requestTrend', 'requestRank',
] as const;
/** `cnd` is how the document's text spells the access terminal (the sample writes cdn). */
const TERMINALS = ['cdn', 'cnd', 'source'] as const;
const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

export function accessHandlers(ctx: SimContext): HandlerTable {
  return {
    describeL7DataV2: guard((req) => accessV2(ctx, req)),
    describeL7Data: guard((req) => access(ctx, req)),
  };
}

interface Query {
  readonly ctx: SimContext;
  readonly b: Obj;
  readonly iv: Interval;
  readonly domains: string[];
  readonly begin: number;
  readonly end: number;
  readonly now: number;
  readonly series: SeriesPoint[];
  readonly readings: Readings;
}

function query(ctx: SimContext, req: SimRequest): Query {
  const b = obj(req.body);
  const iv = interval(b);
  const domains = domainsOf(ctx, strings(reqArr(b, 'domains'), 'domains'));
  const { begin, end } = statRange(ctx, b, iv, req.now);
  checkOtherFilter(b);
  return {
    ctx, b, iv, domains, begin, end, now: req.now, series: querySeries(ctx.stats, domains, iv, begin, end, req.now), readings: ctx.readings(),
  };
}

function bw(q: Query, bytes: number): number {
  return bandwidth(bytes, q.iv, q.readings.bandwidthUnit);
}

/** A totalMap value, as the totalsSkew reading reports it. */
function sum(q: Query, total: number): number {
  return skewed(total, q.readings.totalsSkew);
}

function totals(q: Query): Map<string, TrafficSample> {
  return domainTotals(q.ctx.stats, q.domains, q.iv, q.begin, q.end, q.now);
}

const BYTE_KEYS = ['upstreamBytesSent', 'totalBytesSent', 'bytesSent'] as const;
type ByteKey = (typeof BYTE_KEYS)[number];

function bytesOf(s: TrafficSample, key: ByteKey): number {
  return key === 'totalBytesSent' ? s.bytesSent + s.upstreamBytesSent : s[key];
}

function accessV2(ctx: SimContext, req: SimRequest) {
  const q = query(ctx, req);
  const names = metricNames(nonEmptyActions(q.b, true), ACCESS_V2_METRICS);
  const page = paging(q.b, false);
  const total = totalOf(q.series);
  const byKey = <V>(f: (k: ByteKey) => V) => Object.fromEntries(BYTE_KEYS.map((k) => [k, f(k)]));
  const item = (metricName: (typeof ACCESS_V2_METRICS)[number]) => {
    switch (metricName) {
      case 'trafficTrend':
        return {
          metricName,
          objectArrayListMap: byKey((k) => pointsOf(q.series, (s) => bytesOf(s, k))),
          totalMap: byKey((k) => sum(q, bytesOf(total, k))),
        };
      case 'bandwidthTrend': {
        const values = (k: ByteKey) => q.series.map((p) => bw(q, bytesOf(p.sample, k)));
        return {
          metricName,
          objectArrayListMap: byKey((k) => pointsOf(q.series, (s) => bw(q, bytesOf(s, k)))),
          maxMap: { ...byKey((k) => peak(values(k))), ...Object.fromEntries(BYTE_KEYS.map((k) => [`${k}95Peak`, percentile95(values(k))])) },
        };
      }
      case 'requestTrend':
        return { metricName, objectArrayListMap: { requestCounter: pointsOf(q.series, (s) => s.requests) }, totalMap: { requestCounter: sum(q, total.requests) } };
      case 'statusCodeTrend':
        return {
          metricName,
          objectArrayListMap: Object.fromEntries(CLASSES.map((c) => [`list${c}`, pointsOf(q.series, (s) => s[`status${c}`])])),
          totalMap: Object.fromEntries(CLASSES.map((c) => [c, sum(q, total[`status${c}`])])),
        };
      case 'requestTimeTrend':
        return { metricName, objectArrayListMap: { requestTime: pointsOf(q.series, meanRequestTime) } };
      case 'trafficRank':
        return { metricName, ...ranked([...totals(q)].map(([d, s]) => [d, s.bytesSent] as const), page) };
      case 'requestRank':
        return { metricName, ...ranked([...totals(q)].map(([d, s]) => [d, s.requests] as const), page) };
      case 'statusCodeRank':
        return { metricName, ...ranked(CLASSES.map((c) => [c, total[`status${c}`]] as const), page) };
    }
  };
  return ok({ data: names.map(item) });
}

/**
 * Operation 6 answers in the sample's array form, {metricName, data: {trend}}.
 * Totals add data.value (a string, as in the documented object form) and ranks
 * add data.list/data.total; their trend is then []. terminal source reports
 * origin traffic (upstreamBytesSent); requests are the same for both terminals.
 */
function access(ctx: SimContext, req: SimRequest) {
  const q = query(ctx, req);
  reqStr(q.b, 'mostDimension');
  const page = paging(q.b, true);
  const terminal = oneOf(reqStr(q.b, 'terminal'), TERMINALS, 'terminal');
  const names = metricNames(nonEmptyActions(q.b, true), ACCESS_METRICS);
  const traffic = (s: TrafficSample) => (terminal === 'source' ? s.upstreamBytesSent : s.bytesSent);
  const item = (metricName: (typeof ACCESS_METRICS)[number]) => {
    switch (metricName) {
      case 'trafficTrend':
        return { metricName, data: { trend: pointsOf(q.series, traffic) } };
      case 'bandwidthTrend':
        return { metricName, data: { trend: pointsOf(q.series, (s) => bw(q, traffic(s))) } };
      case 'requestTrend':
        return { metricName, data: { trend: pointsOf(q.series, (s) => s.requests) } };
      case 'totalTraffic':
        return { metricName, data: { trend: [], value: String(traffic(totalOf(q.series))) } };
      case 'totalRequest':
        return { metricName, data: { trend: [], value: String(totalOf(q.series).requests) } };
      case 'trafficRank':
        return { metricName, data: { trend: [], ...ranked([...totals(q)].map(([d, s]) => [d, traffic(s)] as const), page) } };
      case 'requestRank':
        return { metricName, data: { trend: [], ...ranked([...totals(q)].map(([d, s]) => [d, s.requests] as const), page) } };
      case 'bandwidthRank':
        return { metricName, data: { trend: [], ...ranked(q.domains.map((d) => [d, domainPeak(q, d, traffic)] as const), page) } };
    }
  };
  return ok({ data: names.map(item) });
}

function domainPeak(q: Query, domain: string, traffic: (s: TrafficSample) => number): number {
  return peak(querySeries(q.ctx.stats, [domain], q.iv, q.begin, q.end, q.now).map((p) => bw(q, traffic(p.sample))));
}
