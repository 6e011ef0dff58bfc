// Golden expositions written by hand from the text 0.0.4 and OpenMetrics 1.0.0 specifications.
import { describe, expect, it } from 'vitest';
import {
  formatOpenMetricsTimestamp,
  formatValue,
  compareSeries,
  serialize,
  serializeFamily,
  type FamilyDef,
  type FamilySnapshot,
  type SeriesSnapshot,
} from '../../../src/exporters/prometheus/serialize.js';

const requests: FamilyDef = { name: 'edge_domain_requests_total', type: 'counter', help: 'Requests served.', unit: 'requests', labels: ['domain'] };
const traffic: FamilyDef = { name: 'edge_domain_traffic_bytes_total', type: 'counter', help: 'Bytes served.', unit: 'bytes', labels: ['domain', 'source'] };
const requestTime: FamilyDef = { name: 'edge_domain_request_time_seconds', type: 'gauge', help: 'Average request time.', unit: 'seconds', labels: ['domain'] };
const expiry: FamilyDef = { name: 'edge_certificate_expiry_timestamp_seconds', type: 'gauge', help: 'Expiry.', unit: 'timestamp_seconds', labels: [] };
const rules: FamilyDef = { name: 'edge_l4_package_rules', type: 'gauge', help: 'Rules.', unit: 'rules', labels: ['oid'] };
const info: FamilyDef = { name: 'edge_package_info', type: 'gauge', help: 'Packages.', unit: 'info', labels: ['package', 'name'] };
const attack: FamilyDef = { name: 'edge_cc_attack_requests_total', type: 'counter', help: 'Attack requests.', unit: 'requests', labels: [] };
const level: FamilyDef = { name: 'edge_test_level', type: 'gauge', help: 'A level.', unit: 'count', labels: [] };
const runs: FamilyDef = { name: 'edge_exporter_run_seconds', type: 'histogram', help: 'Runs.', unit: 'seconds', labels: ['collector'], buckets: [0.5, 1, 2.5] };
const waits: FamilyDef = { name: 'edge_exporter_wait_seconds', type: 'histogram', help: 'Waits.', unit: 'seconds', labels: [], buckets: [1] };

const s = (labelValues: string[], value: number, timestampMs?: number): SeriesSnapshot =>
  timestampMs === undefined ? { labelValues, value } : { labelValues, value, timestampMs };
const fam = (def: FamilyDef, ...series: SeriesSnapshot[]): FamilySnapshot => ({ def, series });

interface Golden {
  readonly name: string;
  readonly families: readonly FamilySnapshot[];
  readonly text: string;
  readonly openmetrics: string;
}

