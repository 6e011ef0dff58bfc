// WAF deny events as log records: describeLogV2 `logs` (action deny) polled in
// windows (each range read again once, late), de-duplicated by requestId, converted to LogEvents and
// delivered to a LogSink (the OTel logs exporter) with a checkpoint saved
// after every confirmed batch, plus the denied-request counter and the
// forwarder's self-metrics, and the delivery audit that proves it against the
// upstream's own counts. The daemon wires it; this is its public surface.
export { WafEventForwarder } from './forwarder.js';
export type { PollReport } from './options.js';
export { WAF_EVENTS_JOB, WAF_EVENTS_FAMILIES } from './metrics.js';
export { AUDIT_OUTCOMES } from './audit.js';
export { wafQuery } from './fetch.js';
export { DeliveryError, type LogBatch, type LogEvent, type LogSink } from './log-sink.js';
