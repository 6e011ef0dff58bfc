// The OTLP/HTTP protobuf log exporter: the SDK's exporter base and HTTP export
// delegate (transport, retries, headers, compression, proxy agent, response
// decoding) as the SDK's own OTLPLogExporter builds them, with the protobufjs
// serializer (otlp-serializer.ts) in place of the SDK's: it takes the sink's
// batches, their records encoded already (the delegate is generic in what it
// exports), so no SDK record is built per event.
import type { OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import type { IExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { LogsSerializer } from './otlp-serializer.js';
import type { SinkBatch } from './sink-batch.js';

/** The SDK's exporter self-metrics component type for this exporter (its semconv value). */
const COMPONENT_TYPE = 'otlp_http_log_exporter';

/** The SDK's LogsExporterMetricsHelper for a batch: one log record per event. */
const METRICS_HELPER: IExporterMetricsHelper<SinkBatch> = { name: 'log', countItems: (batch) => batch.size };

/** Exports the batches `serializer` made, each as one request. */
export class ProtobufLogExporter extends OTLPExporterBase<SinkBatch> {
  constructor(config: OTLPExporterNodeConfigBase, serializer: LogsSerializer) {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions(config, 'LOGS', 'v1/logs', { 'Content-Type': 'application/x-protobuf' }),
        serializer,
        COMPONENT_TYPE,
        METRICS_HELPER,
        undefined,
      ),
    );
  }
}
