// Persisted state: an atomic JSON file store for the state directory
// (watermarks, counters, checkpoints). It knows nothing about their meaning.
export { StateStore, StateError, isStateError, nodeStateFs, STATE_FORMAT_VERSION } from './store.js';
export type { StateErrorCode, StateFs, StateStoreOptions } from './store.js';
export { acquireStateLock, LOCK_FILE, StateLockError } from './lock.js';
export type { LockHolder, StateLock, StateLockOptions } from './lock.js';
export { FAIL_ON_DAMAGE, isoOrUnknown, loadRecovering, stateRecovery } from './recovery.js';
export type { DamageAdvice, RecoveredLoad, StateRecovery, StateRecoveryMode, StateReset } from './recovery.js';
