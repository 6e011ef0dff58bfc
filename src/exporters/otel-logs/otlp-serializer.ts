// The OTLP/protobuf logs request, encoded by protobufjs from the official
// opentelemetry-proto schema (proto/ at the repository root, vendored),
// straight from a batch of LogEvents: the bytes the SDK's
// ProtobufLogsSerializer writes for the records toReadableLogRecords builds
// (record.ts), without building those records, and with as few objects per
// event as protobufjs' encoder allows (docs/benchmarks.md 12.3). Plugged into
// the SDK's own export delegate (exporter.ts), which keeps the transport,
// retries, headers and the response decoding.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProtobufLogsSerializer, type IExportLogsServiceResponse, type ISerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import protobuf from 'protobufjs';
import type { LogEvent } from '../../collectors/index.js';
import { ATTRIBUTE_COUNT_LIMIT, ATTR_LOG_RECORD_UID, SEVERITY_NUMBERS } from './record.js';

/** proto/ at the repository root: three levels up from src/exporters/otel-logs and from dist/exporters/otel-logs alike. */
const PROTO_ROOT = fileURLToPath(new URL('../../../proto/', import.meta.url));

function loadRequestType(): protobuf.Type {
  const root = new protobuf.Root();
  // The files import each other by their upstream paths, relative to the schema's root.
  root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
  root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto');
  return root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
}

/** A fixed64 as protobufjs takes it without the `long` package: two unsigned 32-bit halves. */
interface Fixed64 {
  readonly low: number;
  readonly high: number;
  readonly unsigned: true;
}

const NANOS_PER_MS = 1_000_000;
const NANOS_PER_SECOND = 1_000_000_000;
/** 10^9 = 2^9 * 1,953,125: seconds * 1,953,125 stays an exact double for |seconds| below about 4.6e9 (years 1824 to 2116). */
const NANOS_PER_SECOND_ODD = 1_953_125;
const TWO_9 = 2 ** 9;
const TWO_23 = 2 ** 23;
const TWO_32 = 2 ** 32;

/**
 * Epoch ms -> unix nanoseconds as fixed64 halves, exactly what the SDK sends
 * for msToHrTime(ms) (record.ts: the same rounding and carry), without a
 * BigInt per time: seconds * 10^9 is split as (seconds * 1,953,125) * 2^9,
 * whose high and low 32-bit halves are exact double arithmetic. BigInt only
 * outside that range, where the halves would not be exact (NaN throws there,
 * as the SDK's conversion does).
 */
function nanosOfMs(ms: number): Fixed64 {
  let seconds = Math.floor(ms / 1000);
  let nanos = Math.round((ms - seconds * 1000) * NANOS_PER_MS);
  if (nanos >= NANOS_PER_SECOND) {
    seconds += 1;
    nanos -= NANOS_PER_SECOND;
  }
  const scaled = seconds * NANOS_PER_SECOND_ODD;
  if (!Number.isSafeInteger(scaled)) return bigNanos(seconds, nanos);
  // total = scaled * 2^9 + nanos; scaled = high * 2^23 + rest, so total = high * 2^32 + rest * 2^9 + nanos.
  let high = Math.floor(scaled / TWO_23);
  let low = (scaled - high * TWO_23) * TWO_9 + nanos;
  if (low >= TWO_32) {
    low -= TWO_32;
    high += 1;
  }
  return { low, high: high >>> 0, unsigned: true };
}

function bigNanos(seconds: number, nanos: number): Fixed64 {
  const total = BigInt(seconds) * 1_000_000_000n + BigInt(nanos);
  return { low: Number(total & 0xffff_ffffn), high: Number((total >> 32n) & 0xffff_ffffn), unsigned: true };
}

/** int64's range: an integer outside it goes as a double, as the SDK sends it. */
const MIN_INT64 = -(2 ** 63);
const MAX_INT64 = 2 ** 63;

/**
 * One attribute as protobufjs encodes it: a KeyValue that is its own AnyValue
 * (`value` points back at the object). The generated encoders read `key` and
 * `value` for the KeyValue and only the oneof fields, by own property, for
 * the AnyValue: one object per attribute instead of two.
 */
interface Attribute {
  readonly key: string;
  value?: Attribute;
  readonly stringValue?: string;
  readonly boolValue?: boolean;
  readonly intValue?: number;
  readonly doubleValue?: number;
  readonly arrayValue?: { readonly values: AnyValueMessage[] };
}

type AnyValueMessage =
  | Record<string, never>
  | { readonly stringValue: string }
  | { readonly boolValue: boolean }
  | { readonly intValue: number }
  | { readonly doubleValue: number }
  | { readonly arrayValue: { readonly values: AnyValueMessage[] } };

