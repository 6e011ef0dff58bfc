// Operation 4, usage monitoring: inbound/outbound traffic and bandwidth of
// packages or domains. Out traffic is the edge's bytesSent, in traffic the
// inbound bytes. The shapes of the totalTraffic and totalBandwidth items are
// not documented; they reuse the totalMap of their trend counterpart with an
// empty objectArrayListMap.
import { ok, type HandlerTable, type SimRequest } from '../types.js';
import type { SimContext } from '../context.js';
import type { Readings } from '../readings.js';
import type { Interval } from '../stats.js';
import { bandwidth, peak, querySeries, skewed, totalOf, type SeriesPoint } from '../stats-series.js';
import { guard, interval, metricNames, obj, reqArr, strings } from './common.js';
import { nonEmptyActions, oidDomains, pointsOf, statRange } from './stat-common.js';

const USAGE_METRICS = ['trafficTrend', 'totalTraffic', 'bandwidthTrend', 'totalBandwidth'] as const;
type UsageMetric = (typeof USAGE_METRICS)[number];

export function usageHandlers(ctx: SimContext): HandlerTable {
  return { describeL7UsageData: guard((req) => usage(ctx, req)) };
}

function usage(ctx: SimContext, req: SimRequest) {
  const b = obj(req.body);
  const iv = interval(b);
  const domains = oidDomains(ctx, strings(reqArr(b, 'oids'), 'oids'));
  const { begin, end } = statRange(ctx, b, iv, req.now);
  const names = metricNames(nonEmptyActions(b, true), USAGE_METRICS);
  const series = querySeries(ctx.stats, domains, iv, begin, end, req.now);
  const readings = ctx.readings();
  return ok({ data: names.map((name) => usageItem(name, series, iv, readings)) });
}

function usageItem(metricName: UsageMetric, series: readonly SeriesPoint[], iv: Interval, readings: Readings) {
  const total = totalOf(series);
  // totalTraffic reuses this totalMap, so the totalsSkew reading skews it the same way.
  const sum = (v: number) => skewed(v, readings.totalsSkew);
  const trafficTotals = {
    inTotalTraffic: sum(total.inBytes),
    outTotalTraffic: sum(total.bytesSent),
    totalTraffic: sum(total.inBytes + total.bytesSent),
  };
  const bw = (bytes: number) => bandwidth(bytes, iv, readings.bandwidthUnit);
  const inBw = pointsOf(series, (s) => bw(s.inBytes));
  const outBw = pointsOf(series, (s) => bw(s.bytesSent));
  const totalBw = pointsOf(series, (s) => bw(s.inBytes + s.bytesSent));
  const bandwidthPeaks = {
    maxInBandwidth: peak(inBw.map((p) => p[1])),
    maxOutBandwidth: peak(outBw.map((p) => p[1])),
    maxTotalBandwidth: peak(totalBw.map((p) => p[1])),
  };
  switch (metricName) {
    case 'trafficTrend':
      return {
        metricName,
        objectArrayListMap: {
          inTraffic: pointsOf(series, (s) => s.inBytes),
          ouTraffic: pointsOf(series, (s) => s.bytesSent),
          totalTraffic: pointsOf(series, (s) => s.inBytes + s.bytesSent),
        },
        totalMap: trafficTotals,
      };
    case 'totalTraffic':
      return { metricName, objectArrayListMap: {}, totalMap: trafficTotals };
    case 'bandwidthTrend':
      return { metricName, objectArrayListMap: { inBandwidth: inBw, outBandwidth: outBw, totalBandwidth: totalBw }, totalMap: bandwidthPeaks };
    case 'totalBandwidth':
      return { metricName, objectArrayListMap: {}, totalMap: bandwidthPeaks };
  }
}
