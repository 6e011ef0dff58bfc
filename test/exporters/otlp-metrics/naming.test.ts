// Each Prometheus family as an OTLP metric name and unit, and the property
// that makes the mapping worth having: a Prometheus OTLP receiver, which
// translates an OTLP name back with suffixes (UnderscoreEscapingWithSuffixes,
// the default of prometheus/otlptranslator), stores every family the exporter
// defines under the name /metrics shows. That translation is written here
// from Prometheus' rules, apart from the code under test.
import { describe, expect, it } from 'vitest';
import type { MetricDef } from '../../../src/collectors/index.js';
import { configSchema, resolveCollectorOptions } from '../../../src/config/index.js';
import { allCollectors } from '../../../src/daemon/wiring/collectors.js';
import { otlpMetricName } from '../../../src/exporters/otlp-metrics/naming.js';
import { ProcessMetrics } from '../../../src/exporters/prometheus/process-metrics.js';
import { SELF_METRICS } from '../../../src/exporters/prometheus/self-metric-defs.js';
import type { FamilyDef } from '../../../src/exporters/prometheus/serialize.js';
import { WAF_EVENTS_FAMILIES } from '../../../src/forwarder/index.js';

type Def = Pick<FamilyDef, 'name' | 'type' | 'unit' | 'help'>;
const def = (name: string, type: FamilyDef['type'], unit: string): Def => ({ name, type, unit, help: `help of ${name}` });

describe('otlpMetricName', () => {
  it.each([
    { def: def('edge_bandwidth_bytes_total', 'counter', 'bytes'), name: 'edge_bandwidth', unit: 'By' },
    { def: def('edge_requests_total', 'counter', 'requests'), name: 'edge_requests', unit: '{request}' },
    { def: def('edge_l4_package_expiry_timestamp_seconds', 'gauge', 'timestamp_seconds'), name: 'edge_l4_package_expiry_timestamp', unit: 's' },
    { def: def('edge_cache_hit_ratio', 'gauge', 'ratio'), name: 'edge_cache_hit', unit: '1' },
    // Prometheus adds _ratio to gauges only: a counter keeps it in its name.
    { def: def('edge_sampled_ratio_total', 'counter', 'ratio'), name: 'edge_sampled_ratio', unit: '1' },
    { def: def('edge_exporter_upstream_request_duration_seconds', 'histogram', 'seconds'), name: 'edge_exporter_upstream_request_duration', unit: 's' },
    { def: def('edge_domain_bandwidth_bytes_per_second', 'gauge', 'bytes_per_second'), name: 'edge_domain_bandwidth', unit: 'By/s' },
    { def: def('edge_domain_info', 'gauge', 'info'), name: 'edge_domain_info', unit: '' },
    { def: def('edge_domain_state', 'gauge', 'state'), name: 'edge_domain_state', unit: '' },
    { def: def('edge_exporter_collector_up', 'gauge', 'boolean'), name: 'edge_exporter_collector_up', unit: '' },
    { def: def('edge_cache_tasks', 'gauge', 'count'), name: 'edge_cache_tasks', unit: '' },
    { def: def('process_cpu_seconds_total', 'counter', ''), name: 'process_cpu_seconds', unit: '' },
    { def: def('edge_exporter_upstream_retries_total', 'counter', 'retries'), name: 'edge_exporter_upstream_retries', unit: '{retry}' },
    { def: def('edge_exporter_upstream_throttled_total', 'counter', 'answers'), name: 'edge_exporter_upstream_throttled', unit: '{answer}' },
    { def: def('edge_exporter_series', 'gauge', 'series'), name: 'edge_exporter_series', unit: '{series}' },
    // A unit the name does not end in stays in the name.
    { def: def('edge_topn_requests', 'gauge', 'requests'), name: 'edge_topn_requests', unit: '{request}' },
    { def: def('edge_bytes_in_flight', 'gauge', 'bytes'), name: 'edge_bytes_in_flight', unit: 'By' },
  ])('$def.name ($def.type, $def.unit) -> $name / $unit', ({ def: d, name, unit }) => {
    expect(otlpMetricName(d)).toEqual({ name, unit, description: d.help });
  });
});

// ---------------------------------------------------------------------------------------------
// Prometheus' translation of an OTLP name (prometheus/otlptranslator, strategy
// UnderscoreEscapingWithSuffixes: MetricNamer.Build with suffixes, escaping on):
// - the name is split into tokens at every character outside [a-zA-Z0-9:];
// - the unit is split at its first '/': a main unit and a "per" unit; a part
//   holding '{' or '}' is dropped; the main unit becomes its word (By bytes,
//   s seconds, 1 nothing, ...), the per unit `per_` + its word (s second);
// - the main word is appended as a token unless one of the tokens is it; the
//   per word likewise (a single token can never be `per_second`);
// - a monotonic Sum: every `total` token removed, `total` appended;
// - a gauge of unit 1: every `ratio` token removed, `ratio` appended;
// - the tokens joined with '_'.

