// The OpenTelemetry logs exporter: OtlpLogSink implements LogSink over the OTel JS SDK (OTLP/HTTP, protobuf or JSON),
// confirming each record from its export result; toLogRecord is the pure LogEvent -> LogRecord mapping.
export { OtlpLogSink, type OtlpLogSinkDeps } from './sink.js';
export {
  DEFAULT_ACK_MARGIN_MS,
  DEFAULT_MAX_BATCH,
  DEFAULT_PROTOCOL,
  DEFAULT_TIMEOUT_MS,
  type OtlpLogSinkOptions,
  type OtlpProtocol,
  type OtlpResourceOptions,
  type OtlpSinkLogger,
} from './options.js';
export {
  ATTRIBUTE_COUNT_LIMIT, ATTR_LOG_RECORD_UID, SEVERITY_NUMBERS, instrumentationScope, msToHrTime, toLogRecord, toReadableLogRecords,
} from './record.js';
export { SCOPE_NAME, buildResource } from './pipeline.js';
