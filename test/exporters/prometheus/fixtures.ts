// Metric definitions shaped by the naming rules, and a realistic published state with hundreds of series.
import type { MetricDef, Sample, MetricUnit } from '../../../src/collectors/collector.js';
import { Exposition } from '../../../src/exporters/prometheus/exposition.js';
import { FamilyStore } from '../../../src/exporters/prometheus/family-store.js';
import { SelfMetrics } from '../../../src/exporters/prometheus/self-metrics.js';

export function def(name: string, type: MetricDef['type'], labels: readonly string[], unit: MetricUnit = 'count', help = `Help for ${name}.`): MetricDef {
  return { name, type, help, unit, labels, source: { operation: 'describeL7DataV2', field: 'testField' } };
}

export function sample(name: string, labels: Record<string, string>, value: number, timestampMs?: number): Sample {
  return timestampMs === undefined ? { name, labels, value } : { name, labels, value, timestampMs };
}

const ACCESS_DEFS: readonly MetricDef[] = [
  def('edge_domain_traffic_bytes_total', 'counter', ['domain', 'source'], 'bytes', 'Bytes served, by side ("edge" to clients, "origin" from the origin).'),
  def('edge_domain_requests_total', 'counter', ['domain'], 'requests', 'Requests served.'),
  def('edge_domain_responses_total', 'counter', ['domain', 'code_class'], 'requests', 'Responses by status-code class.'),
  // The naming rules' `_bits_per_second` (and `_days_left`) fail promtool's base-unit lint; bytes pass.
  def('edge_domain_bandwidth_bytes_per_second', 'gauge', ['domain', 'source'], 'bytes', 'Bandwidth of the latest settled bucket.'),
  def('edge_domain_request_time_seconds', 'gauge', ['domain'], 'seconds', 'Average request time of the latest settled bucket.'),
];

const OTHER_DEFS: readonly MetricDef[] = [
  def('edge_topn_requests', 'gauge', ['dimension', 'key'], 'requests', 'Requests of the top-N keys over the window.'),
  def('edge_waf_events_total', 'counter', ['action', 'severity'], 'events', 'WAF events by action and severity.'),
  def('edge_cc_attack_requests_total', 'counter', [], 'requests', 'CC attack requests, account level.'),
  def('edge_package_info', 'gauge', ['package', 'name'], 'info', 'Layer-7 packages; always 1.'),
  def('edge_domain_state', 'gauge', ['domain', 'state'], 'state', 'Domain state as a state set (1 for the current state).'),
  def('edge_domain_certificate_expiry_timestamp_seconds', 'gauge', ['domain'], 'timestamp_seconds', 'Certificate expiry time.'),
  def('edge_l4_package_ports_used', 'gauge', ['oid'], 'ports', 'Ports used by the layer-4 package.'),
];

const DOMAIN_STATES = ['configuring', 'active', 'paused'] as const;

/** A store holding `domains` domains' worth of access and inventory series (about 16 per domain) plus top-N and WAF; `extra` families defined too, empty. */
export function realisticStore(domains = 40, extra: readonly MetricDef[] = []): FamilyStore {
  const store = new FamilyStore();
  store.define([...ACCESS_DEFS, ...OTHER_DEFS, ...extra]);
  const names = Array.from({ length: domains }, (_, i) => `www${i}.example.com`);
  const counters: Sample[] = [];
  const gauges = new Map<string, Sample[]>();
  const gauge = (s: Sample) => {
    const list = gauges.get(s.name) ?? [];
    list.push(s);
    gauges.set(s.name, list);
  };
  names.forEach((domain, i) => {
    for (const source of ['edge', 'origin']) {
      counters.push(sample('edge_domain_traffic_bytes_total', { domain, source }, 1_000_000 * (i + 1)));
      gauge(sample('edge_domain_bandwidth_bytes_per_second', { domain, source }, 8_000.5 * (i + 1)));
    }
    counters.push(sample('edge_domain_requests_total', { domain }, 1000 + i));
    for (const codeClass of ['1xx', '2xx', '3xx', '4xx', '5xx']) {
      counters.push(sample('edge_domain_responses_total', { domain, code_class: codeClass }, i));
    }
    gauge(sample('edge_domain_request_time_seconds', { domain }, 0.125));
    for (const state of DOMAIN_STATES) gauge(sample('edge_domain_state', { domain, state }, state === 'active' ? 1 : 0));
    gauge(sample('edge_domain_certificate_expiry_timestamp_seconds', { domain }, 1_767_225_600));
  });
  store.publish('access', { counters, gauges: new Map() });
  store.publish('inventory', {
    counters: [],
    gauges: new Map([
      ['edge_domain_state', gauges.get('edge_domain_state') ?? []],
      ['edge_domain_certificate_expiry_timestamp_seconds', gauges.get('edge_domain_certificate_expiry_timestamp_seconds') ?? []],
      ['edge_package_info', [sample('edge_package_info', { package: 'pkg-1', name: 'Main "CDN" package\\n' }, 1)]],
      ['edge_l4_package_ports_used', [sample('edge_l4_package_ports_used', { oid: 'l4-1' }, 42)]],
    ]),
  });
  store.publish('access-gauges', {
    counters: [],
    gauges: new Map([
      ['edge_domain_bandwidth_bytes_per_second', gauges.get('edge_domain_bandwidth_bytes_per_second') ?? []],
      ['edge_domain_request_time_seconds', gauges.get('edge_domain_request_time_seconds') ?? []],
    ]),
  });
  const keys = Array.from({ length: 20 }, (_, i) => `/path/${i}?q="x"&日本`);
  store.publish('topn', {
    counters: [],
    gauges: new Map([['edge_topn_requests', keys.map((key, i) => sample('edge_topn_requests', { dimension: 'url', key }, 100 - i))]]),
  });
  const waf: Sample[] = [];
  for (const action of ['deny', 'pass']) {
    for (const severity of ['high', 'medium', 'low']) waf.push(sample('edge_waf_events_total', { action, severity }, 7));
  }
  store.publish('waf-trend', { counters: waf, gauges: new Map() });
  store.publish('cc-attack', { counters: [sample('edge_cc_attack_requests_total', {}, 12)], gauges: new Map() });
  return store;
}

/** The realistic store behind an exposition with process and self-metrics recorded for several collectors. */
export function realisticExposition(): Exposition {
  const store = realisticStore(40);
  const self = new SelfMetrics({ families: store, version: '0.1.0' });
  for (const collector of ['access', 'usage', 'topn', 'waf-trend', 'inventory']) {
    self.recordRun({ collector, ok: true, durationSeconds: 2.5, finishedAtMs: 1_700_000_000_000, newestBucketEndMs: 1_699_999_700_000 });
  }
  self.recordRun({ collector: 'cc-attack', ok: false, durationSeconds: 30, finishedAtMs: 1_700_000_000_000 });
  for (const operation of ['describeL7DataV2', 'describeL7UsageData', 'getPackages']) {
    self.recordUpstream({ operation, outcome: 'success', durationSeconds: 0.05 });
    self.recordUpstream({ operation, outcome: 'timeout', durationSeconds: 10 });
    self.recordRetry(operation);
    self.recordRateLimitWait(operation);
    self.recordThrottled(operation);
  }
  self.recordRateLimit(5);
  return new Exposition({ families: store, self });
}
