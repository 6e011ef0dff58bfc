// The OTLP/protobuf logs request, encoded by protobufjs from the official
// opentelemetry-proto schema (proto/ at the repository root, vendored): each
// record encoded as its event is added to a batch (record-message.ts builds
// the message, record-arena.ts keeps the bytes), the request written from
// those bytes. The bytes the SDK's ProtobufLogsSerializer writes for the
// records toReadableLogRecord builds (record.ts), without building those
// records (section 12.3 of `git show 7888197:docs/benchmarks.md`). Plugged into the SDK's own export
// delegate (exporter.ts), which keeps the transport, retries, headers and the
// response decoding.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProtobufLogsSerializer, type IExportLogsServiceResponse, type ISerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import protobuf from 'protobufjs';
import type { LogEvent } from '../../forwarder/index.js';
import { AttributeEncoder, anyValue, freshWriter, recordMessage, type AnyValueMessage } from './record-message.js';
import { RecordArena } from './record-arena.js';
import { EncodedBatch, type SinkBatch } from './sink-batch.js';
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
 * The official LogRecord with its attributes (field 6, `repeated KeyValue`)
 * read as `repeated bytes`: a length-delimited field either way, so a
 * KeyValue's encoded bytes there are on the wire what the KeyValue itself
 * would be (AttributeEncoder in record-message.ts gives them). The official
 * request, with its records (ScopeLogs field 2) read as bytes in the same
 * way, for records encoded before (record-arena.ts): ScopeLogs, ResourceLogs
 * and the request are retyped up to the record. otlp-serializer.test.ts
 * decodes what is sent with the official schema.
 */
function loadTypes(): { request: protobuf.Type; record: protobuf.Type; keyValue: protobuf.Type } {
  const root = new protobuf.Root();
  // The files import each other by their upstream paths, relative to the schema's root.
  root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
  root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto');
  const suffix = 'EncodedRecords';
  const scopeLogs = retyped(root.lookupType('opentelemetry.proto.logs.v1.ScopeLogs'), 'logRecords', 'bytes', suffix);
  const resourceLogs = retyped(root.lookupType('opentelemetry.proto.logs.v1.ResourceLogs'), 'scopeLogs', scopeLogs.fullName, suffix);
  return {
    request: retyped(root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'), 'resourceLogs', resourceLogs.fullName, suffix),
    record: retyped(root.lookupType('opentelemetry.proto.logs.v1.LogRecord'), 'attributes', 'bytes', 'EncodedAttributes'),
    keyValue: root.lookupType('opentelemetry.proto.common.v1.KeyValue'),
  };
}

/** Own enumerable keys, as the SDK's writeAttributes takes them. */
function keyValues(attributes: Readonly<Record<string, unknown>>): Array<{ key: string; value: AnyValueMessage }> {
  const out: Array<{ key: string; value: AnyValueMessage }> = [];
  for (const key in attributes) if (Object.hasOwn(attributes, key)) out.push({ key, value: anyValue(attributes[key]) });
  return out;
}

/** The serializer of the sink's protobuf exporter, which also makes the batches it sends. */
export interface LogsSerializer extends ISerializer<SinkBatch, IExportLogsServiceResponse> {
  /** A new, empty batch whose records are encoded as they are added, into this serializer's arena. */
  batch(): EncodedBatch;
}

/**
 * The request encoder for one resource and scope (every record of the sink
 * carries the same two; their messages are built once), and the SDK's
 * response decoder. One Writer per serializer, reset for each batch: its
 * buffer, grown to a batch's size once, is not grown again from 128 bytes
 * for every batch; finish() copies the request out of it (the SDK keeps the
 * bytes for its retries while the next batch is encoded), so a batch's
 * records are read from the arena only while it is serialized.
 */
export function createLogsSerializer(resource: Resource, scope: ReadableLogRecord['instrumentationScope']): LogsSerializer {
  const { request: requestType, record: recordType, keyValue } = loadTypes();
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
  return {
    batch: () => new EncodedBatch(arena, recordBytes),
    serializeRequest: (batch) => {
      if (!(batch instanceof EncodedBatch)) throw new InternalError('the protobuf serializer sends only the batches it made');
      const logRecords = arena.views(batch.records);
      const scopeLogs = { scope: scopeMessage, logRecords, ...(scope.schemaUrl ? { schemaUrl: scope.schemaUrl } : {}) };
      const message = { resourceLogs: [{ resource: resourceMessage, scopeLogs: [scopeLogs], ...(resource.schemaUrl ? { schemaUrl: resource.schemaUrl } : {}) }] };
      writer = freshWriter(writer);
      return requestType.encode(message, writer).finish();
    },
    deserializeResponse: (data) => ProtobufLogsSerializer.deserializeResponse(data),
  };
}
