// Top-N families (describeL7MostData, one request per mostDimension with every
// configured dimension in it). Both are gauges over a window, replaced each
// cycle: a key that drops out of the top N disappears.
import { gauge } from '../metric-def.js';
import type { MetricDef } from '../collector.js';

const OP = 'describeL7MostData';

export const TOPN_REQUESTS = gauge('edge_topn_requests',
  'Requests of the top N values of a dimension (url, ip, referer, ...) over the configured window; key="__other__" holds the rest when enabled.',
  'requests', ['dimension', 'key'], OP, 'mostDimension=requestCount data.list[].value (key: name), data.total');
export const TOPN_TRAFFIC_BYTES = gauge('edge_topn_traffic_bytes',
  'Bytes sent for the top N values of a dimension over the configured window; key="__other__" holds the rest when enabled.',
  'bytes', ['dimension', 'key'], OP, 'mostDimension=trafficSum data.list[].value (key: name), data.total');

export const TOPN_FAMILIES: readonly MetricDef[] = [TOPN_REQUESTS, TOPN_TRAFFIC_BYTES];

export type TopnBy = 'requestCount' | 'trafficSum';
export const FAMILY_BY: Readonly<Record<TopnBy, MetricDef>> = { requestCount: TOPN_REQUESTS, trafficSum: TOPN_TRAFFIC_BYTES };

/** The `key` of the series summing everything outside the top N. */
export const OTHER_KEY = '__other__';
