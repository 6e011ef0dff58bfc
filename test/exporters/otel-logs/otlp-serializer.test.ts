// The protobufjs serializer against the SDK's own encoding: what the exporter
// sends for a batch of LogEvents, decoded with the official
// opentelemetry-proto schema (proto/), equals field by field what the SDK's
// ProtobufLogsSerializer encodes for the records of the same events
// (toReadableLogRecord, which readable.test.ts holds equal to the SDK's
// emitted records).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEvent } from '../../../src/forwarder/log-sink.js';
import { ProtobufLogExporter } from '../../../src/exporters/otel-logs/exporter.js';
import { createLogsSerializer } from '../../../src/exporters/otel-logs/otlp-serializer.js';
import type { EncodedBatch } from '../../../src/exporters/otel-logs/sink-batch.js';
import { SCOPE_NAME, buildResource } from '../../../src/exporters/otel-logs/pipeline.js';
import { ATTR_LOG_RECORD_UID, instrumentationScope, toReadableLogRecord } from '../../../src/exporters/otel-logs/record.js';
import { officialLogsRequestType } from '../../support/otlp-decode.js';
import { MANY_ATTRIBUTES, batchOf, denyEvent, simulatorWafEvents } from './fixtures.js';

const requestType = officialLogsRequestType();

/** Every field as a receiver reads it (proto3: an absent field is its default), 64-bit integers exact. */
function decoded(body: Uint8Array): Record<string, unknown> {
  return requestType.toObject(requestType.decode(body), { longs: String, enums: Number, bytes: String, defaults: true, arrays: true, oneofs: true });
}

const RESOURCE_OPTIONS = { serviceName: 'edge-exporter', serviceVersion: '1.2.3', serviceInstanceId: 'host-1', attributes: { 'deployment.environment.name': 'prod' } };
const resource = buildResource(RESOURCE_OPTIONS);
const scope = instrumentationScope(SCOPE_NAME, RESOURCE_OPTIONS.serviceVersion);

const WAF_EVENTS = simulatorWafEvents();
const many = MANY_ATTRIBUTES;
const TWO_32_NS_MS = 2 ** 32 / 1e6;
const EDGE_CASES: LogEvent[] = [
  denyEvent(1),
  denyEvent(2, { severity: 'UNSPECIFIED', severityText: '', body: '', eventName: '' }),
  denyEvent(3, { severity: 'WARN', attributes: { [ATTR_LOG_RECORD_UID]: 'not-this-one', 'edge.empty': '', 'edge.list': [], '': 'dropped', 'edge.neg': -5, 'edge.big': 2 ** 60 } }),
  denyEvent(4, { severity: 'INFO', attributes: many }),
  denyEvent(5, { attributes: { ...many, [ATTR_LOG_RECORD_UID]: 'x' } }),
  denyEvent(6, { body: 'WAF denied GET /login — 高风险', attributes: { 'edge.emoji': 'näive 🚀 ĳ', 'edge.list': ['a', 'β', 'c'], 'edge.ratio': 0.25, 'edge.nan': Number.NaN, 'edge.inf': -Infinity, 'edge.off': false, 'edge.huge': 2 ** 63, 'edge.min': -(2 ** 63) } }),
];

/**
 * Times the fixed64 halves must get exactly: fractions of a ms (rounded to
 * the ns, carried into the next second), the 2^32 ns boundary, past 2^53 ns,
 * 2^32 s, and past 2116, where the serializer falls back to BigInt.
 */
const TIMES_MS = [
  0, 1, 1.5, 0.000_000_4, 0.999_999_6, 999.999_999_9, 1_750_000_000_123.456, 1_764_201_600_123.457,
  TWO_32_NS_MS, TWO_32_NS_MS - 0.000_001, TWO_32_NS_MS + 0.000_001, 2 ** 53 / 1e6, 2 ** 53 / 1e6 + 1,
  4_294_967_296_000, 4_611_686_018_427, 4_611_686_018_428, 8_000_000_000_000,
];
/**
 * Before 1970: no WAF event's time, and the SDK's own encoder writes these
 * differently (its high half is not the two's complement); the serializer
 * keeps what its BigInt conversion always sent, the nanoseconds mod 2^64.
 */
const NEGATIVE_MS = [-1, -1.5, -86_400_000, -1_750_000_000_123.456, -8_000_000_000_000];
const TIME_EVENTS: LogEvent[] = TIMES_MS.map((ms, i) => denyEvent(100 + i, { timestampMs: ms, observedMs: ms + 0.5 }));
const NEGATIVE_EVENTS: LogEvent[] = NEGATIVE_MS.map((ms, i) => denyEvent(200 + i, { timestampMs: ms, observedMs: ms - 0.5 }));

