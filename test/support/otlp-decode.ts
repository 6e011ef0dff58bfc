// Decodes an OTLP logs export request (protobuf or JSON) into plain records, independently of the SDK's serializer.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import protobuf from 'protobufjs';

/** One LogRecord as a receiver saw it, with its resource and scope. */
export interface ReceivedLogRecord {
  /** fixed64 on the wire (protobuf), a decimal string in OTLP JSON: both become a bigint. */
  readonly timeUnixNano: bigint;
  readonly observedTimeUnixNano: bigint;
  /** 0 when absent (the SDK leaves UNSPECIFIED out). */
  readonly severityNumber: number;
  readonly severityText: string;
  /** LogRecord.event_name (field 12); '' when absent. */
  readonly eventName: string;
  readonly body: unknown;
  readonly attributes: Record<string, unknown>;
  readonly droppedAttributesCount: number;
  readonly resource: Record<string, unknown>;
  /** ResourceLogs.schema_url; '' when absent. */
  readonly resourceSchemaUrl: string;
  /** ScopeLogs.schema_url as schemaUrl; '' when absent. */
  readonly scope: { readonly name: string; readonly version: string; readonly schemaUrl: string };
}

export type OtlpEncoding = 'protobuf' | 'json';

/** The official opentelemetry-proto files the daemon vendors (proto/, unchanged upstream). */
const PROTO_ROOT = fileURLToPath(new URL('../../proto/', import.meta.url));

/** ExportLogsServiceRequest from the official schema, loaded by protobufjs apart from the daemon's own loader. */
export function officialLogsRequestType(): protobuf.Type {
  const root = new protobuf.Root();
  // The files import each other by their path from the repository's root.
  root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
  root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto', { keepCase: false });
  return root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
}

/** Decodes one request body; throws on a body that is not a valid request. */
export function createLogsDecoder(): (encoding: OtlpEncoding, body: Uint8Array) => ReceivedLogRecord[] {
  const requestType = officialLogsRequestType();
  return (encoding, body) => {
    const request: unknown =
      encoding === 'protobuf'
        ? // With camelCase names, BigInt longs and base64 bytes, the protobuf
          // decoding has the shape of OTLP JSON, so one walker reads both.
          requestType.toObject(requestType.decode(body), { longs: BigInt, enums: Number, bytes: String, defaults: false })
        : JSON.parse(Buffer.from(body).toString('utf8'));
    return flatten(request);
  };
}

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const objs = (value: unknown): Obj[] => (Array.isArray(value) ? value.filter(isObj) : []);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

function flatten(request: unknown): ReceivedLogRecord[] {
  if (!isObj(request)) throw new Error('export request is not an object');
  const out: ReceivedLogRecord[] = [];
  for (const resourceLogs of objs(request.resourceLogs)) {
    const resource = isObj(resourceLogs.resource) ? keyValues(resourceLogs.resource.attributes) : {};
    for (const scopeLogs of objs(resourceLogs.scopeLogs)) {
      const scope = isObj(scopeLogs.scope) ? scopeLogs.scope : {};
      for (const record of objs(scopeLogs.logRecords)) {
        out.push({
          timeUnixNano: nanos(record.timeUnixNano),
          observedTimeUnixNano: nanos(record.observedTimeUnixNano),
          severityNumber: typeof record.severityNumber === 'number' ? record.severityNumber : 0,
          severityText: str(record.severityText),
          eventName: str(record.eventName),
          body: anyValue(record.body),
          attributes: keyValues(record.attributes),
          droppedAttributesCount: typeof record.droppedAttributesCount === 'number' ? record.droppedAttributesCount : 0,
          resource,
          resourceSchemaUrl: str(resourceLogs.schemaUrl),
          scope: { name: str(scope.name), version: str(scope.version), schemaUrl: str(scopeLogs.schemaUrl) },
        });
      }
    }
  }
  return out;
}

/** OTLP JSON sends int64/fixed64 as decimal strings (numbers are accepted too); protobuf decodes to bigint here. */
function nanos(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'string' || typeof value === 'number') return BigInt(value);
  return 0n;
}

function keyValues(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of objs(list)) out[str(kv.key)] = anyValue(kv.value);
  return out;
}

/** AnyValue -> plain JS: ints become numbers (bigint beyond 2^53), bytes a Buffer, kvlists objects. */
function anyValue(value: unknown): unknown {
  if (!isObj(value)) return undefined;
  if ('stringValue' in value) return str(value.stringValue);
  if ('boolValue' in value) return value.boolValue === true;
  if ('intValue' in value) {
    const n = nanos(value.intValue);
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
  }
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value) {
    const values = isObj(value.arrayValue) ? value.arrayValue.values : [];
    return (Array.isArray(values) ? values : []).map((item: unknown) => anyValue(item));
  }
  if ('kvlistValue' in value) return keyValues(isObj(value.kvlistValue) ? value.kvlistValue.values : []);
  // OTLP JSON: bytes_value is base64 (trace/span ids are hex, but those are not AnyValues).
  if ('bytesValue' in value) return Buffer.from(str(value.bytesValue), 'base64');
  return undefined;
}
