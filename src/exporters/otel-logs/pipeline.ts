// Builds the SDK side: resource, scope, the sink's batches (their records encoded for protobuf, or the SDK's records
// for JSON) and the OTLP exporter the sink hands them to.
import { OTLPLogExporter as OtlpJsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { CompressionAlgorithm, type OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base';
import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { ExportResult } from '@opentelemetry/core';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { OtlpResourceOptions, ResolvedOptions } from './options.js';
import { SEMCONV_SCHEMA_URL, instrumentationScope } from './record.js';
import { agentFactory } from '../../outbound/index.js';
import { ProtobufLogExporter } from './exporter.js';
import { createLogsSerializer, type LogsSerializer } from './otlp-serializer.js';
import { RecordBatch, type SinkBatch } from './sink-batch.js';
import { InternalError } from '../../shared/errors.js';

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
export interface BatchExporter {
  export(batch: SinkBatch, resultCallback: (result: ExportResult) => void): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * An SDK LogRecordExporter behind BatchExporter: each batch's records, built
 * as the SDK's Logger would have emitted them (RecordBatch), passed in one
 * export() call, which is what the batch processor did once deliver() had
 * filled its queue and flushed it. For http/json (the SDK's exporter) and a
 * test's exporter; http/protobuf sends records encoded without them.
 */
function recordExporter(exporter: LogRecordExporter): BatchExporter {
  return {
    export: (batch, resultCallback) => {
      if (!(batch instanceof RecordBatch)) throw new InternalError('the record exporter sends only batches of records');
      exporter.export(batch.records, resultCallback);
    },
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
  };
}

/**
 * The real OTLP/HTTP exporter (http/protobuf: the SDK's exporter with the
 * protobufjs serializer of otlp-serializer.ts, fed the batches it made;
 * http/json: the SDK's, fed records). Whatever is left undefined here the
 * SDK fills from its own OTEL_EXPORTER_OTLP_(LOGS_)* variables, then its
 * defaults. The TLS files are read here, when the sink starts (so again
 * after a reload).
 */
function createOtlpExporter(options: ResolvedOptions, serializer: LogsSerializer | undefined): BatchExporter {
  const config: OTLPExporterNodeConfigBase = {
    url: options.url,
    headers: { ...options.headers },
    timeoutMillis: options.timeoutMs,
    // One deliver() at a time is in flight; the default (30) would only matter if that changed.
    concurrencyLimit: 2,
    // Prepended to the SDK's own OTel-OTLP-Exporter-JavaScript/<version>.
    userAgent: `edge-exporter/${options.resource.serviceVersion}`,
    httpAgentOptions: agentFactory(options.endpoint),
  };
  if (options.compression !== undefined) {
    config.compression = options.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE;
  }
  return serializer === undefined ? recordExporter(new OtlpJsonLogExporter(config)) : new ProtobufLogExporter(config, serializer);
}

/** The sink's encoding, which it has from the start, and the exporter for it, which it builds when it starts. */
export interface Pipeline {
  /** A new, empty batch, its records taken as events are added (encoded at once, for http/protobuf). */
  batch(): SinkBatch;
  /** The OTLP exporter (or a test's): each export's result settles its whole batch (sink.ts). The TLS files are read now. */
  exporter(): BatchExporter;
}

/**
 * The batches and the exporter of a sink, their records under the resource
 * and scope built here. No LoggerProvider and no BatchLogRecordProcessor:
 * the emit's per-record work (a LogRecordImpl, the validation of each
 * attribute, a copy of each array) and the queue are no longer paid per
 * event. `testExporter` replaces the OTLP one (tests), and takes records.
 */
export function createPipeline(options: ResolvedOptions, testExporter?: LogRecordExporter): Pipeline {
  const resource = buildResource(options.resource);
  const scope = instrumentationScope(SCOPE_NAME, options.resource.serviceVersion);
  if (testExporter !== undefined || options.protocol === 'http/json') {
    return {
      batch: () => new RecordBatch(resource, scope),
      exporter: () => (testExporter === undefined ? createOtlpExporter(options, undefined) : recordExporter(testExporter)),
    };
  }
  const serializer = createLogsSerializer(resource, scope);
  return { batch: () => serializer.batch(), exporter: () => createOtlpExporter(options, serializer) };
}
