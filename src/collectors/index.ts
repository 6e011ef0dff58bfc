// Collectors turn the upstream's time series into plain samples; one engine
// (engine/) runs them all as sample jobs, and the WAF event forwarder as an
// event-stream job (schedule, no overlap, state before publish, one stop).
// The exporters see only this surface, the daemon this and each folder's own
// index.ts (lint keeps them to it: FORBIDDEN_WITHIN in eslint.config.js).
export type * from './collector.js';
export type * from './engine/reports.js';
export { DeliveryError, type LogEvent, type LogSink } from './log-sink.js';
export { DEFAULT_STOP_TIMEOUT_MS, Scheduler } from './engine/scheduler.js';
export { describeError } from './engine/errors.js';
export type { Job, JobRun } from './engine/job.js';
export { scheduleOf } from './engine/schedule.js';
export { sampleJobs, type PolledCollector } from './sample-job/job.js';
export { CounterLedger } from './ledger.js';
export { HistoryQueues } from './history/index.js';
export type { TimedSample } from './history/samples.js';
export { MetricFilter } from './filter.js';
export { TargetForgetter } from './forget.js';
export { TargetDiscovery, discoveryRequests, type DiscoveryClient } from './targets.js';
export { UNSHARDED, checkShard, type Shard } from './shard.js';
export { budgetProblem, estimateRequests, type RequestEstimate } from './requests.js';
export { CONTRACT_CHECKS } from './contract/checks.js';
export { REJECT_REASONS } from './rejects.js';
export { seriesKey, type Labels } from './series/keys.js';
