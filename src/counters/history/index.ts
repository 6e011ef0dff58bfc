export { HistoryQueues } from './queues.js';
