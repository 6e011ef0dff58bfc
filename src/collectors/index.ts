// Collectors turn the upstream's time series into plain samples; one engine
// (engine/) runs them all as sample jobs, and the WAF event forwarder as an
// event-stream job (schedule, no overlap, state before publish, one stop).
// The exporters see only this surface and types.ts.
export type * from './types.js';
export { DEFAULT_STOP_TIMEOUT_MS, Scheduler } from './engine/scheduler.js';
export type { Job, JobRun } from './engine/job.js';
export { sampleJobs } from './sample-job/job.js';
export { CounterLedger } from './ledger.js';
export { HistoryBook } from './history/index.js';
export { MetricFilter } from './filter.js';
export { TargetForgetter } from './forget.js';
export { TargetDiscovery } from './targets.js';
export { type Shard } from './shard.js';
