// Usage-monitoring families (describeL7UsageData per layer-7 package).
// totalTraffic / totalBandwidth are in + out and are not exported beside them.
import { counter, gauge } from '../metric-def.js';
import type { MetricDef } from '../collector.js';

const OP = 'describeL7UsageData' as const;

export const PACKAGE_TRAFFIC_BYTES = counter('edge_package_traffic_bytes_total',
  'Bytes per layer-7 package by direction: in (received from clients) or out (sent to clients). Each settled bucket is counted once.',
  'bytes', ['package', 'direction'], OP, 'trafficTrend objectArrayListMap.inTraffic (in) / ouTraffic (out)');
export const PACKAGE_BANDWIDTH = gauge('edge_package_bandwidth_bytes_per_second',
  'Bandwidth per layer-7 package and direction in the latest settled bucket (the upstream bits per second over the bucket, divided by 8).',
  'bytes_per_second', ['package', 'direction'], OP, 'bandwidthTrend objectArrayListMap.inBandwidth / outBandwidth');
export const PACKAGE_BANDWIDTH_PEAK = gauge('edge_package_bandwidth_peak_bytes_per_second',
  'Highest bucket bandwidth per layer-7 package and direction over the summary window, as the upstream reports it.',
  'bytes_per_second', ['package', 'direction'], OP, 'bandwidthTrend totalMap.maxInBandwidth / maxOutBandwidth');

export const USAGE_FAMILIES: readonly MetricDef[] = [PACKAGE_TRAFFIC_BYTES, PACKAGE_BANDWIDTH, PACKAGE_BANDWIDTH_PEAK];

export const DIRECTIONS = ['in', 'out'] as const;
