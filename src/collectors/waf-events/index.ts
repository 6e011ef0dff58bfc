// WAF deny events as log records: describeLogV2 `logs` (action deny) polled in
// overlapping windows, de-duplicated by requestId, converted to LogEvents and
// delivered to a LogSink (the OTel logs exporter) with a checkpoint saved
// after every confirmed batch, plus the denied-request counter and the
// forwarder's self-metrics. The daemon wires it; this is its public surface.
export { WafEventForwarder } from './forwarder.js';
export type { PollReport, WafEventForwarderOptions } from './options.js';
export type { WafQuery, WafOtherFilter, WafSeverity } from './fetch.js';
export { shardScope, type ShardScopeOptions, type WafDomainScope } from './scope.js';
export type { DeliveryRetry } from './deliver.js';
export { DEFAULT_DELIVERY_RETRY } from './deliver.js';
export type { Checkpoint, TimeWindow, WindowOptions } from './window.js';
export { CHECKPOINT_NAME, type CheckpointStorage } from './checkpoint.js';
export { toLogEvent, headerPolicy, type HeaderPolicy } from './convert.js';
export { ATTR, EDGE_ATTR, EVENT_NAME, requestHeaderAttr } from './attributes.js';
export {
  WAF_DENIED_REQUESTS,
  WAF_EVENTS_COLLECTOR,
  WAF_EVENTS_FAMILIES,
  type WafEventsObserver,
  type WafEventsStats,
} from './metrics.js';
