// Pages as the OTLP metrics exporter sends them: history pages whose points
// carry their start (delta and cumulative) and a snapshot page (counter,
// gauge, histogram), encoded by the exporter's protocol in both encodings and
// decoded apart from it (protobuf by protoc over the official schema, JSON by
// hand): names, units, temporality, monotonic, attributes cut as /metrics cuts
// them, exact start and end nanoseconds, values, histogram buckets. Every
// expected value is written out by hand.
import { resourceFromAttributes } from '@opentelemetry/resources';
import { describe, expect, it } from 'vitest';
import type { Temporality } from '../../../src/counters/index.js';
import type { OtlpPage, PointsContext, SnapshotPoint } from '../../../src/exporters/otlp-metrics/points.js';
import { otlpMetricsProtocol } from '../../../src/exporters/otlp-metrics/protocol.js';
import type { FamilyDef } from '../../../src/exporters/prometheus/serialize.js';
import { decodeMetricsJson, decodeMetricsWithProtoc, flattenPoints } from '../../support/otlp-metrics-decode.js';

const MIN = 60_000;
/** 2026-03-02T04:00:00Z: 1772424000000 ms, 1772424000000000000 ns (past 2^53: a double would round it). */
const T = Date.UTC(2026, 2, 2, 4, 0);
const T_NS = 1_772_424_000_000_000_000n;
const MIN_NS = 60_000_000_000n;
/** Nanoseconds `m` minutes and `ms` milliseconds after T, written out. */
const ns = (m: number, ms = 0): bigint => T_NS + BigInt(m) * MIN_NS + BigInt(ms) * 1_000_000n;

const REQUESTS: FamilyDef = { name: 'edge_domain_requests_total', type: 'counter', help: 'Requests served.', unit: 'requests', labels: ['domain', 'code'] };
const TRAFFIC: FamilyDef = { name: 'edge_domain_traffic_bytes_total', type: 'counter', help: 'Bytes sent.', unit: 'bytes', labels: ['domain', 'source'] };
const BANDWIDTH: FamilyDef = { name: 'edge_domain_bandwidth_bytes_per_second', type: 'gauge', help: 'Bandwidth.', unit: 'bytes_per_second', labels: ['domain'] };
const RETRIES: FamilyDef = { name: 'edge_exporter_upstream_retries_total', type: 'counter', help: 'Retries.', unit: 'retries', labels: ['collector'] };
const UP: FamilyDef = { name: 'edge_exporter_collector_up', type: 'gauge', help: 'Up.', unit: 'boolean', labels: ['collector'] };
const DURATION: FamilyDef = {
  name: 'edge_exporter_upstream_request_duration_seconds', type: 'histogram', help: 'Request durations.', unit: 'seconds', labels: ['operation'], buckets: [0.1, 0.5, 1],
};
const DEFS = new Map([REQUESTS, TRAFFIC, BANDWIDTH, RETRIES, UP, DURATION].map((d) => [d.name, d]));

/** 40 characters: cut at 16 to 15 and the marker. */
const LONG = 'abcdefghijklmnopqrstuvwxyz0123456789wxyz';
const LONG_CUT = 'abcdefghijklmno…';

function context(temporality: Temporality): PointsContext {
  return {
    resource: resourceFromAttributes({ 'service.name': 'edge-exporter', 'service.instance.id': 'host-1' }),
    scope: { name: 'edge-exporter', version: '1.2.3', schemaUrl: 'https://opentelemetry.io/schemas/1.37.0' },
    temporality,
    def: (name) => DEFS.get(name),
    maxLabelValueLength: 16,
  };
}

/** A collector's history page, as a delta pipe makes it: each bucket from its start to its end. */
const DELTA_PAGE: OtlpPage = {
  owner: 'access', seq: 7, createdMs: T + 10 * MIN,
  samples: [
    { name: REQUESTS.name, labels: { domain: 'a.com', code: '200' }, startMs: T, timestampMs: T + 5 * MIN, value: 5 },
    { name: TRAFFIC.name, labels: { domain: LONG, source: 'edge' }, startMs: T, timestampMs: T + 5 * MIN, value: 1234.5 },
    // A lone surrogate becomes U+FFFD, as on /metrics.
    { name: REQUESTS.name, labels: { domain: 'b\uD800.com', code: '503' }, startMs: T + 5 * MIN, timestampMs: T + 10 * MIN, value: 0 },
    { name: BANDWIDTH.name, labels: { domain: 'a.com' }, startMs: T + 5 * MIN, timestampMs: T + 5 * MIN, value: 2.25 },
  ],
};

