export { HistoryBook } from './book.js';
