// Collectors turn the upstream's time series into plain samples; one generic
// poller runs them all (schedule, no overlap, state before publish). The
// exporters see only this surface and types.ts.
export type * from './types.js';
export { INTERVAL_MS, type BucketInterval } from './buckets.js';
export { Poller, type PolledCollector, type PollerOptions, type PollerLogger } from './poller.js';
export { scheduleOf, jitterOffsetMs, type Schedule } from './poller-schedule.js';
export { CounterLedger, ledgerFileName, ledgerFileSchema, type LedgerFile, type LedgerStorage } from './ledger.js';
export { MetricFilter, anyFamilyEnabled, type FamilyFilter, type MetricFilterOptions } from './filter.js';
export { TargetDiscovery, type TargetSource, type TargetDiscoveryOptions, type TargetRefresh } from './targets.js';
export { UNSHARDED, ownedBy, shardOf, shareOf, type Shard } from './shard.js';
