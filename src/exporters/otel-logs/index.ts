// The OpenTelemetry logs exporter: OtlpLogSink implements LogSink over the OTel JS SDK (OTLP/HTTP, protobuf or JSON),
// confirming each batch from its export result (the pure LogEvent -> record mapping is record.ts).
export { OtlpLogSink } from './sink.js';
export { type OtlpSinkLogger } from './options.js';
export { buildResource, SCOPE_NAME } from './pipeline.js';
export { SEMCONV_SCHEMA_URL } from './record.js';
