// Access-monitoring families (describeL7DataV2 per domain; describeL7Data as
// the configured `api: v1` alternative). totalBytesSent is edge + origin, so
// it is not exported beside its parts: sum() over `source` gives it.
import { counter, gauge } from '../metric-def.js';
import type { MetricDef } from '../collector.js';

const V2 = 'describeL7DataV2' as const;

export const DOMAIN_TRAFFIC_BYTES = counter('edge_domain_traffic_bytes_total',
  'Bytes sent per domain, by source: edge (to clients) or origin (fetched from the origin). Each settled bucket is counted once.',
  'bytes', ['domain', 'source'], V2, 'trafficTrend objectArrayListMap.bytesSent (edge) / upstreamBytesSent (origin)');
export const DOMAIN_REQUESTS = counter('edge_domain_requests_total',
  'Requests per domain. Each settled bucket is counted once.',
  'requests', ['domain'], V2, 'requestTrend objectArrayListMap.requestCounter');
export const DOMAIN_RESPONSES = counter('edge_domain_responses_total',
  'Responses per domain by HTTP status class (1xx to 5xx). Each settled bucket is counted once.',
  'requests', ['domain', 'code_class'], V2, 'statusCodeTrend objectArrayListMap.list1xx..list5xx');
export const DOMAIN_BANDWIDTH = gauge('edge_domain_bandwidth_bytes_per_second',
  'Bandwidth per domain and source in the latest settled bucket (the upstream bits per second over the bucket, divided by 8).',
  'bytes_per_second', ['domain', 'source'], V2, 'bandwidthTrend objectArrayListMap.bytesSent / upstreamBytesSent');
export const DOMAIN_BANDWIDTH_PEAK = gauge('edge_domain_bandwidth_peak_bytes_per_second',
  'Highest bucket bandwidth per domain and source over the summary window, as the upstream reports it.',
  'bytes_per_second', ['domain', 'source'], V2, 'bandwidthTrend maxMap.bytesSent / upstreamBytesSent');
export const DOMAIN_BANDWIDTH_P95 = gauge('edge_domain_bandwidth_p95_bytes_per_second',
  '95th-percentile bucket bandwidth per domain and source over the summary window, as the upstream reports it.',
  'bytes_per_second', ['domain', 'source'], V2, 'bandwidthTrend maxMap.bytesSent95Peak / upstreamBytesSent95Peak');
export const DOMAIN_REQUEST_TIME = gauge('edge_domain_request_time_seconds',
  'Average request duration per domain in the latest settled bucket (upstream milliseconds converted to seconds).',
  'seconds', ['domain'], V2, 'requestTimeTrend objectArrayListMap.requestTime');

export const ACCESS_V2_FAMILIES: readonly MetricDef[] = [
  DOMAIN_TRAFFIC_BYTES, DOMAIN_REQUESTS, DOMAIN_RESPONSES,
  DOMAIN_BANDWIDTH, DOMAIN_BANDWIDTH_PEAK, DOMAIN_BANDWIDTH_P95, DOMAIN_REQUEST_TIME,
];

const v1 = (def: MetricDef, field: string): MetricDef => ({ ...def, source: { operation: 'describeL7Data', field } });

/**
 * The resource-monitoring variant has no status classes, request time or
 * percentile; the peak is the highest bucket of its bandwidth trend.
 */
export const ACCESS_V1_FAMILIES: readonly MetricDef[] = [
  v1(DOMAIN_TRAFFIC_BYTES, 'trafficTrend data.trend (terminal cdn: edge, source: origin)'),
  v1(DOMAIN_REQUESTS, 'requestTrend data.trend (terminal cdn)'),
  v1(DOMAIN_BANDWIDTH, 'bandwidthTrend data.trend (terminal cdn: edge, source: origin)'),
  v1(DOMAIN_BANDWIDTH_PEAK, 'bandwidthTrend data.trend, highest point in the summary window'),
];

export const SOURCES = ['edge', 'origin'] as const;
export type Source = (typeof SOURCES)[number];
export const CODE_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