/** The main units this exporter can send, and a few more, as otlptranslator's unitMap names them. */
const MAIN_WORDS: Readonly<Record<string, string>> = { By: 'bytes', KiBy: 'kibibytes', s: 'seconds', ms: 'milliseconds', '1': '', '%': 'percent', Hz: 'hertz' };
const PER_WORDS: Readonly<Record<string, string>> = { s: 'second', m: 'minute', h: 'hour', d: 'day' };

type OtlpKind = 'monotonic-sum' | 'gauge' | 'histogram';

function prometheusName(name: string, unit: string, kind: OtlpKind): string {
  let tokens = name.split(/[^a-zA-Z0-9:]+/).filter((t) => t !== '');
  const slash = unit.indexOf('/');
  const main = (slash < 0 ? unit : unit.slice(0, slash)).trim();
  const per = slash < 0 ? '' : unit.slice(slash + 1).trim();
  const annotated = (part: string): boolean => /[{}]/.test(part);
  const mainWord = main === '' || annotated(main) ? '' : (MAIN_WORDS[main] ?? main);
  const perWord = per === '' || annotated(per) ? '' : `per_${PER_WORDS[per] ?? per}`;
  if (mainWord !== '' && !tokens.includes(mainWord)) tokens.push(mainWord);
  if (perWord !== '' && !tokens.includes(perWord)) tokens.push(perWord);
  if (kind === 'monotonic-sum') tokens = [...tokens.filter((t) => t !== 'total'), 'total'];
  if (kind === 'gauge' && unit === '1') tokens = [...tokens.filter((t) => t !== 'ratio'), 'ratio'];
  return tokens.join('_');
}

const kindOf = (type: FamilyDef['type']): OtlpKind => (type === 'counter' ? 'monotonic-sum' : type);

describe('the translation written here', () => {
  // Prometheus' own examples (otlptranslator's README and MetricNamer.Build's comments: the first three), and the rule's
  // other branches worked by hand.
  it.each([
    ['http.server.request.duration', 's', 'histogram', 'http_server_request_duration_seconds'],
    ['requests.count', '1', 'monotonic-sum', 'requests_count_total'],
    ['memory.usage', 'By', 'gauge', 'memory_usage_bytes'],
    ['http.server.duration', 's', 'histogram', 'http_server_duration_seconds'],
    ['cpu.utilization', '1', 'gauge', 'cpu_utilization_ratio'],
    ['network.io', 'By/s', 'gauge', 'network_io_bytes_per_second'],
    ['http.requests', '{request}', 'monotonic-sum', 'http_requests_total'],
    ['bytes_sent', 'By', 'monotonic-sum', 'bytes_sent_total'],
  ] as const)('%s [%s] %s -> %s', (name, unit, kind, want) => {
    expect(prometheusName(name, unit, kind)).toBe(want);
  });
});

/** Every family the exporter defines: each collector's (as docs/metrics.md lists them), the WAF forwarder's, its own, the process'. */
async function everyFamily(): Promise<FamilyDef[]> {
  const defaults = configSchema.parse({ simulator: { enabled: true } });
  const data: MetricDef[] = [...allCollectors(resolveCollectorOptions(defaults)).flatMap((c) => c.families), ...WAF_EVENTS_FAMILIES];
  const process = new ProcessMetrics();
  try {
    return [...data, ...Object.values(SELF_METRICS), ...(await process.snapshot()).map((f) => f.def)];
  } finally {
    process.close();
  }
}

describe('every family the exporter defines', () => {
  it('is stored by a Prometheus OTLP receiver under the name /metrics shows', async () => {
    const families = await everyFamily();
    // Not vacuous: the data families, every self-metric and prom-client's.
    for (const name of ['edge_domain_traffic_bytes_total', 'edge_waf_denied_requests_total', 'edge_l4_package_expiry_timestamp_seconds', 'process_cpu_seconds_total', 'nodejs_gc_duration_seconds']) {
      expect(families.map((f) => f.name)).toContain(name);
    }
    for (const self of Object.values(SELF_METRICS)) expect(families).toContain(self);
    const wrong = families.flatMap((f) => {
      const { name, unit } = otlpMetricName(f);
      const back = prometheusName(name, unit, kindOf(f.type));
      return back === f.name ? [] : [`${f.name} (${f.type}, ${f.unit}) -> ${name} [${unit}] -> ${back}`];
    });
    expect(wrong).toEqual([]);
  });

  it('has an OTLP name of its own: no two families meet in one metric', async () => {
    const families = await everyFamily();
    const byName = new Map<string, string[]>();
    for (const f of families) {
      const { name } = otlpMetricName(f);
      byName.set(name, [...new Set([...(byName.get(name) ?? []), f.name])]);
    }
    expect([...byName.values()].filter((names) => names.length > 1)).toEqual([]);
  });
});
