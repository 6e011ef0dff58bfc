// The OTLP/HTTP protobuf log exporter: the SDK's exporter base and HTTP export
// delegate (transport, retries, headers, compression, proxy agent, response
// decoding) as the SDK's own OTLPLogExporter builds them, with the protobufjs
// serializer (otlp-serializer.ts) in place of the SDK's: it takes the sink's
// LogEvents as they are (the delegate is generic in what it exports), so no
// SDK record is built per event.
import type { OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import type { IExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { LogEvent } from '../../forwarder/index.js';
import { createLogsSerializer, type LogsSerializer } from './otlp-serializer.js';

/** The SDK's exporter self-metrics component type for this exporter (its semconv value). */
const COMPONENT_TYPE = 'otlp_http_log_exporter';

/** The SDK's LogsExporterMetricsHelper for a batch of events: one log record each. */
const METRICS_HELPER: IExporterMetricsHelper<readonly LogEvent[]> = { name: 'log', countItems: (events) => events.length };

/** Exports batches of LogEvents, each as its records under `resource` and `scope`; encodes records ahead of their batch. */
export class ProtobufLogExporter extends OTLPExporterBase<readonly LogEvent[]> {
  private readonly serializer: LogsSerializer;

  constructor(config: OTLPExporterNodeConfigBase, resource: Resource, scope: ReadableLogRecord['instrumentationScope']) {
    const serializer = createLogsSerializer(resource, scope);
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions(config, 'LOGS', 'v1/logs', { 'Content-Type': 'application/x-protobuf' }),
        serializer,
        COMPONENT_TYPE,
        METRICS_HELPER,
        undefined,
      ),
    );
    this.serializer = serializer;
  }

  /** LogSink.encode: the record encoded now, into memory used again after release(). */
  encode(event: LogEvent, kept: LogEvent): LogEvent {
    return this.serializer.encode(event, kept);
  }

  release(events: readonly LogEvent[]): void {
    this.serializer.release(events);
  }
}
