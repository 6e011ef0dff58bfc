// Counters hold what has been counted: the ledger (every collector's counter
// totals and watermarks, saved before they are published) and the history
// queue of counted buckets that remote-write reads. The engine writes them;
// the exporters and the daemon see this surface.
export { CounterLedger } from './ledger.js';
export { HistoryQueues } from './history/index.js';
export type { TimedSample } from './history/samples.js';
