export { HistoryBook } from './book.js';
export { counterSamples, gaugeSamples, type HistoryInput, type KeyedSample } from './samples.js';
export { paginate } from './pages.js';
