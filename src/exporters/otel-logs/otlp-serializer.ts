// The OTLP/protobuf logs request, encoded by protobufjs from the official
// opentelemetry-proto schema (proto/ at the repository root, vendored),
// straight from a batch of LogEvents: the bytes the SDK's
// ProtobufLogsSerializer writes for the records toReadableLogRecord builds
// (record.ts), without building those records (record-message.ts builds the
// messages; docs/benchmarks.md 12.3). Plugged into
// the SDK's own export delegate (exporter.ts), which keeps the transport,
// retries, headers and the response decoding.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProtobufLogsSerializer, type IExportLogsServiceResponse, type ISerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import protobuf from 'protobufjs';
import type { LogEvent } from '../../forwarder/index.js';
import { AttributeEncoder, anyValue, freshWriter, recordMessage, recordMessages, type AnyValueMessage } from './record-message.js';
import { EncodedEvent, RecordArena } from './record-arena.js';
import { InternalError } from '../../shared/errors.js';

/** proto/ at the repository root: three levels up from src/exporters/otel-logs and from dist/exporters/otel-logs alike. */
const PROTO_ROOT = fileURLToPath(new URL('../../../proto/', import.meta.url));

/**
 * `type` with one field's type replaced (same name, number and rule), added
 * beside it so the other fields' types resolve as the original's do. The
 * bytes are the original's as long as what goes in that field encodes as the
 * original field's content would. `suffix` names the view.
 */
function retyped(type: protobuf.Type, fieldName: string, fieldType: string, suffix: string): protobuf.Type {
  // From its JSON form, which the official type gives and which reads as proto3, the files' syntax (field presence included).
  const json = type.toJSON();
  const fields = json.fields as Record<string, protobuf.IField>;
  const field = fields[fieldName];
  if (field === undefined) throw new InternalError(`${type.fullName} has no field ${fieldName}`);
  const view = protobuf.Type.fromJSON(`${type.name}${suffix}`, { ...json, fields: { ...fields, [fieldName]: { ...field, type: fieldType } } });
  type.parent?.add(view);
  return view;
}

/**
 * The official request, with its records' attributes (field 6, `repeated
 * KeyValue`) read as `repeated bytes`: a length-delimited field either way,
 * so a KeyValue's encoded bytes there are on the wire what the KeyValue
 * itself would be (AttributeEncoder in record-message.ts gives them).
 * ScopeLogs, ResourceLogs and the request are retyped up to the record.
 * `encodedRequest` reads the records themselves (ScopeLogs field 2) as bytes
 * in the same way, for records encoded before (record-arena.ts).
 * otlp-serializer.test.ts decodes what is sent with the official schema.
 */
function loadTypes(): { request: protobuf.Type; encodedRequest: protobuf.Type; record: protobuf.Type; keyValue: protobuf.Type } {
  const root = new protobuf.Root();
  // The files import each other by their upstream paths, relative to the schema's root.
  root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
  root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto');
  /** The request whose ScopeLogs' records are `recordType`. */
  const requestOf = (recordType: string, suffix: string): protobuf.Type => {
    const scopeLogs = retyped(root.lookupType('opentelemetry.proto.logs.v1.ScopeLogs'), 'logRecords', recordType, suffix);
    const resourceLogs = retyped(root.lookupType('opentelemetry.proto.logs.v1.ResourceLogs'), 'scopeLogs', scopeLogs.fullName, suffix);
    return retyped(root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'), 'resourceLogs', resourceLogs.fullName, suffix);
  };
  const record = retyped(root.lookupType('opentelemetry.proto.logs.v1.LogRecord'), 'attributes', 'bytes', 'EncodedAttributes');
  return {
    request: requestOf(record.fullName, 'EncodedAttributes'),
    encodedRequest: requestOf('bytes', 'EncodedRecords'),
    record,
    keyValue: root.lookupType('opentelemetry.proto.common.v1.KeyValue'),
  };
}

/** Own enumerable keys, as the SDK's writeAttributes takes them. */
function keyValues(attributes: Readonly<Record<string, unknown>>): Array<{ key: string; value: AnyValueMessage }> {
  const out: Array<{ key: string; value: AnyValueMessage }> = [];
  for (const key in attributes) if (Object.hasOwn(attributes, key)) out.push({ key, value: anyValue(attributes[key]) });
  return out;
}

/** The serializer the sink's exporter uses, which also encodes single records ahead of their batch (LogSink.encode). */
export interface LogsSerializer extends ISerializer<readonly LogEvent[], IExportLogsServiceResponse> {
  /** `event`'s record, encoded now; the event returned sends it, and reads as `kept`. */
  encode(event: LogEvent, kept: LogEvent): LogEvent;
  /** After the last send of these events: their records' memory may be used again. */
  release(events: readonly LogEvent[]): void;
}

/**
 * The request encoder for one resource and scope (every record of the sink
 * carries the same two; their messages are built once), and the SDK's
 * response decoder. One Writer per serializer, reset for each batch: its
 * buffer, grown to a batch's size once, is not grown again from 128 bytes
 * for every batch; finish() copies the request out of it (the SDK keeps the
 * bytes for its retries while the next batch is encoded). A batch with
 * records encoded ahead (encode()) is written from their bytes; any other
 * record in it is encoded then, alone.
 */
export function createLogsSerializer(resource: Resource, scope: ReadableLogRecord['instrumentationScope']): LogsSerializer {
  const { request: requestType, encodedRequest, record: recordType, keyValue } = loadTypes();
  const attributes = new AttributeEncoder(keyValue);
  const arena = new RecordArena();
  let writer = protobuf.Writer.create();
  let recordWriter = protobuf.Writer.create();
  const resourceMessage = { attributes: keyValues(resource.attributes), droppedAttributesCount: 0 };
  const scopeMessage = scope.version ? { name: scope.name, version: scope.version } : { name: scope.name };
  /** One record alone, as a view of recordWriter's buffer (valid until its next use). */
  const recordBytes = (event: LogEvent): Uint8Array => {
    recordWriter = freshWriter(recordWriter);
    return recordType.encode(recordMessage(event, attributes), recordWriter).finish(true);
  };
  const encode = (request: protobuf.Type, logRecords: unknown[]): Uint8Array => {
    const scopeLogs = { scope: scopeMessage, logRecords, ...(scope.schemaUrl ? { schemaUrl: scope.schemaUrl } : {}) };
    const message = { resourceLogs: [{ resource: resourceMessage, scopeLogs: [scopeLogs], ...(resource.schemaUrl ? { schemaUrl: resource.schemaUrl } : {}) }] };
    writer = freshWriter(writer);
    return request.encode(message, writer).finish();
  };
  return {
    serializeRequest: (events) => {
      if (!events.some((event) => event instanceof EncodedEvent)) return encode(requestType, recordMessages(events, attributes));
      // A plain record among encoded ones gets a copy of its own (not Buffer#slice, a view): the next is written over it.
      return encode(encodedRequest, events.map((event) => event instanceof EncodedEvent ? arena.bytesOf(event) : new Uint8Array(recordBytes(event))));
    },
    deserializeResponse: (data) => ProtobufLogsSerializer.deserializeResponse(data),
    encode: (event, kept) => arena.add(recordBytes(event), kept),
    release: (events) => arena.release(events),
  };
}