const GOLDEN: readonly Golden[] = [
  {
    name: 'counter with a label: OpenMetrics family name drops _total, samples keep it',
    families: [fam(requests, s(['b.example'], 2), s(['a.example'], 10))],
    text: `# HELP edge_domain_requests_total Requests served.
# TYPE edge_domain_requests_total counter
edge_domain_requests_total{domain="a.example"} 10
edge_domain_requests_total{domain="b.example"} 2
`,
    openmetrics: `# TYPE edge_domain_requests counter
# HELP edge_domain_requests Requests served.
edge_domain_requests_total{domain="a.example"} 10
edge_domain_requests_total{domain="b.example"} 2
`,
  },
  {
    name: 'counter with a unit suffix gets # UNIT in OpenMetrics only; labels in definition order',
    families: [fam(traffic, s(['a.example', 'origin'], 5), s(['a.example', 'edge'], 1234567890123))],
    text: `# HELP edge_domain_traffic_bytes_total Bytes served.
# TYPE edge_domain_traffic_bytes_total counter
edge_domain_traffic_bytes_total{domain="a.example",source="edge"} 1234567890123
edge_domain_traffic_bytes_total{domain="a.example",source="origin"} 5
`,
    openmetrics: `# TYPE edge_domain_traffic_bytes counter
# UNIT edge_domain_traffic_bytes bytes
# HELP edge_domain_traffic_bytes Bytes served.
edge_domain_traffic_bytes_total{domain="a.example",source="edge"} 1234567890123
edge_domain_traffic_bytes_total{domain="a.example",source="origin"} 5
`,
  },
  {
    name: 'gauges: seconds and timestamp_seconds announce seconds; rules (a count, not a unit) and info announce nothing',
    families: [
      fam(requestTime, s(['a.example'], 0.125)),
      fam(expiry, s([], 1767225600)),
      fam(rules, s(['l4-1'], 42)),
      fam(info, s(['p1', 'Main'], 1)),
    ],
    text: `# HELP edge_certificate_expiry_timestamp_seconds Expiry.
# TYPE edge_certificate_expiry_timestamp_seconds gauge
edge_certificate_expiry_timestamp_seconds 1767225600
# HELP edge_domain_request_time_seconds Average request time.
# TYPE edge_domain_request_time_seconds gauge
edge_domain_request_time_seconds{domain="a.example"} 0.125
# HELP edge_l4_package_rules Rules.
# TYPE edge_l4_package_rules gauge
edge_l4_package_rules{oid="l4-1"} 42
# HELP edge_package_info Packages.
# TYPE edge_package_info gauge
edge_package_info{package="p1",name="Main"} 1
`,
    openmetrics: `# TYPE edge_certificate_expiry_timestamp_seconds gauge
# UNIT edge_certificate_expiry_timestamp_seconds seconds
# HELP edge_certificate_expiry_timestamp_seconds Expiry.
edge_certificate_expiry_timestamp_seconds 1767225600
# TYPE edge_domain_request_time_seconds gauge
# UNIT edge_domain_request_time_seconds seconds
# HELP edge_domain_request_time_seconds Average request time.
edge_domain_request_time_seconds{domain="a.example"} 0.125
# TYPE edge_l4_package_rules gauge
# HELP edge_l4_package_rules Rules.
edge_l4_package_rules{oid="l4-1"} 42
# TYPE edge_package_info gauge
# HELP edge_package_info Packages.
edge_package_info{package="p1",name="Main"} 1
`,
  },
  {
    name: 'escaping: label values escape \\ " and newline; HELP escapes \\ and newline (and " in OpenMetrics)',
    families: [
      fam(
        { ...info, help: 'Path C:\\dir "quoted"\nsecond line' },
        s(['p\\1', 'say "hi"\nbye'], 1),
        s(['p2', '日本語 ✓ 😀'], 1),
      ),
    ],
    text: `# HELP edge_package_info Path C:\\\\dir "quoted"\\nsecond line
# TYPE edge_package_info gauge
edge_package_info{package="p2",name="日本語 ✓ 😀"} 1
edge_package_info{package="p\\\\1",name="say \\"hi\\"\\nbye"} 1
`,
    openmetrics: `# TYPE edge_package_info gauge
# HELP edge_package_info Path C:\\\\dir \\"quoted\\"\\nsecond line
edge_package_info{package="p2",name="日本語 ✓ 😀"} 1
edge_package_info{package="p\\\\1",name="say \\"hi\\"\\nbye"} 1
`,
  },
  {
    name: 'timestamps: milliseconds in text, seconds with a fraction in OpenMetrics',
    families: [fam(requests, s(['a'], 1, 1700000000123), s(['b'], 2, 1700000000000), s(['c'], 3, 1700000000500), s(['d'], 4, 1700000000050))],
    text: `# HELP edge_domain_requests_total Requests served.
# TYPE edge_domain_requests_total counter
edge_domain_requests_total{domain="a"} 1 1700000000123
edge_domain_requests_total{domain="b"} 2 1700000000000
edge_domain_requests_total{domain="c"} 3 1700000000500
edge_domain_requests_total{domain="d"} 4 1700000000050
`,
    openmetrics: `# TYPE edge_domain_requests counter
# HELP edge_domain_requests Requests served.
edge_domain_requests_total{domain="a"} 1 1700000000.123
edge_domain_requests_total{domain="b"} 2 1700000000
edge_domain_requests_total{domain="c"} 3 1700000000.5
edge_domain_requests_total{domain="d"} 4 1700000000.05
`,
  },
  {
    name: 'NaN and infinities; a label-less counter',
    families: [
      fam({ ...requestTime, labels: ['case'] }, s(['nan'], NaN), s(['pinf'], Infinity), s(['ninf'], -Infinity)),
      fam(attack, s([], 0)),
    ],
    text: `# HELP edge_cc_attack_requests_total Attack requests.
# TYPE edge_cc_attack_requests_total counter
edge_cc_attack_requests_total 0
# HELP edge_domain_request_time_seconds Average request time.
# TYPE edge_domain_request_time_seconds gauge
edge_domain_request_time_seconds{case="nan"} NaN
edge_domain_request_time_seconds{case="ninf"} -Inf
edge_domain_request_time_seconds{case="pinf"} +Inf
`,
    openmetrics: `# TYPE edge_cc_attack_requests counter
# HELP edge_cc_attack_requests Attack requests.
edge_cc_attack_requests_total 0
# TYPE edge_domain_request_time_seconds gauge
# UNIT edge_domain_request_time_seconds seconds
# HELP edge_domain_request_time_seconds Average request time.
edge_domain_request_time_seconds{case="nan"} NaN
edge_domain_request_time_seconds{case="ninf"} -Inf
edge_domain_request_time_seconds{case="pinf"} +Inf
`,
  },
  {
    name: 'families without series are left out in both formats',
    families: [fam(requests), fam(level, s([], 3))],
    text: `# HELP edge_test_level A level.
# TYPE edge_test_level gauge
edge_test_level 3
`,
    openmetrics: `# TYPE edge_test_level gauge
# HELP edge_test_level A level.
edge_test_level 3
`,
  },
  {
    name: 'histograms: cumulative _bucket lines with le first and +Inf last, then _sum and _count; # UNIT in OpenMetrics',
    families: [
      fam(runs, { labelValues: ['usage'], value: 3, histogram: { cumulative: [0, 1, 2], sum: 12.25 } }, { labelValues: ['access'], value: 1, histogram: { cumulative: [1, 1, 1], sum: 0.1 } }),
      fam(waits, { labelValues: [], value: 0, histogram: { cumulative: [0], sum: 0 } }),
    ],
    text: `# HELP edge_exporter_run_seconds Runs.
# TYPE edge_exporter_run_seconds histogram
edge_exporter_run_seconds_bucket{le="0.5",collector="access"} 1
edge_exporter_run_seconds_bucket{le="1",collector="access"} 1
edge_exporter_run_seconds_bucket{le="2.5",collector="access"} 1
edge_exporter_run_seconds_bucket{le="+Inf",collector="access"} 1
edge_exporter_run_seconds_sum{collector="access"} 0.1
edge_exporter_run_seconds_count{collector="access"} 1
edge_exporter_run_seconds_bucket{le="0.5",collector="usage"} 0
edge_exporter_run_seconds_bucket{le="1",collector="usage"} 1
edge_exporter_run_seconds_bucket{le="2.5",collector="usage"} 2
edge_exporter_run_seconds_bucket{le="+Inf",collector="usage"} 3
edge_exporter_run_seconds_sum{collector="usage"} 12.25
edge_exporter_run_seconds_count{collector="usage"} 3
# HELP edge_exporter_wait_seconds Waits.
# TYPE edge_exporter_wait_seconds histogram
edge_exporter_wait_seconds_bucket{le="1"} 0
edge_exporter_wait_seconds_bucket{le="+Inf"} 0
edge_exporter_wait_seconds_sum 0
edge_exporter_wait_seconds_count 0
`,
    openmetrics: `# TYPE edge_exporter_run_seconds histogram
# UNIT edge_exporter_run_seconds seconds
# HELP edge_exporter_run_seconds Runs.
edge_exporter_run_seconds_bucket{le="0.5",collector="access"} 1
edge_exporter_run_seconds_bucket{le="1",collector="access"} 1
edge_exporter_run_seconds_bucket{le="2.5",collector="access"} 1
edge_exporter_run_seconds_bucket{le="+Inf",collector="access"} 1
edge_exporter_run_seconds_sum{collector="access"} 0.1
edge_exporter_run_seconds_count{collector="access"} 1
edge_exporter_run_seconds_bucket{le="0.5",collector="usage"} 0
edge_exporter_run_seconds_bucket{le="1",collector="usage"} 1
edge_exporter_run_seconds_bucket{le="2.5",collector="usage"} 2
edge_exporter_run_seconds_bucket{le="+Inf",collector="usage"} 3
edge_exporter_run_seconds_sum{collector="usage"} 12.25
edge_exporter_run_seconds_count{collector="usage"} 3
# TYPE edge_exporter_wait_seconds histogram
# UNIT edge_exporter_wait_seconds seconds
# HELP edge_exporter_wait_seconds Waits.
edge_exporter_wait_seconds_bucket{le="1"} 0
edge_exporter_wait_seconds_bucket{le="+Inf"} 0
edge_exporter_wait_seconds_sum 0
edge_exporter_wait_seconds_count 0
`,
  },
  { name: 'nothing at all', families: [fam(requests)], text: '', openmetrics: '' },
];

