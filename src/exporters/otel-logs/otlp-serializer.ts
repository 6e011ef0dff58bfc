// The OTLP/protobuf logs request, encoded by protobufjs from the official
// opentelemetry-proto schema (proto/ at the repository root, vendored),
// straight from a batch of LogEvents: the bytes the SDK's
// ProtobufLogsSerializer writes for the records toReadableLogRecords builds
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
import type { LogEvent } from '../../collectors/index.js';
import { AttributeEncoder, anyValue, recordMessages, type AnyValueMessage } from './record-message.js';

/** proto/ at the repository root: three levels up from src/exporters/otel-logs and from dist/exporters/otel-logs alike. */
const PROTO_ROOT = fileURLToPath(new URL('../../../proto/', import.meta.url));

/**
 * `type` with one field's type replaced (same name, number and rule), added
 * beside it so the other fields' types resolve as the original's do. The
 * bytes are the original's as long as what goes in that field encodes as the
 * original field's content would.
 */
function retyped(type: protobuf.Type, fieldName: string, fieldType: string): protobuf.Type {
  // From its JSON form, which the official type gives and which reads as proto3, the files' syntax (field presence included).
  const json = type.toJSON();
  const fields = json.fields as Record<string, protobuf.IField>;
  const field = fields[fieldName];
  if (field === undefined) throw new Error(`${type.fullName} has no field ${fieldName}`);
  const view = protobuf.Type.fromJSON(`${type.name}EncodedAttributes`, { ...json, fields: { ...fields, [fieldName]: { ...field, type: fieldType } } });
  type.parent?.add(view);
  return view;
}

/**
 * The official request, with its records' attributes (field 6, `repeated
 * KeyValue`) read as `repeated bytes`: a length-delimited field either way,
 * so a KeyValue's encoded bytes there are on the wire what the KeyValue
 * itself would be (AttributeEncoder in record-message.ts gives them).
 * ScopeLogs, ResourceLogs and the request are retyped up to the record.
 * otlp-serializer.test.ts decodes what is sent with the official schema.
 */
function loadTypes(): { request: protobuf.Type; keyValue: protobuf.Type } {
  const root = new protobuf.Root();
  // The files import each other by their upstream paths, relative to the schema's root.
  root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
  root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto');
  const record = retyped(root.lookupType('opentelemetry.proto.logs.v1.LogRecord'), 'attributes', 'bytes');
  const scopeLogs = retyped(root.lookupType('opentelemetry.proto.logs.v1.ScopeLogs'), 'logRecords', record.fullName);
  const resourceLogs = retyped(root.lookupType('opentelemetry.proto.logs.v1.ResourceLogs'), 'scopeLogs', scopeLogs.fullName);
  const request = retyped(root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'), 'resourceLogs', resourceLogs.fullName);
  return { request, keyValue: root.lookupType('opentelemetry.proto.common.v1.KeyValue') };
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
  const { request: requestType, keyValue } = loadTypes();
  const attributes = new AttributeEncoder(keyValue);
  let writer = protobuf.Writer.create();
  const resourceMessage = { attributes: keyValues(resource.attributes), droppedAttributesCount: 0 };
  const scopeMessage = scope.version ? { name: scope.name, version: scope.version } : { name: scope.name };
  return {
    serializeRequest: (events) => {
      const scopeLogs = { scope: scopeMessage, logRecords: recordMessages(events, attributes), ...(scope.schemaUrl ? { schemaUrl: scope.schemaUrl } : {}) };
      const request = { resourceLogs: [{ resource: resourceMessage, scopeLogs: [scopeLogs], ...(resource.schemaUrl ? { schemaUrl: resource.schemaUrl } : {}) }] };
      // A fresh writer if an encode ever stopped half-way (its forks still open); otherwise the grown one, from its start.
      if (writer.states?.length) writer = protobuf.Writer.create();
      return requestType.encode(request, writer.reset()).finish();
    },
    deserializeResponse: (data) => ProtobufLogsSerializer.deserializeResponse(data),
  };
}
