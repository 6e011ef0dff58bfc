// The typed upstream client and everything a caller needs to use it.
export { EdgeClient, type ClientObserver } from './client.js';
export { OPERATIONS, OPERATION_NAMES, isOperationName, type OperationName, type ReadOperationName } from './operations.js';
export { readClient, type ReadClient } from './read-client.js';
export * from './errors.js';
export { DAY_MS, HOUR_MS, MINUTE_MS, platformClock, type PlatformClock } from './time.js';
export type * from './schemas/index.js';
