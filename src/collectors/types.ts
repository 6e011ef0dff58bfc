// Compatibility for the series rewrite; removed at merge. collectors/types.ts
// was split (collector.ts, engine/reports.ts, log-sink.ts); the series path
// and the bucketed families still import these from here until
// /work/notes/fix-types-imports.mjs rewrites their imports.
export type {
  AuditTally, CollectContext, CollectOutput, Collector, CollectorLogger, MetricDef, Sample, TargetCounts, Targets, UpstreamClient,
} from './collector.js';
