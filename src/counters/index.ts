// Counters hold what has been counted: the ledger (every collector's counter
// totals and watermarks, saved before they are published) and, per pipe
// (remote-write, OTLP metrics), the history queue of counted buckets its
// sender reads. The engine writes them; the exporters and the daemon see this
// surface.
export { CounterLedger } from './ledger.js';
export { HistoryQueues, REMOTE_WRITE_PIPE, otlpMetricsPipe } from './history/index.js';
export type { TimedSample, Temporality } from './history/samples.js';
export { AccountHistories, ACCOUNT_LABEL } from './history/accounts.js';
