// The OTLP metrics decoders the exporter's tests check it with: a request built by protobufjs from the
// official schema decodes through protoc to the values it was built from, the same request written by hand
// as OTLP/JSON decodes to the same structure, and what is not a request, or carries what the structure
// cannot, is refused rather than read partly.
import { afterEach, describe, expect, it } from 'vitest';
import { type ReceivedMetricsRequest, decodeMetricsJson, decodeMetricsWithProtoc, flattenPoints, officialMetricsRequestType } from './otlp-metrics-decode.js';

const RequestType = officialMetricsRequestType();
const encode = (request: object): Uint8Array => RequestType.encode(RequestType.fromObject(request)).finish();

// Nanosecond times far above 2^53, none of them a double: any rounding shows.
const T0 = 1_700_000_000_123_456_789n;
const T1 = 1_700_000_060_987_654_321n;
const T2 = 1_700_000_120_000_000_001n;
const BIG_INT = 9_007_199_254_740_993n; // 2^53 + 1
const AWKWARD = 'région é 🚀 "quoted" back\\slash\nnew line\ttab';

/** The request, as protobufjs's fromObject takes it (64-bit integers as decimal strings). */
const REQUEST = {
  resourceMetrics: [
    {
      resource: {
        attributes: [
          { key: 'service.name', value: { stringValue: 'edge-exporter' } },
          { key: 'edge.awkward', value: { stringValue: AWKWARD } },
          { key: 'edge.shards', value: { intValue: '3' } },
          { key: 'edge.ratio', value: { doubleValue: 0.25 } },
          { key: 'edge.enabled', value: { boolValue: false } },
          { key: 'edge.empty', value: { stringValue: '' } },
        ],
      },
      schemaUrl: 'https://opentelemetry.io/schemas/1.37.0',
      scopeMetrics: [
        {
          scope: { name: 'edge-exporter', version: '0.1.0', attributes: [{ key: 'scope.kind', value: { stringValue: 'collector' } }] },
          schemaUrl: 'https://opentelemetry.io/schemas/1.36.0',
          metrics: [
            {
              name: 'edge.requests',
              description: 'Requests the edge served',
              unit: '{request}',
              sum: {
                aggregationTemporality: 2,
                isMonotonic: true,
                dataPoints: [
                  { attributes: [{ key: 'domain', value: { stringValue: 'a.example' } }, { key: 'code', value: { stringValue: '200' } }], startTimeUnixNano: T0.toString(), timeUnixNano: T1.toString(), asInt: BIG_INT.toString() },
                  { attributes: [{ key: 'domain', value: { stringValue: 'b.example' } }, { key: 'code', value: { stringValue: '503' } }], startTimeUnixNano: T1.toString(), timeUnixNano: T2.toString(), asDouble: 12.5 },
                  { attributes: [{ key: 'domain', value: { stringValue: 'a.example' } }, { key: 'code', value: { stringValue: '200' } }], startTimeUnixNano: T0.toString(), timeUnixNano: T2.toString(), asInt: '0' },
                ],
              },
            },
            {
              name: 'edge.bandwidth',
              unit: 'By/s',
              gauge: {
                dataPoints: [
                  { attributes: [{ key: 'node', value: { intValue: '-7' } }], timeUnixNano: T1.toString(), asDouble: -1.25e-7 },
                  { timeUnixNano: T2.toString(), asDouble: NaN, flags: 1 },
                ],
              },
            },
            {
              name: 'edge.latency',
              description: 'Origin latency',
              unit: 's',
              histogram: {
                aggregationTemporality: 1,
                dataPoints: [
                  { startTimeUnixNano: T0.toString(), timeUnixNano: T1.toString(), count: '10', sum: 3.5, min: 0.01, max: 2, bucketCounts: ['1', '2', '3', '4'], explicitBounds: [0.1, 0.5, 1] },
                  { attributes: [{ key: 'edge.cached', value: { boolValue: true } }], startTimeUnixNano: T1.toString(), timeUnixNano: T2.toString(), count: '0', bucketCounts: [], explicitBounds: [] },
                ],
              },
            },
          ],
        },
      ],
    },
  ],
};

