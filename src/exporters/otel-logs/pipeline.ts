// Builds the SDK side: resource, OTLP exporter (protobuf or JSON), confirming wrapper, batch processor, provider.
import { OTLPLogExporter as OtlpJsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as OtlpProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { CompressionAlgorithm, type OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base';
import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { ConfirmingExporter, type ExportOutcome } from './confirming-exporter.js';
import type { OtlpResourceOptions, ResolvedOptions } from './options.js';

/** Instrumentation scope of every record. */
export const SCOPE_NAME = 'edge-exporter';

/** telemetry.sdk.* from the SDK's default resource, then the extra attributes, then the service triple. */
export function buildResource(options: OtlpResourceOptions): Resource {
  return defaultResource().merge(
    resourceFromAttributes({
      ...options.attributes,
      [ATTR_SERVICE_NAME]: options.serviceName,
      [ATTR_SERVICE_VERSION]: options.serviceVersion,
      [ATTR_SERVICE_INSTANCE_ID]: options.serviceInstanceId,
    }),
  );
}

/**
 * The real OTLP/HTTP exporter. Whatever is left undefined here the SDK fills
 * from its own OTEL_EXPORTER_OTLP_(LOGS_)* variables, then its defaults.
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
  };
  if (options.compression !== undefined) {
    config.compression = options.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE;
  }
  return options.protocol === 'http/json' ? new OtlpJsonLogExporter(config) : new OtlpProtoLogExporter(config);
}

export interface Pipeline {
  readonly provider: LoggerProvider;
  readonly processor: BatchLogRecordProcessor;
}

/**
 * One processor, sized so a deliver() of up to maxBatch records is exactly
 * one queue-full and one export: the BatchLogRecordProcessor silently drops
 * records beyond maxQueueSize. Its export time-out sits above the exporter's
 * own (retries included), so it does not give up on an export still retrying.
 */
export function createPipeline(options: ResolvedOptions, exporter: LogRecordExporter, onOutcome: ExportOutcome): Pipeline {
  const processor = new BatchLogRecordProcessor({
    exporter: new ConfirmingExporter(exporter, onOutcome),
    maxQueueSize: options.maxBatch,
    maxExportBatchSize: options.maxBatch,
    exportTimeoutMillis: options.timeoutMs + options.ackMarginMs,
  });
  const provider = new LoggerProvider({
    resource: buildResource(options.resource),
    processors: [processor],
    // The uid is the first attribute (see toLogRecord); this only keeps the SDK's default of 128 visible.
    logRecordLimits: { attributeCountLimit: 128 },
  });
  return { provider, processor };
}
