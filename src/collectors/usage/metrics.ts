// Usage-monitoring families (describeL7UsageData per layer-7 package).
// totalTraffic / totalBandwidth are in + out and are not exported beside them.
import type { MetricDef } from '../types.js';

const OP = 'describeL7UsageData' as const;

export const PACKAGE_TRAFFIC_BYTES: MetricDef = {
  name: 'edge_package_traffic_bytes_total',
  type: 'counter',
  help: 'Bytes per layer-7 package by direction: in (received from clients) or out (sent to clients). Each settled bucket is counted once.',
  unit: 'bytes',
  labels: ['package', 'direction'],
  source: { operation: OP, field: 'trafficTrend objectArrayListMap.inTraffic (in) / ouTraffic (out)' },
};

export const PACKAGE_BANDWIDTH: MetricDef = {
  name: 'edge_package_bandwidth_bytes_per_second',
  type: 'gauge',
  help: 'Bandwidth per layer-7 package and direction in the latest settled bucket (the upstream bits per second over the bucket, divided by 8).',
  unit: 'bytes_per_second',
  labels: ['package', 'direction'],
  source: { operation: OP, field: 'bandwidthTrend objectArrayListMap.inBandwidth / outBandwidth' },
};

export const PACKAGE_BANDWIDTH_PEAK: MetricDef = {
  name: 'edge_package_bandwidth_peak_bytes_per_second',
  type: 'gauge',
  help: 'Highest bucket bandwidth per layer-7 package and direction over the summary window, as the upstream reports it.',
  unit: 'bytes_per_second',
  labels: ['package', 'direction'],
  source: { operation: OP, field: 'bandwidthTrend totalMap.maxInBandwidth / maxOutBandwidth' },
};

export const USAGE_FAMILIES: readonly MetricDef[] = [PACKAGE_TRAFFIC_BYTES, PACKAGE_BANDWIDTH, PACKAGE_BANDWIDTH_PEAK];

export const DIRECTIONS = ['in', 'out'] as const;