/** What it holds, as the decoders give it. */
const EXPECTED: ReceivedMetricsRequest = {
  resources: [
    {
      attributes: { 'service.name': 'edge-exporter', 'edge.awkward': AWKWARD, 'edge.shards': 3, 'edge.ratio': 0.25, 'edge.enabled': false, 'edge.empty': '' },
      schemaUrl: 'https://opentelemetry.io/schemas/1.37.0',
      scopes: [
        {
          name: 'edge-exporter',
          version: '0.1.0',
          attributes: { 'scope.kind': 'collector' },
          schemaUrl: 'https://opentelemetry.io/schemas/1.36.0',
          metrics: [
            {
              name: 'edge.requests',
              description: 'Requests the edge served',
              unit: '{request}',
              kind: 'sum',
              temporality: 'cumulative',
              monotonic: true,
              points: [
                { attributes: { domain: 'a.example', code: '200' }, startTimeUnixNano: T0, timeUnixNano: T1, value: Number(BIG_INT), intValue: BIG_INT },
                { attributes: { domain: 'b.example', code: '503' }, startTimeUnixNano: T1, timeUnixNano: T2, value: 12.5 },
                { attributes: { domain: 'a.example', code: '200' }, startTimeUnixNano: T0, timeUnixNano: T2, value: 0, intValue: 0n },
              ],
            },
            {
              name: 'edge.bandwidth',
              description: '',
              unit: 'By/s',
              kind: 'gauge',
              points: [
                { attributes: { node: -7 }, startTimeUnixNano: 0n, timeUnixNano: T1, value: -1.25e-7 },
                { attributes: {}, startTimeUnixNano: 0n, timeUnixNano: T2, value: NaN, flags: 1 },
              ],
            },
            {
              name: 'edge.latency',
              description: 'Origin latency',
              unit: 's',
              kind: 'histogram',
              temporality: 'delta',
              points: [
                { attributes: {}, startTimeUnixNano: T0, timeUnixNano: T1, count: 10, sum: 3.5, min: 0.01, max: 2, bucketCounts: [1, 2, 3, 4], explicitBounds: [0.1, 0.5, 1] },
                { attributes: { 'edge.cached': true }, startTimeUnixNano: T1, timeUnixNano: T2, count: 0, bucketCounts: [], explicitBounds: [] },
              ],
            },
          ],
        },
      ],
    },
  ],
};

/**
 * The same request in OTLP/JSON, written by hand the way the OTel JS serializer writes it: times as decimal
 * strings (one as a bare number, as the serializer writes without BigInt), asInt as a string and as a number,
 * enums as integers, NaN as the string proto3 JSON uses, keys in any order.
 */
