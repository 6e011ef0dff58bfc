// The Prometheus exporter: a SampleSink holding the published families, their cached exposition in the text and OpenMetrics formats, and the exporter's self-metrics.
export {
  FamilyStore,
  DEFAULT_MAX_LABEL_VALUE_LENGTH,
  DEFAULT_MAX_SERIES_PER_FAMILY,
  type FamilyStoreOptions,
  type FamilyStats,
  type SampleRejectReason,
} from './family-store.js';
export { Exposition, type ExpositionOptions, type Rendered, type SelfSource, type SnapshotSource } from './exposition.js';
export { negotiate } from './negotiate.js';
export { SelfMetrics, type SelfMetricsStore, type RunRecord, type SelfMetricsOptions, type UpstreamRecord } from './self-metrics.js';
export { SELF_METRICS } from './self-metric-defs.js';
export { MetricDefinitionError, RESERVED_LABELS, metricDefProblems } from './naming.js';
export { CONTENT_TYPES, OPENMETRICS_EOF, serialize, type ExpositionFormat, type FamilyDef, type FamilySnapshot, type SeriesSnapshot } from './serialize.js';
export { renderAllMetricsDocs, renderMetricsDocs, renderSelfMetricsDocs, type CollectorFamilies } from './docs.js';