/** Unix nanoseconds for `ms` as the SDK computes them (msToHrTime, then BigInt), as the decoder prints a fixed64: unsigned, mod 2^64. */
function expectedNanos(ms: number): string {
  let seconds = Math.floor(ms / 1000);
  let nanos = Math.round((ms - seconds * 1000) * 1e6);
  if (nanos >= 1e9) [seconds, nanos] = [seconds + 1, nanos - 1e9];
  return BigInt.asUintN(64, BigInt(seconds) * 1_000_000_000n + BigInt(nanos)).toString();
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Exports each batch through the real exporter to a loopback server; the bodies it received, in order. */
async function sent(batches: ReadonlyArray<readonly LogEvent[]>): Promise<Buffer[]> {
  const bodies: Buffer[] = [];
  server = createServer((req, res) => {
    void buffer(req).then((body) => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const serializer = createLogsSerializer(resource, scope);
  const exporter = new ProtobufLogExporter({ url: `http://127.0.0.1:${port}/v1/logs`, timeoutMillis: 5_000 }, serializer);
  for (const events of batches) {
    const batch = batchOf(serializer, events);
    const result = await new Promise<ExportResult>((resolve) => exporter.export(batch, resolve));
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    batch.spend();
  }
  await exporter.shutdown();
  return bodies;
}

/** The SDK's encoding of the same events, decoded alike. */
const sdkDecoded = (events: readonly LogEvent[]): Record<string, unknown> =>
  decoded(ProtobufLogsSerializer.serializeRequest(events.map((event) => toReadableLogRecord(event, resource, scope))) ?? new Uint8Array());

type Decoded = { resourceLogs: Array<{ schemaUrl: string; resource: { attributes: unknown[] }; scopeLogs: Array<{ schemaUrl: string; scope: { name: string; version: string }; logRecords: Array<Record<string, unknown>> }> }> };

describe('the protobufjs OTLP logs serializer', () => {
  it.each([
    ['an hour of simulator WAF events', WAF_EVENTS],
    ['edge cases: empty texts, a uid attribute, an empty key, more attributes than the limit, odd numbers', EDGE_CASES],
    ['edge-case times', TIME_EVENTS],
  ])("sends for %s what the SDK's ProtobufLogsSerializer encodes, field by field under the official schema", async (_what, events) => {
    expect(events.length).toBeGreaterThan(5);
    const [body] = await sent([events]);
    expect(decoded(body ?? Buffer.alloc(0))).toEqual(sdkDecoded(events));
  });

  it('sends each batch whole through one reused writer: a large batch, then a small one, then a large one again', async () => {
    const batches = [WAF_EVENTS.slice(0, 512), EDGE_CASES.slice(0, 2), WAF_EVENTS.slice(100, 400)];
    const bodies = await sent(batches);
    expect(bodies).toHaveLength(3);
    bodies.forEach((body, i) => expect(decoded(body)).toEqual(sdkDecoded(batches[i] ?? [])));
  });

  it('encodes attributes the same whether their value was seen before or not: repeated, never repeated, one value in several types', async () => {
    // Over 2,048 events: past the most values one key keeps encoded, for a key whose values never come back
    // (its cache given up) and for one whose values come twice (its cache emptied and refilled).
    const MIXED: ReadonlyArray<LogEvent['attributes'][string]> = ['1', 1, ['1'], true, 'true', 1.5, -0, 0, ['1', '2'], [], 2 ** 63];
    const events = Array.from({ length: 2600 }, (_, i) => denyEvent(1000 + i, {
      attributes: {
        ...WAF_EVENTS[i % WAF_EVENTS.length]?.attributes,
        'edge.test.repeated': `v${i % 7}`,
        'edge.test.unique': `u${i}`,
        'edge.test.twice': `t${i >> 1}`,
        'edge.test.mixed': MIXED[i % MIXED.length] ?? '',
      },
    }));
    const batches = Array.from({ length: Math.ceil(events.length / 512) }, (_, k) => events.slice(k * 512, (k + 1) * 512));
    const bodies = await sent(batches);
    expect(bodies).toHaveLength(batches.length);
    bodies.forEach((body, i) => expect(decoded(body)).toEqual(sdkDecoded(batches[i] ?? [])));
  });

  it('keeps what the comparison relies on: resource, scope, times to the nanosecond, the uid first, the limit, severities', async () => {
    const [edge, times, negative] = await sent([EDGE_CASES, TIME_EVENTS, NEGATIVE_EVENTS]);
    const request = decoded(edge ?? Buffer.alloc(0)) as Decoded;
    expect(request.resourceLogs.map((r) => r.schemaUrl)).toEqual([resource.schemaUrl]);
    expect(request.resourceLogs[0]?.resource.attributes).toContainEqual(expect.objectContaining({ key: 'deployment.environment.name', value: expect.objectContaining({ stringValue: 'prod' }) }));
    const scopeLogs = request.resourceLogs[0]?.scopeLogs[0];
    expect([scopeLogs?.scope.name, scopeLogs?.scope.version, scopeLogs?.schemaUrl]).toEqual(['edge-exporter', '1.2.3', scope.schemaUrl]);
    const records = scopeLogs?.logRecords ?? [];
    expect(records.map((r) => r['severityNumber'])).toEqual([SeverityNumber.ERROR, 0, SeverityNumber.WARN, SeverityNumber.INFO, SeverityNumber.ERROR, SeverityNumber.ERROR]);
    const uids = records.map((r) => (r['attributes'] as Array<{ key: string; value: { stringValue: string } }>)[0]);
    expect(uids.map((kv) => [kv?.key, kv?.value.stringValue])).toEqual(EDGE_CASES.map((e) => [ATTR_LOG_RECORD_UID, e.uid]));
    expect(records.map((r) => [(r['attributes'] as unknown[]).length, r['droppedAttributesCount']])).toEqual([[11, 0], [11, 0], [5, 0], [128, 6], [128, 6], [9, 0]]);
    expect(records[1]?.['body']).toEqual(expect.objectContaining({ stringValue: '' }));

    const timed = (decoded(times ?? Buffer.alloc(0)) as Decoded).resourceLogs[0]?.scopeLogs[0]?.logRecords ?? [];
    expect(timed.map((r) => [r['timeUnixNano'], r['observedTimeUnixNano']])).toEqual(TIMES_MS.map((ms) => [expectedNanos(ms), expectedNanos(ms + 0.5)]));
    const before1970 = (decoded(negative ?? Buffer.alloc(0)) as Decoded).resourceLogs[0]?.scopeLogs[0]?.logRecords ?? [];
    expect(before1970.map((r) => [r['timeUnixNano'], r['observedTimeUnixNano']])).toEqual(NEGATIVE_MS.map((ms) => [expectedNanos(ms), expectedNanos(ms - 0.5)]));
    expect(before1970[0]?.['timeUnixNano']).toBe((2n ** 64n - 1_000_000n).toString());
    expect(timed.slice(0, 4).map((r) => r['timeUnixNano'])).toEqual(['0', '1000000', '1500000', '0']);
    expect(timed[8]?.['timeUnixNano']).toBe('4294967296');
  });
});

describe('a batch\'s records, encoded as its events are added', () => {
  /** `events` with their uids marked, as another batch of the same shape. */
  const generation = (events: readonly LogEvent[], mark: string): LogEvent[] => events.map((e) => ({ ...e, uid: `${e.uid}-${mark}` }));
  /** The bytes a serializer of its own writes for `events`. */
  const plain = (events: readonly LogEvent[]): Buffer => {
    const serializer = createLogsSerializer(resource, scope);
    return Buffer.from(serializer.serializeRequest(batchOf(serializer, events)) ?? new Uint8Array());
  };

  it('sends the same bytes again (a retry) after other batches were filled, until it is spent', () => {
    const serializer = createLogsSerializer(resource, scope);
    const events = [...WAF_EVENTS, ...EDGE_CASES];
    const batch = batchOf(serializer, events);
    const first = Buffer.from(serializer.serializeRequest(batch) ?? new Uint8Array());
    expect(decoded(first)).toEqual(sdkDecoded(events));
    batchOf(serializer, generation(WAF_EVENTS, 'next'));
    expect(Buffer.from(serializer.serializeRequest(batch) ?? new Uint8Array()).equals(first)).toBe(true);
    expect(first.equals(plain(events))).toBe(true);
  });

  it('writes over memory only once every record in it was spent, and refuses to send a batch spent before', () => {
    const serializer = createLogsSerializer(resource, scope);
    // Three generations of the simulator's events: each more than 1 MB of records, so each spans two chunks.
    const [a, b, c] = ['a', 'b', 'c'].map((mark) => generation([...WAF_EVENTS, ...WAF_EVENTS, ...WAF_EVENTS].map((e, i) => ({ ...e, uid: `${e.uid}-${i}` })), mark)) as [LogEvent[], LogEvent[], LogEvent[]];
    const batchA = batchOf(serializer, a);
    const batchB = batchOf(serializer, b);
    const chunksOf = (batch: EncodedBatch): unknown[] => batch.records.chunks;
    expect(new Set(chunksOf(batchA)).size).toBe(2);
    // B was encoded after A, unspent: A is intact.
    expect(Buffer.from(serializer.serializeRequest(batchA) ?? new Uint8Array()).equals(plain(a))).toBe(true);
    batchA.spend();
    batchA.spend(); // twice counts once
    const batchC = batchOf(serializer, c);
    // C went on in B's last chunk, then took A's first, which only A's records used; A's last one holds B's first
    // records and was not taken.
    expect(chunksOf(batchC)[0] === chunksOf(batchB).at(-1)).toBe(true);
    expect(chunksOf(batchC).includes(chunksOf(batchA)[0])).toBe(true);
    expect(chunksOf(batchC).includes(chunksOf(batchA).at(-1))).toBe(false);
    expect(Buffer.from(serializer.serializeRequest(batchB) ?? new Uint8Array()).equals(plain(b))).toBe(true);
    expect(Buffer.from(serializer.serializeRequest(batchC) ?? new Uint8Array()).equals(plain(c))).toBe(true);
    expect(() => serializer.serializeRequest(batchA)).toThrow(/released before they were sent/);
  });
});
