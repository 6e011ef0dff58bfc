// The protobufjs serializer against the SDK's own encoding: what the exporter
// sends, decoded with the official opentelemetry-proto schema (proto/), equals
// field by field what the SDK's ProtobufLogsSerializer encodes for the same records.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ProtobufLogExporter } from '../../../src/exporters/otel-logs/exporter.js';
import { buildResource } from '../../../src/exporters/otel-logs/pipeline.js';
import { officialLogsRequestType } from '../../support/otlp-decode.js';

const requestType = officialLogsRequestType();

/** Every field as a receiver reads it (proto3: an absent field is its default), 64-bit integers exact. */
function decoded(body: Uint8Array): Record<string, unknown> {
  return requestType.toObject(requestType.decode(body), { longs: String, enums: Number, bytes: String, defaults: true, arrays: true, oneofs: true });
}

const resource = buildResource({ serviceName: 'edge-exporter', serviceVersion: '1.2.3', serviceInstanceId: 'host-1', attributes: { 'deployment.environment.name': 'prod' } });
const bare = resourceFromAttributes({ 'service.name': 'other' });
const scope = { name: 'edge-exporter', version: '1.2.3', schemaUrl: 'https://opentelemetry.io/schemas/1.37.0' };
const scopeNoVersion = { name: 'bare-scope' };

function record(over: Partial<ReadableLogRecord>): ReadableLogRecord {
  return {
    hrTime: [1_764_201_600, 123_456_789],
    hrTimeObserved: [1_764_201_601, 999_999_999],
    resource,
    instrumentationScope: scope,
    attributes: {},
    droppedAttributesCount: 0,
    ...over,
  };
}

const RECORDS: ReadableLogRecord[] = [
  record({
    severityNumber: SeverityNumber.WARN,
    severityText: 'WARN',
    eventName: 'edge.waf.deny',
    body: 'WAF denied GET /login — 高风险',
    attributes: {
      'server.address': 'www.example.com',
      'edge.waf.severity_level': '高风险',
      'http.response.status_code': 417,
      'client.port': 0,
      'edge.big': 2 ** 60,
      'edge.negative': -42,
      'edge.ratio': 0.25,
      'edge.nan': Number.NaN,
      'edge.flag': true,
      'edge.off': false,
      'edge.empty': '',
      'edge.emoji': 'näive 🚀 ĳ',
      'edge.list': ['a', 'β', 'c'],
      'edge.numbers': [1, 2.5, -3],
      'edge.mixed': ['x', 1, true],
      'edge.bytes': new Uint8Array([0, 1, 254, 255]),
      'edge.map': { inner: 'v', n: 7, nested: { deep: ['z'] } },
      'edge.nothing': undefined,
    },
    droppedAttributesCount: 3,
  }),
  record({ severityNumber: SeverityNumber.ERROR, severityText: 'ERROR', body: { kind: 'map', list: [1, 'two'] }, hrTime: [0, 0], hrTimeObserved: [0, 1] }),
  record({ severityNumber: SeverityNumber.UNSPECIFIED, body: 12345, hrTime: [18_000_000_000, 5], attributes: { only: 'one' } }),
  record({
    severityNumber: SeverityNumber.INFO,
    spanContext: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 },
    body: 1.5,
  }),
  record({ instrumentationScope: scopeNoVersion, severityText: 'FATAL', severityNumber: SeverityNumber.FATAL4 }),
  record({ resource: bare, body: false }),
  record({ resource: bare, instrumentationScope: scopeNoVersion, body: ['a', 2] }),
];

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Exports through the real exporter to a loopback server; the bodies it received. */
async function sent(records: ReadableLogRecord[]): Promise<Buffer[]> {
  const bodies: Buffer[] = [];
  server = createServer((req, res) => {
    void buffer(req).then((body) => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const exporter = new ProtobufLogExporter({ url: `http://127.0.0.1:${port}/v1/logs`, timeoutMillis: 5_000 });
  const result = await new Promise<ExportResult>((resolve) => exporter.export(records, resolve));
  await exporter.shutdown();
  expect(result.code).toBe(ExportResultCode.SUCCESS);
  return bodies;
}

describe('the protobufjs OTLP logs serializer', () => {
  it("sends what the SDK's ProtobufLogsSerializer encodes, field by field under the official schema", async () => {
    const bodies = await sent(RECORDS);
    expect(bodies).toHaveLength(1);
    const ours = decoded(bodies[0] ?? Buffer.alloc(0));
    const sdk = ProtobufLogsSerializer.serializeRequest(RECORDS);
    expect(sdk).toBeDefined();
    expect(ours).toEqual(decoded(sdk ?? new Uint8Array()));
  });

  it('keeps what the comparison relies on: resources, scopes, times, strings and severities as given', async () => {
    const [body] = await sent(RECORDS);
    const request = decoded(body ?? Buffer.alloc(0)) as {
      resourceLogs: Array<{ schemaUrl: string; scopeLogs: Array<{ schemaUrl: string; scope: { name: string; version: string }; logRecords: Array<Record<string, unknown>> }> }>;
    };
    expect(request.resourceLogs.map((r) => r.schemaUrl)).toEqual([resource.schemaUrl, '']);
    expect(request.resourceLogs[0]?.scopeLogs.map((s) => [s.scope.name, s.scope.version, s.schemaUrl])).toEqual([
      ['edge-exporter', '1.2.3', scope.schemaUrl],
      ['bare-scope', '', ''],
    ]);
    const first = request.resourceLogs[0]?.scopeLogs[0]?.logRecords[0];
    expect(first?.['timeUnixNano']).toBe('1764201600123456789');
    expect(first?.['observedTimeUnixNano']).toBe('1764201601999999999');
    expect(first?.['severityNumber']).toBe(SeverityNumber.WARN);
    expect(first?.['body']).toEqual(expect.objectContaining({ stringValue: 'WAF denied GET /login — 高风险' }));
    const third = request.resourceLogs[0]?.scopeLogs[0]?.logRecords[2];
    expect(third?.['timeUnixNano']).toBe('18000000000000000005');
  });
});