const JSON_BODY = `{
  "resourceMetrics": [{
    "resource": { "attributes": [
      { "key": "service.name", "value": { "stringValue": "edge-exporter" } },
      { "key": "edge.awkward", "value": { "stringValue": ${JSON.stringify(AWKWARD)} } },
      { "key": "edge.shards", "value": { "intValue": "3" } },
      { "key": "edge.ratio", "value": { "doubleValue": 0.25 } },
      { "key": "edge.enabled", "value": { "boolValue": false } },
      { "key": "edge.empty", "value": { "stringValue": "" } }
    ] },
    "schemaUrl": "https://opentelemetry.io/schemas/1.37.0",
    "scopeMetrics": [{
      "scope": { "name": "edge-exporter", "version": "0.1.0", "attributes": [{ "key": "scope.kind", "value": { "stringValue": "collector" } }] },
      "schemaUrl": "https://opentelemetry.io/schemas/1.36.0",
      "metrics": [
        {
          "name": "edge.requests", "description": "Requests the edge served", "unit": "{request}",
          "sum": {
            "dataPoints": [
              { "attributes": [{ "key": "domain", "value": { "stringValue": "a.example" } }, { "key": "code", "value": { "stringValue": "200" } }],
                "startTimeUnixNano": "${T0}", "timeUnixNano": ${T1}, "asInt": "${BIG_INT}" },
              { "attributes": [{ "key": "domain", "value": { "stringValue": "b.example" } }, { "key": "code", "value": { "stringValue": "503" } }],
                "startTimeUnixNano": "${T1}", "timeUnixNano": "${T2}", "asDouble": 12.5 },
              { "attributes": [{ "key": "domain", "value": { "stringValue": "a.example" } }, { "key": "code", "value": { "stringValue": "200" } }],
                "startTimeUnixNano": "${T0}", "timeUnixNano": "${T2}", "asInt": 0 }
            ],
            "aggregationTemporality": 2,
            "isMonotonic": true
          }
        },
        {
          "name": "edge.bandwidth", "unit": "By/s",
          "gauge": { "dataPoints": [
            { "attributes": [{ "key": "node", "value": { "intValue": -7 } }], "timeUnixNano": "${T1}", "asDouble": -1.25e-7 },
            { "timeUnixNano": "${T2}", "asDouble": "NaN", "flags": 1 }
          ] }
        },
        {
          "name": "edge.latency", "description": "Origin latency", "unit": "s",
          "histogram": {
            "aggregationTemporality": 1,
            "dataPoints": [
              { "attributes": [], "startTimeUnixNano": "${T0}", "timeUnixNano": "${T1}", "count": "10", "sum": 3.5, "min": 0.01, "max": 2,
                "bucketCounts": ["1", "2", 3, "4"], "explicitBounds": [0.1, 0.5, 1] },
              { "attributes": [{ "key": "edge.cached", "value": { "boolValue": true } }], "startTimeUnixNano": "${T1}", "timeUnixNano": "${T2}",
                "count": 0, "bucketCounts": [], "explicitBounds": [] }
            ]
          }
        }
      ]
    }]
  }]
}`;

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('decodeMetricsWithProtoc', () => {
  afterEach(() => {
    delete process.env.PROTOC;
  });

  it('decodes a protobuf request to the values it was built from, 64-bit times exact', async () => {
    const decoded = await decodeMetricsWithProtoc(encode(REQUEST));
    expect(decoded).toEqual(EXPECTED);
    // toEqual compares bigints by value; say it outright for the ones a double cannot hold.
    const sum = decoded.resources[0]?.scopes[0]?.metrics[0];
    expect(sum?.points.map((p) => [p.startTimeUnixNano, p.timeUnixNano])).toEqual([
      [T0, T1],
      [T1, T2],
      [T0, T2],
    ]);
    expect(sum?.points[0]?.intValue).toBe(BIG_INT);
  });

  it('decodes an empty body as an empty request (protobuf has no header)', async () => {
    expect(await decodeMetricsWithProtoc(new Uint8Array())).toEqual({ resources: [] });
  });

  it("throws with protoc's stderr on a body that is not a request", async () => {
    await expect(decodeMetricsWithProtoc(utf8('not a protobuf'))).rejects.toThrow(/exit 1\): Failed to parse input/);
    // A truncated request too.
    const body = encode(REQUEST);
    await expect(decodeMetricsWithProtoc(body.subarray(0, body.length - 3))).rejects.toThrow(/Failed to parse input/);
  });

  it('throws on a field the schema does not know, which protoc prints by number', async () => {
    // Field 99, varint 1, after a valid request.
    const body = new Uint8Array([...encode(REQUEST), 0x98, 0x06, 0x01]);
    await expect(decodeMetricsWithProtoc(body)).rejects.toThrow(/field number 99/);
  });

  it('throws on data the structure has no room for: a summary, an array attribute', async () => {
    const withMetric = (metric: object): object => ({ resourceMetrics: [{ scopeMetrics: [{ metrics: [metric] }] }] });
    await expect(decodeMetricsWithProtoc(encode(withMetric({ name: 'q', summary: { dataPoints: [{ count: '1' }] } })))).rejects.toThrow(/\(q\): summary is not read/);
    const arrayAttribute = { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }] } } };
    await expect(decodeMetricsWithProtoc(encode(withMetric({ name: 'g', gauge: { dataPoints: [{ attributes: [arrayAttribute], asDouble: 1 }] } })))).rejects.toThrow(
      /\(list\): arrayValue is not an attribute value/,
    );
  });

  it('runs $PROTOC, and says how to install protoc when it is missing', async () => {
    process.env.PROTOC = '/nonexistent/protoc';
    await expect(decodeMetricsWithProtoc(encode(REQUEST))).rejects.toThrow(/\/nonexistent\/protoc not found: run scripts\/install-test-deps.sh/);
  });
});

