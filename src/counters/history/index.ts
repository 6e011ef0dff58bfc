export { HistoryQueues, type HistoryPipe } from './queues.js';
export { REMOTE_WRITE_PIPE, otlpMetricsPipe } from './pipes.js';
