// The statistics and logTread answers in one shape the checks read: every
// series with its field name, each total next to the points it should sum,
// and each bandwidth series next to the traffic of the same buckets. Pure.
import type {
  DescribeL7DataAnswer, DescribeL7DataV2Answer, DescribeL7UsageDataAnswer, DescribeLogV2Answer, OperationName,
} from '../api/index.js';
import type { RawPoint } from '../collectors/buckets.js';

export interface NamedSeries {
  /** `metricName.key`, as a config-reading operator would look for it in the answer. */
  readonly field: string;
  readonly points: readonly RawPoint[];
}

export interface TotalOf {
  readonly field: string;
  readonly total: number | undefined;
  readonly points: readonly RawPoint[] | undefined;
}

export interface BandwidthPair {
  readonly field: string;
  readonly bandwidth: readonly RawPoint[];
  readonly traffic: readonly RawPoint[];
}

export interface Trend {
  readonly operation: OperationName;
  readonly series: readonly NamedSeries[];
  readonly totals: readonly TotalOf[];
  readonly bandwidth: readonly BandwidthPair[];
}

type SeriesMap = Readonly<Record<string, unknown>> | null | undefined;

function pointsIn(map: SeriesMap, key: string): readonly RawPoint[] | undefined {
  const value = map?.[key];
  return Array.isArray(value) ? (value as RawPoint[]) : undefined;
}

function numberIn(map: SeriesMap, key: string): number | undefined {
  const value = map?.[key];
  return typeof value === 'number' ? value : undefined;
}

function seriesOf(metric: string, map: SeriesMap): NamedSeries[] {
  return Object.keys(map ?? {}).flatMap((key) => {
    const points = pointsIn(map, key);
    return points ? [{ field: `${metric}.${key}`, points }] : [];
  });
}

const ACCESS_BYTES = ['bytesSent', 'totalBytesSent', 'upstreamBytesSent'] as const;

export function accessV2Trend(answer: DescribeL7DataV2Answer): Trend {
  const item = (name: string) => answer.data.find((i) => i.metricName === name);
  const traffic = item('trafficTrend');
  const bandwidth = item('bandwidthTrend');
  const requests = item('requestTrend');
  const series = answer.data.flatMap((i) => seriesOf(i.metricName, i.objectArrayListMap));
  const totals: TotalOf[] = [
    ...ACCESS_BYTES.map((key) => ({
      field: `trafficTrend.totalMap.${key}`, total: numberIn(traffic?.totalMap, key), points: pointsIn(traffic?.objectArrayListMap, key),
    })),
    {
      field: 'requestTrend.totalMap.requestCounter',
      total: numberIn(requests?.totalMap, 'requestCounter'), points: pointsIn(requests?.objectArrayListMap, 'requestCounter'),
    },
  ];
  const bw = pointsIn(bandwidth?.objectArrayListMap, 'bytesSent');
  const tr = pointsIn(traffic?.objectArrayListMap, 'bytesSent');
  return {
    operation: 'describeL7DataV2', series, totals,
    bandwidth: bw && tr ? [{ field: 'bandwidthTrend.bytesSent', bandwidth: bw, traffic: tr }] : [],
  };
}

/** Operation 6 answers `{metricName, data: {trend}}` items (its object form carries no series). */
export function accessV1Trend(answer: DescribeL7DataAnswer): Trend {
  const items = Array.isArray(answer.data) ? answer.data : [];
  const trendOf = (name: string): readonly RawPoint[] | undefined => {
    const data = items.find((i) => i.metricName === name)?.data;
    return data && !Array.isArray(data) ? data.trend : undefined;
  };
  const series = items.flatMap((i) => {
    const points = trendOf(i.metricName);
    return points ? [{ field: `${i.metricName}.trend`, points }] : [];
  });
  const bw = trendOf('bandwidthTrend');
  const tr = trendOf('trafficTrend');
  return {
    operation: 'describeL7Data', series, totals: [],
    bandwidth: bw && tr ? [{ field: 'bandwidthTrend.trend', bandwidth: bw, traffic: tr }] : [],
  };
}

export function usageTrend(answer: DescribeL7UsageDataAnswer): Trend {
  const item = (name: string) => answer.data.find((i) => i.metricName === name);
  const traffic = item('trafficTrend');
  const bandwidth = item('bandwidthTrend');
  const series = answer.data.flatMap((i) => seriesOf(i.metricName, i.objectArrayListMap));
  const trafficMap = traffic?.objectArrayListMap;
  const totals: TotalOf[] = [
    { field: 'trafficTrend.totalMap.totalTraffic', total: numberIn(traffic?.totalMap, 'totalTraffic'), points: pointsIn(trafficMap, 'totalTraffic') },
    { field: 'trafficTrend.totalMap.inTotalTraffic', total: numberIn(traffic?.totalMap, 'inTotalTraffic'), points: pointsIn(trafficMap, 'inTraffic') },
    {
      field: 'trafficTrend.totalMap.outTotalTraffic', total: numberIn(traffic?.totalMap, 'outTotalTraffic'),
      points: pointsIn(trafficMap, 'ouTraffic') ?? pointsIn(trafficMap, 'outTraffic'),
    },
  ];
  const bw = pointsIn(bandwidth?.objectArrayListMap, 'totalBandwidth');
  const tr = pointsIn(trafficMap, 'totalTraffic');
  return {
    operation: 'describeL7UsageData', series, totals,
    bandwidth: bw && tr ? [{ field: 'bandwidthTrend.totalBandwidth', bandwidth: bw, traffic: tr }] : [],
  };
}

/** `data: null` (nothing matched) parses as []: an empty trend, which is documented, not a gap. */
export function logTreadTrend(answer: DescribeLogV2Answer): Trend {
  const item = answer.data.find((i) => i.metricName === 'logTread');
  const points = item?.objectArrayList ?? [];
  return {
    operation: 'describeLogV2',
    series: [{ field: 'logTread', points }],
    totals: [{ field: 'logTread.count', total: item?.count, points }],
    bandwidth: [],
  };
}