/** The same series as a cumulative pipe makes them: from the series' start (T-60m for a.com, T-30m for b.com). */
const CUMULATIVE_PAGE: OtlpPage = {
  owner: 'access', seq: 7, createdMs: T + 10 * MIN,
  samples: [
    { name: REQUESTS.name, labels: { domain: 'a.com', code: '200' }, startMs: T - 60 * MIN, timestampMs: T + 5 * MIN, value: 105 },
    { name: TRAFFIC.name, labels: { domain: LONG, source: 'edge' }, startMs: T - 60 * MIN, timestampMs: T + 5 * MIN, value: 99_999.5 },
    { name: REQUESTS.name, labels: { domain: 'b\uD800.com', code: '503' }, startMs: T - 30 * MIN, timestampMs: T + 10 * MIN, value: 17 },
    { name: BANDWIDTH.name, labels: { domain: 'a.com' }, startMs: T + 5 * MIN, timestampMs: T + 5 * MIN, value: 2.25 },
  ],
};

/** The snapshot of the families without buckets, taken at T+12m+345ms (a clock's time, not a bucket's); counters from T-20m+7ms. */
const SNAP_START = T - 20 * MIN + 7;
const SNAP_AT = T + 12 * MIN + 345;
const SNAPSHOT: readonly SnapshotPoint[] = [
  { def: RETRIES, labels: { collector: 'access' }, startMs: SNAP_START, timeMs: SNAP_AT, value: 3 },
  { def: UP, labels: { collector: 'access' }, startMs: SNAP_AT, timeMs: SNAP_AT, value: 1 },
  { def: DURATION, labels: { operation: LONG }, startMs: SNAP_START, timeMs: SNAP_AT, value: 6, histogram: { counts: [2, 3, 0, 1], sum: 2.75 } },
];
const SNAPSHOT_PAGE: OtlpPage = {
  owner: '(snapshot)', seq: 1, createdMs: SNAP_AT,
  samples: SNAPSHOT.map((p) => ({ name: p.def.name, labels: p.labels, timestampMs: p.timeMs, value: p.value })),
  snapshot: SNAPSHOT,
};

/** What a point should decode to, without the resource and scope (checked once). */
interface Want {
  metric: string;
  unit: string;
  description: string;
  kind: 'sum' | 'gauge' | 'histogram';
  temporality?: Temporality;
  monotonic?: boolean;
  attributes: Record<string, string>;
  startNs: bigint;
  timeNs: bigint;
  value?: number;
  count?: number;
  sum?: number;
  bucketCounts?: number[];
  explicitBounds?: number[];
}

function wanted(temporality: Temporality): Want[] {
  const delta = temporality === 'delta';
  const sum = { kind: 'sum' as const, temporality, monotonic: true };
  const requests = { metric: 'edge_domain_requests', unit: '{request}', description: 'Requests served.', ...sum };
  return [
    { ...requests, attributes: { domain: 'a.com', code: '200' }, startNs: delta ? ns(0) : ns(-60), timeNs: ns(5), value: delta ? 5 : 105 },
    { ...requests, attributes: { domain: 'b\uFFFD.com', code: '503' }, startNs: delta ? ns(5) : ns(-30), timeNs: ns(10), value: delta ? 0 : 17 },
    {
      metric: 'edge_domain_traffic', unit: 'By', description: 'Bytes sent.', ...sum,
      attributes: { domain: LONG_CUT, source: 'edge' }, startNs: delta ? ns(0) : ns(-60), timeNs: ns(5), value: delta ? 1234.5 : 99_999.5,
    },
    {
      metric: 'edge_domain_bandwidth', unit: 'By/s', description: 'Bandwidth.', kind: 'gauge',
      attributes: { domain: 'a.com' }, startNs: ns(5), timeNs: ns(5), value: 2.25,
    },
    {
      metric: 'edge_exporter_upstream_retries', unit: '{retry}', description: 'Retries.', ...sum,
      attributes: { collector: 'access' }, startNs: ns(-20, 7), timeNs: ns(12, 345), value: 3,
    },
    {
      metric: 'edge_exporter_collector_up', unit: '', description: 'Up.', kind: 'gauge',
      attributes: { collector: 'access' }, startNs: ns(12, 345), timeNs: ns(12, 345), value: 1,
    },
    {
      metric: 'edge_exporter_upstream_request_duration', unit: 's', description: 'Request durations.', kind: 'histogram', temporality,
      attributes: { operation: LONG_CUT }, startNs: ns(-20, 7), timeNs: ns(12, 345), count: 6, sum: 2.75, bucketCounts: [2, 3, 0, 1], explicitBounds: [0.1, 0.5, 1],
    },
  ];
}