describe('decodeMetricsJson', () => {
  it('decodes the same request written as OTLP/JSON to the same structure', async () => {
    expect(decodeMetricsJson(utf8(JSON_BODY))).toEqual(EXPECTED);
    expect(decodeMetricsJson(utf8(JSON_BODY))).toEqual(await decodeMetricsWithProtoc(encode(REQUEST)));
  });

  it('keeps a 64-bit integer written as a JSON number exact', () => {
    const body = `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"n","gauge":{"dataPoints":[{"timeUnixNano":${T2},"asInt":-${BIG_INT}}]}}]}]}]}`;
    const point = decodeMetricsJson(utf8(body)).resources[0]?.scopes[0]?.metrics[0]?.points[0];
    expect(point?.timeUnixNano).toBe(T2);
    expect(point?.intValue).toBe(-BIG_INT);
  });

  it('throws on what is not OTLP/JSON: not JSON, a misspelt key, a wrong type, a metric without data', () => {
    expect(() => decodeMetricsJson(utf8('{"resourceMetrics": ['))).toThrow(SyntaxError);
    // A snake_case key is not OTLP/JSON's: read as absent, the time would be 0.
    expect(() => decodeMetricsJson(utf8('{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"g","gauge":{"dataPoints":[{"time_unix_nano":"1","asDouble":1}]}}]}]}]}'))).toThrow(
      /dataPoints\[0\]: no field "time_unix_nano"/,
    );
    expect(() => decodeMetricsJson(utf8('{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"s","sum":{"isMonotonic":"yes"}}]}]}]}'))).toThrow(/isMonotonic: a boolean expected/);
    expect(() => decodeMetricsJson(utf8('{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"s"}]}]}]}'))).toThrow(/\(s\): one of sum, gauge, histogram expected, found no data/);
  });
});

describe('flattenPoints', () => {
  it('gives one row per point with its metric, series and times in ns and ms', () => {
    const rows = flattenPoints(decodeMetricsJson(utf8(JSON_BODY)));
    expect(rows.map((r) => r.series)).toEqual([
      'edge.requests{code="200",domain="a.example"}',
      'edge.requests{code="503",domain="b.example"}',
      'edge.requests{code="200",domain="a.example"}',
      'edge.bandwidth{node=-7}',
      'edge.bandwidth{}',
      'edge.latency{}',
      'edge.latency{edge.cached=true}',
    ]);
    expect(rows[0]).toEqual({
      resource: EXPECTED.resources[0]?.attributes,
      scope: 'edge-exporter',
      metric: 'edge.requests',
      description: 'Requests the edge served',
      unit: '{request}',
      kind: 'sum',
      temporality: 'cumulative',
      monotonic: true,
      series: 'edge.requests{code="200",domain="a.example"}',
      attributes: { domain: 'a.example', code: '200' },
      startNs: T0,
      timeNs: T1,
      startMs: 1_700_000_000_123 + 0.456_789,
      timeMs: 1_700_000_060_987 + 0.654_321,
      value: Number(BIG_INT),
      intValue: BIG_INT,
    });
    expect(rows[5]).toMatchObject({ metric: 'edge.latency', kind: 'histogram', temporality: 'delta', count: 10, sum: 3.5, bucketCounts: [1, 2, 3, 4] });
    expect(rows[5]).not.toHaveProperty('monotonic');
    // Whole milliseconds stay whole.
    const whole = flattenPoints(decodeMetricsJson(utf8('{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"n","gauge":{"dataPoints":[{"timeUnixNano":"1700000000123000000","asDouble":1}]}}]}]}]}')));
    expect(whole[0]?.timeMs).toBe(1_700_000_000_123);
  });
});
