// OTLP metrics: every family /metrics serves, pushed over OTLP/HTTP; counters as Sums with one point per
// upstream bucket, from the durable history, and the families without buckets as a snapshot every interval.
export { OtlpMetricsSender } from './sender.js';
