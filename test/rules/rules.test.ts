// The Prometheus rules in prometheus/: promtool must accept them and pass
// their unit tests (a missing promtool fails, never skips), every alert must
// have a firing and a quiet unit test and a runbook entry, and every metric,
// label and label value the rules use must exist in the exporter, so
// renaming one breaks this test rather than silently breaking an alert.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiErrorCode } from '../../src/api/index.js';
import { CODE_CLASSES, SOURCES } from '../../src/collectors/access/metrics.js';
import { CERTIFICATE_STATUS, DOMAIN_STATE, L4_PACKAGE_STATE, LIVE_ORDER_STATUS, UNKNOWN_STATE } from '../../src/collectors/inventory/metrics.js';
import { allCollectors, buildCollectors } from '../../src/daemon/wiring/collectors.js';
import { DIRECTIONS } from '../../src/collectors/usage/metrics.js';
import { AUDIT_OUTCOMES } from '../../src/forwarder/index.js';
import { SEVERITY_LABEL, WAF_ACTIONS } from '../../src/collectors/waf-trend/metrics.js';
import { configSchema, loadConfig, resolveCollectorOptions } from '../../src/config/index.js';
import { checkRules, testRules } from '../support/promtool.js';
import {
  documentedMetrics, edgeMatchers, edgeMetricNames, loadRules, loadUnitTests, recordedNames, ROOT, RULES_DIR,
  RUNBOOK_BASE_RECORD, runbookAnchor, runbookTemplate, TESTS_DIR, ymlFiles,
} from './rule-files.js';

const ruleFiles = ymlFiles(RULES_DIR);
const testFiles = ymlFiles(TESTS_DIR);
const { alerts, records } = loadRules(ruleFiles);
const unitTests = loadUnitTests(testFiles);
const alertTests = unitTests.flatMap((t) => t.alertTests);
const exprTests = unitTests.flatMap((t) => t.exprTests);
const metrics = documentedMetrics();
const recordNames = new Set(records.map((r) => r.record));
const alertsDoc = readFileSync(join(ROOT, 'docs', 'alerts.md'), 'utf8');

/** Every outcome of edge_exporter_upstream_requests_total; `satisfies` makes tsc fail when the error codes change. */
const UPSTREAM_OUTCOMES = Object.keys({
  success: true, EDGE_VALIDATION: true, EDGE_AUTH: true, EDGE_PERMISSION: true, EDGE_NOT_FOUND: true, EDGE_UPSTREAM: true,
  EDGE_RATE_LIMITED: true, EDGE_HTTP: true, EDGE_BAD_RESPONSE: true, EDGE_BODY_TOO_LARGE: true, EDGE_TIMEOUT: true,
  EDGE_NETWORK: true, EDGE_ABORTED: true,
} satisfies Record<ApiErrorCode | 'success', true>);

const collectorNames = allCollectors(resolveCollectorOptions(configSchema.parse({ simulator: { enabled: true } }))).map((c) => c.name);
const states = (def: { stateLabel: string; states: readonly { state: string }[] }) =>
  ({ [def.stateLabel]: [...def.states.map((s) => s.state), UNKNOWN_STATE] });

/** Label values the rules may match on, per metric and label, from the exporter's own constants. */
const KNOWN_VALUES: Record<string, Record<string, readonly string[]>> = {
  edge_domain_responses_total: { code_class: CODE_CLASSES },
  edge_domain_traffic_bytes_total: { source: SOURCES },
  edge_domain_bandwidth_bytes_per_second: { source: SOURCES },
  edge_package_bandwidth_bytes_per_second: { direction: DIRECTIONS },
  edge_package_traffic_bytes_total: { direction: DIRECTIONS },
  edge_waf_events_total: { action: WAF_ACTIONS, severity: Object.values(SEVERITY_LABEL) },
  edge_domain_state: states(DOMAIN_STATE),
  edge_l4_package_state: states(L4_PACKAGE_STATE),
  edge_certificate_status: states(CERTIFICATE_STATUS),
  edge_live_order_status: states(LIVE_ORDER_STATUS),
  edge_exporter_upstream_requests_total: { outcome: UPSTREAM_OUTCOMES },
  edge_exporter_waf_audit_buckets_total: { outcome: AUDIT_OUTCOMES },
};

/** Everything PromQL in a rule: its expression and the query templates in its annotations. */
const promqlOf = (rule: { expr: string; annotations?: Record<string, string> }) =>
  [rule.expr, ...Object.values(rule.annotations ?? {})].join('\n');

