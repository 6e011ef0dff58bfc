// CC-attack families (describeL7CCAttack; all four metricNames in one
// request). The item shapes are not documented: the gauges appear only when
// the answer holds a shape cc-attack/parse.ts recognises.
import { counter, gauge } from '../metric-def.js';
import type { MetricDef } from '../collector.js';

const OP = 'describeL7CCAttack' as const;

export const CC_ATTACK_REQUESTS = counter('edge_cc_attack_requests_total',
  'Requests classified as CC attack, account-wide. Each settled bucket is counted once.',
  'requests', [], OP, 'ccPolicyTrend data.trend');

/** The same family when the collector is configured per domain. */
export const CC_ATTACK_REQUESTS_BY_DOMAIN: MetricDef = {
  ...CC_ATTACK_REQUESTS,
  help: 'Requests classified as CC attack, per domain. Each settled bucket is counted once.',
  labels: ['domain'],
  source: { operation: OP, field: 'ccPolicyTrend data.trend (one request per domain)' },
};

export const CC_ATTACKED_DOMAINS = gauge('edge_cc_attacked_domains',
  'Domains that saw CC attack requests in the summary window.',
  'count', [], OP, 'attack_detail data.attackedDomains');
export const CC_ATTACK_PEAK_REQUESTS = gauge('edge_cc_attack_peak_requests',
  'CC attack requests in the busiest bucket of the summary window.',
  'requests', [], OP, 'attack_detail data.peakRequests');
export const CC_TOP_DOMAIN_ATTACK_REQUESTS = gauge('edge_cc_top_domain_attack_requests',
  'CC attack requests of the most attacked domains in the summary window (the first page the upstream returns).',
  'requests', ['domain'], OP, 'domain data.list[].value (domain: name)');
export const CC_TOP_USER_AGENT_ATTACK_REQUESTS = gauge('edge_cc_top_user_agent_attack_requests',
  'CC attack requests of the most frequent attacking user agents in the summary window (the first page the upstream returns).',
  'requests', ['user_agent'], OP, 'http_user_agent data.list[].value (user_agent: name)');

export const CC_GAUGES: readonly MetricDef[] = [
  CC_ATTACKED_DOMAINS, CC_ATTACK_PEAK_REQUESTS, CC_TOP_DOMAIN_ATTACK_REQUESTS, CC_TOP_USER_AGENT_ATTACK_REQUESTS,
];
