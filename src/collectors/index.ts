// Collectors turn the upstream's time series into plain samples; one engine
// (engine/) runs them all as sample jobs, and the WAF event forwarder as an
// event-stream job (schedule, no overlap, state before publish, one stop).
// The exporters see only this surface, the daemon this and each folder's own
// index.ts (lint keeps them to it: FORBIDDEN_WITHIN in eslint.config.js).
export type * from './collector.js';
export type * from './engine/reports.js';
export { DeliveryError, type LogEvent, type LogSink } from './log-sink.js';
export { INTERVAL_MS, type BucketInterval } from './buckets.js';
export { DEFAULT_STOP_TIMEOUT_MS, Scheduler, type SchedulerOptions } from './engine/scheduler.js';
export type { EngineObserver, EventJob, EventReport, Job, JobKind, JobLogger, JobRun, SampleJob } from './engine/job.js';
export { scheduleOf, jitterOffsetMs, type Schedule } from './engine/schedule.js';
export { CollectorJob, sampleJobs, type PolledCollector, type SampleJobContext } from './sample-job/job.js';
export { CounterLedger } from './ledger.js';
export { HistoryQueues, type HistoryQueuesOptions, type TimedSample } from './history/index.js';
export { ledgerFileName, ledgerFileSchema, type LedgerFile, type LedgerStorage } from './ledger-file.js';
export { MetricFilter, anyFamilyEnabled, type FamilyFilter, type MetricFilterOptions } from './filter.js';
export { TargetForgetter } from './forget.js';
export { TargetDiscovery, discoveryRequests, type DiscoveryClient, type TargetSource, type TargetDiscoveryOptions, type TargetRefresh } from './targets.js';
export { UNSHARDED, checkShard, ownedBy, shardOf, shareOf, type Shard } from './shard.js';
export { budgetProblem, estimateRequests, type RequestEstimate } from './requests.js';
export { CONTRACT_CHECKS } from './contract/checks.js';
export { REJECT_REASONS } from './rejects.js';
export { seriesKey, type Labels } from './series/keys.js';
