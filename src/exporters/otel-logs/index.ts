// The OpenTelemetry logs exporter: OtlpLogSink implements LogSink over the OTel JS SDK (OTLP/HTTP, protobuf or JSON),
// confirming each batch from its export result; toReadableLogRecords is the pure LogEvent -> record mapping.
export { OtlpLogSink } from './sink.js';
export { type OtlpLogSinkOptions, type OtlpProtocol, type OtlpSinkLogger } from './options.js';
export {
  ATTRIBUTE_COUNT_LIMIT, ATTR_LOG_RECORD_UID, SEVERITY_NUMBERS, instrumentationScope, msToHrTime, toReadableLogRecords,
} from './record.js';
export { SCOPE_NAME, buildResource } from './pipeline.js';
