// The Prometheus exporter: a SampleSink holding the published families, their cached exposition in the text and OpenMetrics formats, and the exporter's self-metrics.
export { FamilyStore } from './family-store.js';
export { Exposition } from './exposition.js';
export { negotiate } from './negotiate.js';
export { SelfMetrics, type SelfReadings } from './self-metrics.js';
export { type ExpositionFormat, type FamilySnapshot } from './serialize.js';
export { AccountsView } from './accounts.js';