const PAGES: Readonly<Record<Temporality, readonly OtlpPage[]>> = { delta: [DELTA_PAGE, SNAPSHOT_PAGE], cumulative: [CUMULATIVE_PAGE, SNAPSHOT_PAGE] };

/** The decoded points as Want rows (fields a Want does not name left out). */
function received(points: ReturnType<typeof flattenPoints>): Want[] {
  return points.map((p) => {
    const row: Want = { metric: p.metric, unit: p.unit, description: p.description, kind: p.kind, attributes: p.attributes as Record<string, string>, startNs: p.startNs, timeNs: p.timeNs };
    if (p.temporality !== undefined) row.temporality = p.temporality;
    if (p.monotonic !== undefined) row.monotonic = p.monotonic;
    if (p.kind === 'histogram') {
      Object.assign(row, { count: p.count, sum: p.sum, bucketCounts: p.bucketCounts, explicitBounds: p.explicitBounds });
    } else {
      row.value = p.value;
    }
    return row;
  });
}

describe('toResourceMetrics through the protocol, decoded apart from it', () => {
  it.each<Temporality>(['delta', 'cumulative'])('%s: protobuf that protoc accepts, with every point as built', async (temporality) => {
    const protocol = otlpMetricsProtocol('http/protobuf', context(temporality));
    expect(protocol.headers['content-type']).toBe('application/x-protobuf');
    const request = await decodeMetricsWithProtoc(protocol.encode(PAGES[temporality]));
    expect(request.resources).toHaveLength(1);
    const [resource] = request.resources;
    expect(resource?.attributes).toEqual({ 'service.name': 'edge-exporter', 'service.instance.id': 'host-1' });
    expect(resource?.scopes.map((s) => [s.name, s.version, s.schemaUrl])).toEqual([['edge-exporter', '1.2.3', 'https://opentelemetry.io/schemas/1.37.0']]);
    // One metric per family, in the order the pages first name them.
    expect(resource?.scopes[0]?.metrics.map((m) => m.name)).toEqual([
      'edge_domain_requests', 'edge_domain_traffic', 'edge_domain_bandwidth', 'edge_exporter_upstream_retries', 'edge_exporter_collector_up', 'edge_exporter_upstream_request_duration',
    ]);
    expect(received(flattenPoints(request))).toEqual(wanted(temporality));
  });

  it.each<Temporality>(['delta', 'cumulative'])('%s: http/json carries the same request as protobuf', async (temporality) => {
    const json = otlpMetricsProtocol('http/json', context(temporality));
    expect(json.headers['content-type']).toBe('application/json');
    const fromJson = decodeMetricsJson(json.encode(PAGES[temporality]));
    const fromProtobuf = await decodeMetricsWithProtoc(otlpMetricsProtocol('http/protobuf', context(temporality)).encode(PAGES[temporality]));
    expect(fromJson).toEqual(fromProtobuf);
    expect(received(flattenPoints(fromJson))).toEqual(wanted(temporality));
  });

  it('a point without a start starts at its time; a family no longer defined goes by Prometheus\' _total rule', async () => {
    const page: OtlpPage = {
      owner: 'access', seq: 1, createdMs: T,
      samples: [
        { name: REQUESTS.name, labels: { domain: 'a.com', code: '200' }, timestampMs: T + 5 * MIN, value: 1 },
        { name: 'edge_gone_total', labels: {}, startMs: T, timestampMs: T + 5 * MIN, value: 2 },
        { name: 'edge_gone_level', labels: {}, startMs: T + 5 * MIN, timestampMs: T + 5 * MIN, value: 3 },
      ],
    };
    const request = await decodeMetricsWithProtoc(otlpMetricsProtocol('http/protobuf', context('delta')).encode([page]));
    expect(flattenPoints(request).map((p) => [p.metric, p.kind, p.temporality, p.startNs, p.timeNs, p.value])).toEqual([
      ['edge_domain_requests', 'sum', 'delta', ns(5), ns(5), 1],
      ['edge_gone', 'sum', 'delta', ns(0), ns(5), 2],
      ['edge_gone_level', 'gauge', undefined, ns(5), ns(5), 3],
    ]);
  });
});
