// edge_waf_rule_info from deny events: which fields make the labels (a
// table of upstream records through the real conversion), one series per
// rule id whatever its description did, the series cap, and forgetting by
// the read position.
import { describe, expect, it } from 'vitest';
import { wafLogRecord } from '../../src/api/schemas/waf-log.js';
import type { Sample } from '../../src/collectors/collector.js';
import { toLogEvent } from '../../src/forwarder/convert.js';
import { RuleInfo } from '../../src/forwarder/rule-info.js';
import type { LogEvent } from '../../src/forwarder/log-sink.js';

const HOUR = 3_600_000;
const T = Date.UTC(2026, 2, 2, 4, 0, 0);

interface RuleFields { ruleId?: unknown; ruleMessage?: string; group?: string }

/** A deny record as the upstream sends it, its rules as given, through the answer schema and the converter. */
function deny(rules: readonly RuleFields[], requestId = 'r1'): LogEvent {
  const record = wafLogRecord.parse({
    oid: 'pkg-1', requestId, wafId: '7', clientIp: '203.0.113.9', hostPort: 443, timeStamp: '2026-03-02T12:00:00+08:00',
    severityLevel: '高风险', response: { httpCode: 417 }, geoip: null, ua: null,
    request: { method: 'GET', uri: '/', headers: { host: 'a.example.com' } },
    rules: rules.map((r) => ({ ruleId: '942100', ruleMessage: 'SQL Injection', group: 'attack-sqli', severity: 'CRITICAL', severityLevel: '高风险', ...r })),
  });
  return toLogEvent(record, T);
}

const infoOf = (events: readonly LogEvent[], rules = new RuleInfo(100, HOUR)): Sample[] => {
  rules.see(events, T);
  return rules.samples();
};

describe('edge_waf_rule_info labels from a deny event', () => {
  it.each<[string, RuleFields[], Array<Record<string, string>>]>([
    ['ruleMessage is the description, group the category', [{ ruleId: '913100', ruleMessage: 'Found User-Agent associated with security scanner', group: 'attack-reputation-scanner' }],
      [{ rule_id: '913100', description: 'Found User-Agent associated with security scanner', category: 'attack-reputation-scanner' }]],
    ['only the primary rule (rules[0]), the one the denied counter names', [{ ruleId: '942100' }, { ruleId: '949110', ruleMessage: 'Inbound Anomaly Score Exceeded', group: 'blocking-evaluation' }],
      [{ rule_id: '942100', description: 'SQL Injection', category: 'attack-sqli' }]],
    ['a numeric ruleId (the document types it int64) as its decimal text', [{ ruleId: 100010, ruleMessage: 'CC 防护: 访问频率超过阈值', group: 'cc-protection' }],
      [{ rule_id: '100010', description: 'CC 防护: 访问频率超过阈值', category: 'cc-protection' }]],
    ['an empty message or group stays empty (the upstream said nothing)', [{ ruleId: '920300', ruleMessage: '', group: '' }],
      [{ rule_id: '920300', description: '', category: '' }]],
    ['no matched rule: no series (nothing to describe)', [], []],
  ])('%s', (_what, rules, expected) => {
    const samples = infoOf([deny(rules)]);
    expect(samples.map((s) => s.labels)).toEqual(expected);
    expect(samples.every((s) => s.name === 'edge_waf_rule_info' && s.value === 1)).toBe(true);
  });
});

describe('RuleInfo', () => {
  it('keeps one series per rule id: a changed description replaces the old series', () => {
    const rules = new RuleInfo(100, HOUR);
    rules.see([deny([{ ruleId: '942100', ruleMessage: 'old text', group: 'attack-sqli' }], 'a')], T);
    rules.see([deny([{ ruleId: '942100', ruleMessage: 'new text', group: 'attack-injection' }], 'b')], T + 60_000);
    expect(rules.samples().map((s) => s.labels)).toEqual([{ rule_id: '942100', description: 'new text', category: 'attack-injection' }]);
  });

  it('holds at most the series cap of rules; later rules are left out and counted, known ones still update', () => {
    const rules = new RuleInfo(2, HOUR);
    rules.see(['1', '2', '3', '3'].map((id, i) => deny([{ ruleId: id }], `r${i}`)), T);
    rules.see([deny([{ ruleId: '2', ruleMessage: 'renamed' }], 'r9')], T);
    expect(rules.samples().map((s) => [s.labels.rule_id, s.labels.description])).toEqual([['1', 'SQL Injection'], ['2', 'renamed']]);
    expect(rules.dropped).toBe(2);
  });

  it('forgets a rule absent from forget_after of events read, and only then; a forgotten rule makes room', () => {
    const rules = new RuleInfo(2, HOUR);
    rules.see([deny([{ ruleId: '1' }], 'a')], T);
    rules.see([deny([{ ruleId: '2' }], 'b')], T + 30 * 60_000);
    rules.forget(T + HOUR - 1);
    expect(rules.samples().map((s) => s.labels.rule_id)).toEqual(['1', '2']);
    rules.forget(T + HOUR);
    expect(rules.samples().map((s) => s.labels.rule_id)).toEqual(['2']);
    // Seen again: its clock starts over.
    rules.see([deny([{ ruleId: '2' }], 'c')], T + 80 * 60_000);
    rules.see([deny([{ ruleId: '3' }], 'd')], T + 80 * 60_000);
    rules.forget(T + 130 * 60_000);
    expect(rules.samples().map((s) => s.labels.rule_id)).toEqual(['2', '3']);
    expect(rules.dropped).toBe(0);
  });
});
