export { HistoryQueues, type HistoryQueuesOptions } from './queues.js';
export { ACKS_FILE, historyFileSchema, type HistoryFile } from './file.js';
export type { QueuedPage } from './queue.js';
export { counterSamples, gaugeSamples, type HistoryInput, type KeyedSample, type TimedSample } from './samples.js';
export { paginate } from './pages.js';
