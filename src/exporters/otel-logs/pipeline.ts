// Builds the SDK side: resource, scope and the OTLP exporter (protobuf or JSON) the sink hands its event batches to.
import { OTLPLogExporter as OtlpJsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { CompressionAlgorithm, type OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base';
import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { ExportResult } from '@opentelemetry/core';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { OtlpResourceOptions, ResolvedOptions } from './options.js';
import { SEMCONV_SCHEMA_URL, instrumentationScope, toReadableLogRecord } from './record.js';
import { agentFactory } from './agent.js';
import { ProtobufLogExporter } from './exporter.js';
import { readTlsFiles } from '../../shared/tls-files.js';
import type { LogEvent } from '../../forwarder/index.js';

/** Instrumentation scope of every record. */
export const SCOPE_NAME = 'edge-exporter';

/** telemetry.sdk.* from the SDK's default resource (no schema URL), then the extra attributes, then the service triple; the conventions' schema URL. */
export function buildResource(options: OtlpResourceOptions): Resource {
  return defaultResource().merge(
    resourceFromAttributes({
      ...options.attributes,
      [ATTR_SERVICE_NAME]: options.serviceName,
      [ATTR_SERVICE_VERSION]: options.serviceVersion,
      [ATTR_SERVICE_INSTANCE_ID]: options.serviceInstanceId,
    }, { schemaUrl: SEMCONV_SCHEMA_URL }),
  );
}

/** What the sink hands each batch to: one export call per deliver(), whose one result settles the batch (sink.ts). */
export interface EventExporter {
  export(events: readonly LogEvent[], resultCallback: (result: ExportResult) => void): void;
  /** LogSink.encode, where the exporter encodes records itself (http/protobuf). */
  encode?(event: LogEvent, kept: LogEvent): LogEvent;
  release?(events: readonly LogEvent[]): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * An SDK LogRecordExporter behind EventExporter: each batch built as the
 * SDK's Logger would have emitted it (toReadableLogRecord) and passed in one
 * export() call, which is what the batch processor did once deliver() had
 * filled its queue and flushed it. For http/json (the SDK's exporter) and a
 * test's exporter; http/protobuf serializes the events without the records.
 */
function recordExporter(exporter: LogRecordExporter, resource: Resource, scope: ReadableLogRecord['instrumentationScope']): EventExporter {
  return {
    export: (events, resultCallback) => exporter.export(events.map((event) => toReadableLogRecord(event, resource, scope)), resultCallback),
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
  };
}

/**
 * The real OTLP/HTTP exporter (http/protobuf: the SDK's exporter with the
 * protobufjs serializer of otlp-serializer.ts, fed the events themselves;
 * http/json: the SDK's, fed records). Whatever is left undefined here the
 * SDK fills from its own OTEL_EXPORTER_OTLP_(LOGS_)* variables, then its
 * defaults. The TLS files are read here, when the sink starts (so again
 * after a reload).
 */
function createOtlpExporter(options: ResolvedOptions, resource: Resource, scope: ReadableLogRecord['instrumentationScope']): EventExporter {
  const config: OTLPExporterNodeConfigBase = {
    url: options.endpoint,
    headers: { ...options.headers },
    timeoutMillis: options.timeoutMs,
    // One deliver() at a time is in flight; the default (30) would only matter if that changed.
    concurrencyLimit: 2,
    // Prepended to the SDK's own OTel-OTLP-Exporter-JavaScript/<version>.
    userAgent: `edge-exporter/${options.resource.serviceVersion}`,
    httpAgentOptions: agentFactory(options.proxy, readTlsFiles(options.tls)),
  };
  if (options.compression !== undefined) {
    config.compression = options.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE;
  }
  return options.protocol === 'http/json'
    ? recordExporter(new OtlpJsonLogExporter(config), resource, scope)
    : new ProtobufLogExporter(config, resource, scope);
}

export interface Pipeline {
  /** The OTLP exporter (or a test's): each export's result settles its whole batch (sink.ts). */
  readonly exporter: EventExporter;
}

/**
 * The exporter the sink hands its batches to, its records under the
 * resource and scope built here. No LoggerProvider and no
 * BatchLogRecordProcessor: the emit's per-record work (a LogRecordImpl, the
 * validation of each attribute, a copy of each array) and the queue are no
 * longer paid per event. `testExporter` replaces the OTLP one (tests).
 */
export function createPipeline(options: ResolvedOptions, testExporter?: LogRecordExporter): Pipeline {
  const resource = buildResource(options.resource);
  const scope = instrumentationScope(SCOPE_NAME, options.resource.serviceVersion);
  return {
    exporter: testExporter === undefined ? createOtlpExporter(options, resource, scope) : recordExporter(testExporter, resource, scope),
  };
}