/** What the SDK's writeAnyValue writes for each type a LogEvent or the resource carries; anything else is an empty AnyValue, as there. */
function anyValue(value: unknown): AnyValueMessage {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return isInt64(value) ? { intValue: value } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  return {};
}

function isInt64(value: number): boolean {
  return Number.isInteger(value) && value >= MIN_INT64 && value < MAX_INT64;
}

/** anyValue(value) as an Attribute under `key`: the same oneof field, in the same object as the key. */
function attribute(key: string, value: LogEvent['attributes'][string]): Attribute {
  let kv: Attribute;
  if (typeof value === 'string') kv = { key, stringValue: value };
  else if (typeof value === 'number') kv = isInt64(value) ? { key, intValue: value } : { key, doubleValue: value };
  else if (typeof value === 'boolean') kv = { key, boolValue: value };
  else kv = { key, arrayValue: { values: value.map(anyValue) } };
  kv.value = kv;
  return kv;
}

interface LogRecordMessage {
  readonly timeUnixNano: Fixed64;
  readonly observedTimeUnixNano: Fixed64;
  readonly severityNumber: number;
  readonly severityText: string;
  readonly body: AnyValueMessage;
  readonly eventName: string;
  readonly attributes: Attribute[];
  readonly droppedAttributesCount: number;
}

/**
 * The LogRecord the SDK encodes for toReadableLogRecords' record of this
 * event: `log.record.uid` first, then the event's own attributes in order
 * (an empty key and a second uid left out), at most ATTRIBUTE_COUNT_LIMIT of
 * them, the rest counted as dropped. Zero severity and empty texts are left
 * out by the encoder, as by the SDK's.
 */
function logRecord(event: LogEvent): LogRecordMessage {
  const attributes: Attribute[] = [attribute(ATTR_LOG_RECORD_UID, event.uid)];
  let dropped = 0;
  const source = event.attributes;
  for (const key in source) {
    if (key === ATTR_LOG_RECORD_UID || key === '' || !Object.hasOwn(source, key)) continue;
    if (attributes.length >= ATTRIBUTE_COUNT_LIMIT) dropped++;
    else attributes.push(attribute(key, source[key] as LogEvent['attributes'][string]));
  }
  return {
    timeUnixNano: nanosOfMs(event.timestampMs),
    observedTimeUnixNano: nanosOfMs(event.observedMs),
    severityNumber: SEVERITY_NUMBERS[event.severity],
    severityText: event.severityText,
    body: { stringValue: event.body },
    eventName: event.eventName,
    attributes,
    droppedAttributesCount: dropped,
  };
}

/** Own enumerable keys, as the SDK's writeAttributes takes them. */
function keyValues(attributes: Readonly<Record<string, unknown>>): Array<{ key: string; value: AnyValueMessage }> {
  const out: Array<{ key: string; value: AnyValueMessage }> = [];
  for (const key in attributes) if (Object.hasOwn(attributes, key)) out.push({ key, value: anyValue(attributes[key]) });
  return out;
}

/**
 * The request encoder for one resource and scope (every record of the sink
 * carries the same two; their messages are built once), and the SDK's
 * response decoder. One Writer per serializer, reset for each batch: its
 * buffer, grown to a batch's size once, is not grown again from 128 bytes
 * for every batch; finish() copies the request out of it (the SDK keeps the
 * bytes for its retries while the next batch is encoded).
 */
export function createLogsSerializer(resource: Resource, scope: ReadableLogRecord['instrumentationScope']): ISerializer<readonly LogEvent[], IExportLogsServiceResponse> {
  const requestType = loadRequestType();
  let writer = protobuf.Writer.create();
  const resourceMessage = { attributes: keyValues(resource.attributes), droppedAttributesCount: 0 };
  const scopeMessage = scope.version ? { name: scope.name, version: scope.version } : { name: scope.name };
  return {
    serializeRequest: (events) => {
      const scopeLogs = { scope: scopeMessage, logRecords: events.map(logRecord), ...(scope.schemaUrl ? { schemaUrl: scope.schemaUrl } : {}) };
      const request = { resourceLogs: [{ resource: resourceMessage, scopeLogs: [scopeLogs], ...(resource.schemaUrl ? { schemaUrl: resource.schemaUrl } : {}) }] };
      // A fresh writer if an encode ever stopped half-way (its forks still open); otherwise the grown one, from its start.
      if (writer.states?.length) writer = protobuf.Writer.create();
      return requestType.encode(request, writer.reset()).finish();
    },
    deserializeResponse: (data) => ProtobufLogsSerializer.deserializeResponse(data),
  };
}
