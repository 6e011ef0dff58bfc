// The OTLP/protobuf logs request, encoded by protobufjs from the official
// opentelemetry-proto schema (proto/ at the repository root, vendored): the
// fields the SDK's ProtobufLogsSerializer writes, at less CPU per record (its
// writer walks every string twice in JavaScript; docs/benchmarks.md 12.x).
// Plugged into the SDK's own export delegate (exporter.ts), which keeps the
// transport, retries, headers and the response decoding.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HrTime } from '@opentelemetry/api';
import { ProtobufLogsSerializer, type IExportLogsServiceResponse, type ISerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import protobuf from 'protobufjs';

/** proto/ at the repository root: three levels up from src/exporters/otel-logs and from dist/exporters/otel-logs alike. */
const PROTO_ROOT = fileURLToPath(new URL('../../../proto/', import.meta.url));

function loadRequestType(): protobuf.Type {
  const root = new protobuf.Root();
  // The files import each other by their upstream paths, relative to the schema's root.
  root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
  root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto');
  return root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
}

/** A fixed64 as protobufjs takes it without the `long` package: two 32-bit halves. */
interface Fixed64 {
  readonly low: number;
  readonly high: number;
  readonly unsigned: true;
}

type AnyValueMessage =
  | Record<string, never>
  | { readonly stringValue: string }
  | { readonly boolValue: boolean }
  | { readonly intValue: number }
  | { readonly doubleValue: number }
  | { readonly bytesValue: Uint8Array }
  | { readonly arrayValue: { readonly values: AnyValueMessage[] } }
  | { readonly kvlistValue: { readonly values: KeyValueMessage[] } };

interface KeyValueMessage {
  readonly key: string;
  readonly value: AnyValueMessage;
}

const NANOS_PER_SECOND = 1_000_000_000n;
const LOW_32 = 0xffff_ffffn;
/** int64's range: an integer outside it goes as a double, as the SDK sends it. */
const MIN_INT64 = -(2 ** 63);
const MAX_INT64 = 2 ** 63;

function nanos(time: HrTime): Fixed64 {
  const total = BigInt(time[0]) * NANOS_PER_SECOND + BigInt(time[1]);
  return { low: Number(total & LOW_32), high: Number((total >> 32n) & LOW_32), unsigned: true };
}

/** A map value (an AnyValue kvlist), or attributes: every other object; arrays and bytes are checked first. */
function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null;
}

/** What the SDK's writeAnyValue writes for each JavaScript type; anything else is an empty AnyValue, as there. */
function anyValue(value: unknown): AnyValueMessage {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= MIN_INT64 && value < MAX_INT64 ? { intValue: value } : { doubleValue: value };
  }
  if (value instanceof Uint8Array) return { bytesValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  if (isRecord(value)) return { kvlistValue: { values: keyValues(value) } };
  return {};
}

/** Own enumerable keys, as the SDK's writeAttributes takes them; for-in rather than Object.entries: no pair array per attribute. */
function keyValues(attributes: Readonly<Record<string, unknown>>): KeyValueMessage[] {
  const out: KeyValueMessage[] = [];
  for (const key in attributes) if (Object.hasOwn(attributes, key)) out.push({ key, value: anyValue(attributes[key]) });
  return out;
}

function logRecord(record: ReadableLogRecord): Record<string, unknown> {
  const message: Record<string, unknown> = {
    timeUnixNano: nanos(record.hrTime),
    observedTimeUnixNano: nanos(record.hrTimeObserved),
    attributes: keyValues(record.attributes),
    droppedAttributesCount: record.droppedAttributesCount,
  };
  if (record.severityNumber !== undefined && record.severityNumber !== 0) message['severityNumber'] = record.severityNumber;
  if (record.severityText) message['severityText'] = record.severityText;
  if (record.body !== undefined) message['body'] = anyValue(record.body);
  if (record.eventName) message['eventName'] = record.eventName;
  const span = record.spanContext;
  if (span?.traceFlags) message['flags'] = span.traceFlags;
  if (span?.traceId) message['traceId'] = Buffer.from(span.traceId, 'hex');
  if (span?.spanId) message['spanId'] = Buffer.from(span.spanId, 'hex');
  return message;
}

/** Records grouped by resource, then scope (by identity, as the SDK groups them), in first-seen order. */
function request(records: readonly ReadableLogRecord[]): { resourceLogs: unknown[] } {
  const byResource = new Map<Resource, Map<ReadableLogRecord['instrumentationScope'], ReadableLogRecord[]>>();
  for (const record of records) {
    let scopes = byResource.get(record.resource);
    if (scopes === undefined) byResource.set(record.resource, (scopes = new Map()));
    const list = scopes.get(record.instrumentationScope);
    if (list === undefined) scopes.set(record.instrumentationScope, [record]);
    else list.push(record);
  }
  const resourceLogs = [...byResource].map(([resource, scopes]) => ({
    resource: { attributes: keyValues(resource.attributes), droppedAttributesCount: 0 },
    scopeLogs: [...scopes].map(([scope, list]) => ({
      scope: scope.version ? { name: scope.name, version: scope.version } : { name: scope.name },
      logRecords: list.map(logRecord),
      ...(scope.schemaUrl ? { schemaUrl: scope.schemaUrl } : {}),
    })),
    ...(resource.schemaUrl ? { schemaUrl: resource.schemaUrl } : {}),
  }));
  return { resourceLogs };
}

/** The request encoder (schema loaded once, at the first exporter); the SDK's response decoder. */
export function createLogsSerializer(): ISerializer<ReadableLogRecord[], IExportLogsServiceResponse> {
  const requestType = loadRequestType();
  return {
    serializeRequest: (records) => requestType.encode(request(records)).finish(),
    deserializeResponse: (data) => ProtobufLogsSerializer.deserializeResponse(data),
  };
}
