// Builds the SDK side: resource, scope and the OTLP exporter (protobuf or JSON).
import { OTLPLogExporter as OtlpJsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { CompressionAlgorithm, type OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base';
import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { OtlpResourceOptions, ResolvedOptions } from './options.js';
import { SEMCONV_SCHEMA_URL, instrumentationScope } from './record.js';
import { agentFactory } from './agent.js';
import { ProtobufLogExporter } from './exporter.js';
import { readTlsFiles } from '../../shared/tls-files.js';

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

/**
 * The real OTLP/HTTP exporter (http/protobuf: the SDK's, with the protobufjs
 * serializer of otlp-serializer.ts). Whatever is left undefined here the SDK fills
 * from its own OTEL_EXPORTER_OTLP_(LOGS_)* variables, then its defaults. The
 * TLS files are read here, when the sink starts (so again after a reload).
 */
export function createOtlpExporter(options: ResolvedOptions): LogRecordExporter {
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
  return options.protocol === 'http/json' ? new OtlpJsonLogExporter(config) : new ProtobufLogExporter(config);
}

export interface Pipeline {
  /** The OTLP exporter (or a test's): each export's result settles its whole batch (sink.ts). */
  readonly exporter: LogRecordExporter;
  readonly resource: Resource;
  readonly scope: ReadableLogRecord['instrumentationScope'];
}

/**
 * The exporter the sink hands its batches to, with the resource and scope its
 * records carry. No LoggerProvider and no BatchLogRecordProcessor: a batch is
 * built as the SDK's Logger would have emitted it (toReadableLogRecords) and
 * passed to the SDK's OTLP exporter in one export() call, which is what the
 * processor did once deliver() had filled its queue and flushed it; the
 * emit's per-record work (a LogRecordImpl, the validation of each attribute,
 * a copy of each array) and the queue are no longer paid per event.
 */
export function createPipeline(options: ResolvedOptions, exporter: LogRecordExporter): Pipeline {
  return {
    exporter,
    resource: buildResource(options.resource),
    scope: instrumentationScope(SCOPE_NAME, options.resource.serviceVersion),
  };
}