describe('serialize', () => {
  it.each(GOLDEN)('text: $name', ({ families, text }) => {
    expect(serialize(families, { format: 'text' })).toBe(text);
  });

  it.each(GOLDEN)('openmetrics: $name', ({ families, openmetrics }) => {
    expect(serialize(families, { format: 'openmetrics' })).toBe(openmetrics);
  });

  it('is deterministic whatever the input order, and does not mutate its input', () => {
    const a = fam(requests, s(['b'], 1), s(['a'], 2));
    const b = fam(level, s([], 1));
    const forward = serialize([a, b], { format: 'text' });
    expect(serialize([b, fam(requests, s(['a'], 2), s(['b'], 1))], { format: 'text' })).toBe(forward);
    expect(a.series.map((x) => x.labelValues[0])).toEqual(['b', 'a']);
  });

  it('never prints a # EOF (the exposition appends one after the self-metrics)', () => {
    expect(serialize([fam(level, s([], 1))], { format: 'openmetrics' })).not.toContain('# EOF');
  });
});

describe('formatValue', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [42, '42'],
    [-7, '-7'],
    [0.1, '0.1'],
    [1.5e-7, '1.5e-7'],
    [2 ** 53, '9007199254740992'],
    [123456789012345680000, '123456789012345680000'],
    [1e21, '1e+21'],
    [-1.5e300, '-1.5e+300'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
  ])('%s -> %s', (value, expected) => {
    expect(formatValue(value)).toBe(expected);
  });
});

