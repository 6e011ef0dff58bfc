// The typed upstream client and everything a caller needs to use it.
export { createDispatcher } from './dispatcher.js';
export { EdgeClient, CLIENT_DEFAULTS, type ClientOptions, type ClientObserver, type CallOptions, type RetryOptions } from './client.js';
export { OPERATIONS, OPERATION_NAMES, isOperationName, type OperationName, type OperationSpec } from './operations.js';
export * from './errors.js';
export { DAY_MS, HOUR_MS, MINUTE_MS, platformClock, parseUtcOffset, type PlatformClock } from './time.js';
export type * from './schemas/index.js';
