// Persisted state: an atomic JSON file store for the state directory
// (watermarks, counters, checkpoints). It knows nothing about their meaning.
export { StateStore, StateError, isStateError, nodeStateFs, STATE_FORMAT_VERSION } from './store.js';
export type { StateFs, StateStoreOptions } from './store.js';
export { FAIL_ON_DAMAGE, isoOrUnknown, loadRecovering, stateRecovery } from './recovery.js';
export type { DamageAdvice, RecoveredLoad, StateRecovery, StateRecoveryMode, StateReset } from './recovery.js';