describe('promtool', () => {
  it('check rules: every rule file is valid, with no lint findings', async () => {
    expect(ruleFiles.map((f) => basename(f))).toEqual(['edge-exporter.alerts.yml', 'edge-exporter.rules.yml', 'edge-exporter.settings.yml']);
    const result = await checkRules(ruleFiles);
    expect(result.ok, result.output).toBe(true);
    // Nothing but "Checking <file>" and "SUCCESS: n rules found" per file: no warnings.
    const lines = result.output.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    expect(lines).toHaveLength(2 * ruleFiles.length);
    for (const [i, file] of ruleFiles.entries()) {
      expect(lines[2 * i]).toBe(`Checking ${file}`);
      expect(lines[2 * i + 1]).toMatch(/^SUCCESS: [1-9]\d* rules found$/);
    }
  }, 60_000);

  it('test rules: every unit test passes', async () => {
    expect(testFiles.length).toBeGreaterThanOrEqual(4);
    const result = await testRules(testFiles);
    expect(result.ok, result.output).toBe(true);
    expect(result.output.match(/^\s+SUCCESS$/gm), result.output).toHaveLength(testFiles.length);
  }, 120_000);

  it('fails loudly when promtool is missing', async () => {
    await expect(checkRules(ruleFiles, { bin: 'promtool-that-does-not-exist' })).rejects.toThrow(/not found: run scripts\/install-test-deps.sh/);
  });
});

describe('unit test coverage', () => {
  it('finds the rules and tests', () => {
    expect(alerts.length).toBeGreaterThanOrEqual(19);
    expect(records.length).toBeGreaterThanOrEqual(14);
    expect(new Set(alerts.map((a) => a.alert)).size, 'alert names are unique').toBe(alerts.length);
  });

  it.each(alerts.map((a) => [a.alert, a] as const))('%s fires in a test, with labels and annotations checked', (name, alert) => {
    const firing = alertTests.filter((t) => t.alertname === name && (t.exp_alerts ?? []).length > 0);
    expect(firing, `no test where ${name} fires`).not.toHaveLength(0);
    for (const exp of firing.flatMap((t) => t.exp_alerts ?? [])) {
      expect(exp.exp_labels?.severity).toBe(alert.labels.severity);
      expect(Object.keys(exp.exp_annotations ?? {}).sort()).toEqual(Object.keys(alert.annotations).sort());
    }
  });

  it.each(alerts.map((a) => a.alert))('%s stays quiet in a test', (name) => {
    const quiet = alertTests.filter((t) => t.alertname === name && (t.exp_alerts ?? []).length === 0);
    expect(quiet, `no test where ${name} must not fire`).not.toHaveLength(0);
  });

  // promtool runs groups in no fixed order; an alert group evaluated before a
  // recording group it reads would see the previous evaluation's values.
  it.each(unitTests.map((t) => [basename(t.file), t] as const))('%s evaluates every recording group before the alerts', (_file, t) => {
    const { groups } = loadRules(t.ruleFiles);
    expect([...t.groupEvalOrder].sort()).toEqual(groups.map((g) => g.name).sort());
    const firstAlerting = t.groupEvalOrder.findIndex((name) => groups.find((g) => g.name === name)?.alerting);
    const lastRecording = t.groupEvalOrder.findLastIndex((name) => !groups.find((g) => g.name === name)?.alerting);
    if (firstAlerting >= 0) expect(lastRecording).toBeLessThan(firstAlerting);
  });

  it('tests only alerts that exist', () => {
    const names = new Set(alerts.map((a) => a.alert));
    expect(alertTests.map((t) => t.alertname).filter((n) => !names.has(n))).toEqual([]);
  });

  it.each([...recordNames])('%s is checked by a promql_expr_test', (record) => {
    const tests = exprTests.filter((t) => recordedNames(t.expr).includes(record) && (t.exp_samples ?? []).length > 0);
    expect(tests, `no promql_expr_test with samples of ${record}`).not.toHaveLength(0);
  });
});

