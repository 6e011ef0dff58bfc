// Collectors turn the upstream's time series into plain samples; one engine
// (engine/) runs them all as sample jobs, and the WAF event forwarder as an
// event-stream job (schedule, no overlap, state before publish, one stop).
// The exporters see only this surface (lint keeps them to it).
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
export { TargetDiscovery, type TargetSource, type TargetDiscoveryOptions, type TargetRefresh } from './targets.js';
export { UNSHARDED, checkShard, ownedBy, shardOf, shareOf, type Shard } from './shard.js';
export { budgetProblem, estimateRequests, type RequestEstimate } from './requests.js';
export { discoveryRequests, type DiscoveryClient } from './targets.js';
export { CONTRACT_CHECKS } from './contract/checks.js';
export { REJECT_REASONS } from './rejects.js';
export { seriesKey, type Labels } from './series/keys.js';
