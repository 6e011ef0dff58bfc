// Persisted state: an atomic JSON file store for the state directory
// (watermarks, counters, checkpoints). It knows nothing about their meaning.
export { StateStore, StateError, isStateError } from './store.js';
export { acquireStateLock } from './lock.js';
export type { StateLock } from './lock.js';
export { FAIL_ON_DAMAGE, isoOrUnknown, loadRecovering, stateRecovery } from './recovery.js';
export type { StateRecovery } from './recovery.js';
