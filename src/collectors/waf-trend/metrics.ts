// WAF event counts (describeLogV2 logTread), one series per action and
// severity; the six series partition the events, so sum() is the total.
import { counter } from '../metric-def.js';
import type { MetricDef } from '../collector.js';

export const WAF_EVENTS = counter('edge_waf_events_total',
  'WAF log events by action (deny: blocked with 417, pass: allowed) and severity (高风险 high, 中风险 medium, 低风险 low). Each settled bucket is counted once.',
  'events', ['action', 'severity'], 'describeLogV2', 'logTread objectArrayList (searchHeader action + severityLevel)');

export const WAF_TREND_FAMILIES: readonly MetricDef[] = [WAF_EVENTS];

export const WAF_ACTIONS = ['deny', 'pass'] as const;
/** Upstream severityLevel -> label value. */
export const SEVERITY_LABEL = { 高风险: 'high', 中风险: 'medium', 低风险: 'low' } as const;
export type SeverityLevel = keyof typeof SEVERITY_LABEL;
export const SEVERITY_LEVELS: readonly SeverityLevel[] = ['高风险', '中风险', '低风险'];