describe('alert conventions', () => {
  it.each(alerts.map((a) => [a.alert, a] as const))('%s has a severity, a summary, a description and a runbook entry', (name, alert) => {
    expect(name).toMatch(/^Edge[A-Z][A-Za-z0-9]+$/);
    expect(['warning', 'critical']).toContain(alert.labels.severity);
    expect(alert.annotations.summary).toMatch(/\{\{ \$labels\.\w+ \}\}|\{\{ \$value/);
    expect(alert.annotations.description).toMatch(/\{\{ \$(labels\.\w+|value)/);
    expect(alert.annotations.runbook_url).toBe(runbookTemplate(name));
    expect(alertsDoc).toMatch(new RegExp(`^### ${name}$`, 'm'));
  });

  // Alertmanager, Slack and PagerDuty show runbook_url as a link only when it is absolute.
  it('every firing unit test expects the absolute runbook URL, from the one base in the settings', () => {
    const bases = records.filter((r) => r.record === RUNBOOK_BASE_RECORD);
    expect(bases).toHaveLength(1);
    expect(basename(bases[0]?.file ?? '')).toBe('edge-exporter.settings.yml');
    const base = bases[0]?.labels.url ?? '';
    expect(new URL(base).protocol).toBe('https:');
    expect(base).not.toMatch(/\/$/);
    const firing = alertTests.flatMap((t) => (t.exp_alerts ?? []).map((e) => [t.alertname, e.exp_annotations?.runbook_url] as const));
    expect(firing.length).toBeGreaterThanOrEqual(alerts.length);
    for (const [name, url] of firing) expect(url, name).toBe(`${base}/${runbookAnchor(name)}`);
  });

  // The cause of a failure is on the alert, not only in another metric and the log.
  it.each([
    ['EdgeExporterWafExportFailing', 'ECONNREFUSED'],
    ['EdgeExporterUpstreamAuthFailures', 'EDGE_AUTH'],
  ])('%s carries the failure code as its `code` label', (name, code) => {
    const labels = alertTests.filter((t) => t.alertname === name).flatMap((t) => (t.exp_alerts ?? []).map((e) => e.exp_labels));
    expect(labels.length).toBeGreaterThan(0);
    for (const l of labels) expect(l?.code).toBe(code);
  });

  it('docs/alerts.md describes no alert that does not exist', () => {
    const names = new Set(alerts.map((a) => a.alert));
    const headings = [...alertsDoc.matchAll(/^### (Edge\w+)$/gm)].map((m) => m[1] ?? '');
    expect(headings.filter((h) => !names.has(h))).toEqual([]);
  });
});

describe('metrics the rules use', () => {
  const rules = [...alerts, ...records];

  it.each(rules.map((r) => ['alert' in r ? r.alert : r.record, r] as const))('%s uses documented metrics and defined records', (_name, rule) => {
    const text = promqlOf(rule);
    for (const name of edgeMetricNames(text)) {
      const base = name.replace(/_(bucket|sum|count)$/, '');
      const known = metrics.has(name) || (base !== name && metrics.get(base)?.type === 'histogram');
      expect(known, `${name} is not in docs/metrics.md`).toBe(true);
    }
    for (const name of recordedNames(rule.expr)) expect(recordNames, `${name} is not recorded by any rule`).toContain(name);
  });

  // A daemon serving several accounts adds `account` to every family but its daemon-wide self-metrics (issue 38).
  const DAEMON_WIDE = /^edge_exporter_(remote_write_|otlp_metrics_|config_|build_info$)/;

  it.each(rules.map((r) => ['alert' in r ? r.alert : r.record, r] as const))('%s matches documented labels and values', (_name, rule) => {
    for (const m of edgeMatchers(promqlOf(rule))) {
      const labels = [...(metrics.get(m.metric)?.labels ?? []), 'job', 'instance', ...(DAEMON_WIDE.test(m.metric) ? [] : ['account'])];
      expect(labels, `${m.metric} has no label ${m.label}`).toContain(m.label);
      const known = KNOWN_VALUES[m.metric]?.[m.label];
      if (!known || m.value === '%q' || m.op.startsWith('!')) continue;
      for (const value of m.op === '=~' ? m.value.split('|') : [m.value]) {
        expect(known, `${m.metric}{${m.label}} never has the value ${value}`).toContain(value);
      }
    }
  });

  // Rules allowed to read a counter raw, and why.
  const RAW_COUNTERS: Readonly<Record<string, string>> = {
    // The series appears at 1 in the process that reset, so increase() never sees its first step.
    EdgeExporterStateReset: 'edge_exporter_state_resets_total',
  };

  it('uses counters only inside rate() or increase()', () => {
    for (const rule of rules) {
      for (const m of rule.expr.matchAll(/(?<![\w:])edge_[a-z0-9_]+_total(?![\w:])/g)) {
        expect(metrics.get(m[0])?.type).toBe('counter');
        if ('alert' in rule && RAW_COUNTERS[rule.alert] === m[0]) continue;
        expect(rule.expr.slice(0, m.index), `${m[0]} used raw in ${'alert' in rule ? rule.alert : rule.record}`).toMatch(/\b(rate|increase)\($/);
      }
    }
  });
});

describe('settings', () => {
  const intervals = records.filter((r) => r.record === 'collector:edge_exporter_collector_interval_seconds:configured');
  const seconds = (r: { expr: string }) => Number(/^vector\((\d+)\)$/.exec(r.expr.trim())?.[1]);

  it('name only collectors that exist', () => {
    for (const r of intervals) if (r.labels.collector !== undefined) expect(collectorNames).toContain(r.labels.collector);
  });

  it('give each collector of config.example.yaml its interval', () => {
    const fallback = intervals.find((r) => r.labels.collector === undefined);
    expect(fallback, 'a default interval (no collector label)').toBeDefined();
    const config = loadConfig({ file: join(ROOT, 'config.example.yaml'), env: {} });
    for (const { collector, schedule } of buildCollectors(resolveCollectorOptions(config))) {
      expect(schedule.kind).toBe('interval');
      const configured = intervals.find((r) => r.labels.collector === collector.name) ?? fallback;
      expect(configured && seconds(configured), collector.name).toBe(schedule.kind === 'interval' ? schedule.everyMs / 1000 : NaN);
    }
  });
});
