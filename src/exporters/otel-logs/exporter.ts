// The OTLP/HTTP protobuf log exporter: the SDK's exporter base and HTTP export
// delegate (transport, retries, headers, compression, proxy agent) as the
// SDK's own OTLPLogExporter builds them, with the protobufjs serializer
// (otlp-serializer.ts) in place of the SDK's, which cost about twice the CPU.
import type { OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { LogsExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { createLogsSerializer } from './otlp-serializer.js';

/** The SDK's exporter self-metrics component type for this exporter (its semconv value). */
const COMPONENT_TYPE = 'otlp_http_log_exporter';

export class ProtobufLogExporter extends OTLPExporterBase<ReadableLogRecord[]> implements LogRecordExporter {
  constructor(config: OTLPExporterNodeConfigBase) {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions(config, 'LOGS', 'v1/logs', { 'Content-Type': 'application/x-protobuf' }),
        createLogsSerializer(),
        COMPONENT_TYPE,
        LogsExporterMetricsHelper,
        undefined,
      ),
    );
  }
}
