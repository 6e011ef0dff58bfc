// The exporter's own metrics as constants, in the same model as the data families (FamilyDef, without an upstream
// source; a count's unit names what is counted): self-metrics.ts records them, docs.ts builds the table from them.
import type { FamilyDef } from './serialize.js';

/** Collector runs last from well under a second (inventory) to tens of seconds (1,000-domain cycles). */
const RUN_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60, 120, 300] as const;
/** One upstream request: tens of milliseconds when healthy, up to the client timeout when not. */
const REQUEST_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

export const SELF_METRICS = {
  collectorUp: {
    name: 'edge_exporter_collector_up',
    type: 'gauge',
    help: 'Whether the last run of the collector succeeded (1) or failed (0).',
    unit: 'boolean',
    labels: ['collector'],
  },
  collectorLastSuccess: {
    name: 'edge_exporter_collector_last_success_timestamp_seconds',
    type: 'gauge',
    help: 'Unix time at which the last successful run of the collector finished.',
    unit: 'timestamp_seconds',
    labels: ['collector'],
  },
  collectorLastRunDuration: {
    name: 'edge_exporter_collector_last_run_duration_seconds',
    type: 'gauge',
    help: 'Duration of the last run of the collector, successful or not.',
    unit: 'seconds',
    labels: ['collector'],
  },
  collectorRunDuration: {
    name: 'edge_exporter_collector_run_duration_seconds',
    type: 'histogram',
    help: 'Durations of the collector runs, successful or not.',
    unit: 'seconds',
    labels: ['collector'],
    buckets: RUN_BUCKETS,
  },
  collectorDataLag: {
    name: 'edge_exporter_collector_data_lag_seconds',
    type: 'gauge',
    help: 'At the end of the last successful run, seconds since the end of the newest bucket the collector counted or saw settled.',
    unit: 'seconds',
    labels: ['collector'],
  },
  collectorRuns: {
    name: 'edge_exporter_collector_runs_total',
    type: 'counter',
    help: 'Collector runs, by outcome (success or error).',
    unit: 'runs',
    labels: ['collector', 'outcome'],
  },
  upstreamRequests: {
    name: 'edge_exporter_upstream_requests_total',
    type: 'counter',
    help: 'Requests made to the upstream API, by operation and outcome.',
    unit: 'requests',
    labels: ['operation', 'outcome'],
  },
  upstreamRequestDuration: {
    name: 'edge_exporter_upstream_request_duration_seconds',
    type: 'histogram',
    help: 'Durations of the requests made to the upstream API, by operation.',
    unit: 'seconds',
    labels: ['operation'],
    buckets: REQUEST_BUCKETS,
  },
  upstreamRetries: {
    name: 'edge_exporter_upstream_retries_total',
    type: 'counter',
    help: 'Upstream requests retried after a retryable failure, by operation.',
    unit: 'retries',
    labels: ['operation'],
  },
  upstreamRateLimitWaits: {
    name: 'edge_exporter_upstream_rate_limit_waits_total',
    type: 'counter',
    help: 'Upstream requests that waited for the client rate limiter, by operation.',
    unit: 'waits',
    labels: ['operation'],
  },
  series: {
    name: 'edge_exporter_series',
    type: 'gauge',
    help: 'Series currently exposed per metric family.',
    unit: 'series',
    labels: ['family'],
  },
  seriesDropped: {
    name: 'edge_exporter_series_dropped_total',
    type: 'counter',
    help: 'Series dropped by the per-family series cap, counted again on every publish that drops them.',
    unit: 'series',
    labels: ['family'],
  },
  samplesRejected: {
    name: 'edge_exporter_samples_rejected_total',
    type: 'counter',
    help: 'Published samples not stored (unknown family, label set not matching the definition, invalid value, ...), by reason.',
    unit: 'samples',
    labels: ['reason'],
  },
  wafEventsRead: {
    name: 'edge_exporter_waf_events_read_total',
    type: 'counter',
    help: 'WAF deny records the log query returned to the event forwarder, repeats included.',
    unit: 'events',
    labels: [],
  },
  wafEventsDeduplicated: {
    name: 'edge_exporter_waf_events_deduplicated_total',
    type: 'counter',
    help: 'WAF records skipped because their requestId was already delivered (window overlap, shifted pages).',
    unit: 'events',
    labels: [],
  },
  wafEventsForwarded: {
    name: 'edge_exporter_waf_events_forwarded_total',
    type: 'counter',
    help: 'WAF deny events the OTLP receiver confirmed.',
    unit: 'events',
    labels: [],
  },
  wafExportFailures: {
    name: 'edge_exporter_waf_export_failures_total',
    type: 'counter',
    help: 'Failed deliveries of a batch of WAF events to the OTLP receiver (each is retried), by error code.',
    unit: 'failures',
    labels: ['code'],
  },
  wafCheckpointLag: {
    name: 'edge_exporter_waf_checkpoint_lag_seconds',
    type: 'gauge',
    help: 'Now minus the WAF event checkpoint: how far behind the forwarded events are.',
    unit: 'seconds',
    labels: [],
  },
  contractMismatches: {
    name: 'edge_exporter_contract_mismatches_total',
    type: 'counter',
    help: 'Upstream answers that contradicted an assumption the exporter makes where the vendor document is silent, by check (bucket_width, timestamp_offset, bandwidth_unit, totals, out_of_range, late_revision, missing_buckets); the log names the config key to change.',
    unit: 'answers',
    labels: ['check'],
  },
  auditBuckets: {
    name: 'edge_exporter_audit_buckets_total',
    type: 'counter',
    help: 'Counted buckets the audit re-read from the upstream, by collector and outcome (match: the same value; revised: changed after it was counted).',
    unit: 'buckets',
    labels: ['collector', 'outcome'],
  },
  pointsRejected: {
    name: 'edge_exporter_points_rejected_total',
    type: 'counter',
    help: 'Time-series points the upstream answered that were not counted, by collector and reason (negative: below zero; non_finite: not a finite number).',
    unit: 'points',
    labels: ['collector', 'reason'],
  },
  stateResets: {
    name: 'edge_exporter_state_resets_total',
    type: 'counter',
    help: 'Damaged state files renamed aside at start-up and started afresh (state_recovery: reset), by file name.',
    unit: 'files',
    labels: ['file'],
  },
  buildInfo: {
    name: 'edge_exporter_build_info',
    type: 'gauge',
    help: 'Always 1; the labels carry the exporter and Node.js versions.',
    unit: 'info',
    labels: ['version', 'node_version'],
  },
} as const satisfies Record<string, FamilyDef>;