describe('serializeFamily (the exposition\'s per-family bytes)', () => {
  // Values the byte writer formats itself (safe integers) and those it leaves to formatValue.
  const VALUES = [0, -0, 1, 9, 10, 99, 100, -7, -10, 2 ** 31, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 1e15, 999_999_999_999_999, 1e21, 1.5e-7, 0.1, 921690389.8159217, -1.5e300, Number.MIN_VALUE, -Number.MAX_VALUE, NaN, Infinity, -Infinity];
  const domains = ['a.example', 'b"quoted\\back', 'c\nline', 'd-ünïcödé-中文', 'e-😀', 'f'.repeat(200)];
  const series = (shift: number, timestamps: boolean): SeriesSnapshot[] =>
    VALUES.flatMap((value, i) => domains.map((domain, j) => s([`${domain}-${i}`, `src${j}`], VALUES[(i + j + shift) % VALUES.length] ?? value, timestamps && (i + j) % 3 !== 0 ? 1_700_000_000_000 + 37 * i - 5000 * j : undefined)));
  const gauge: FamilyDef = { ...traffic, name: 'edge_test_gauge_bytes', type: 'gauge' };

  it.each(['text', 'openmetrics'] as const)('%s: the same bytes as serialize, with fresh and with kept heads', (format) => {
    for (const def of [traffic, gauge, level]) {
      for (const timestamps of [false, true]) {
        let previous: ReturnType<typeof serializeFamily>['heads'];
        for (let shift = 0; shift < 3; shift++) {
          // The first unsorted (sorted here), the next sorted as the store hands them over (kept heads reused).
          const list = series(shift, timestamps).sort(compareSeries);
          const family = def.labels.length === 0 ? fam(def, s([], VALUES[shift] ?? 0)) : fam(def, ...(shift === 0 ? list.reverse() : list));
          const rendered = serializeFamily(family, format, previous);
          expect(rendered.text.equals(Buffer.from(serialize([family], { format }), 'utf8'))).toBe(true);
          if (shift > 0 && def.labels.length > 0) expect(rendered.heads?.bytes).toBe(previous?.bytes);
          previous = rendered.heads;
        }
      }
    }
  });

  it('builds the heads again when the labels change', () => {
    const first = serializeFamily(fam(requests, s(['a'], 1), s(['b'], 2)), 'text', undefined);
    const family = fam(requests, s(['a'], 3), s(['c'], 4));
    expect(serializeFamily(family, 'text', first.heads).text.toString('utf8')).toBe(serialize([family], { format: 'text' }));
  });
});

describe('formatOpenMetricsTimestamp', () => {
  it.each([
    [0, '0'],
    [1000, '1'],
    [1700000000123, '1700000000.123'],
    [1700000000100, '1700000000.1'],
    [1700000000001, '1700000000.001'],
    [1700000000123.4, '1700000000.123'],
    [-1500, '-1.5'],
    [-500, '-0.5'],
  ])('%s ms -> %s s', (ms, expected) => {
    expect(formatOpenMetricsTimestamp(ms)).toBe(expected);
  });
});
