// What start-up does with a damaged state file (config `state_recovery`).
// `fail`, the default, stops start-up with the file, the problem and the ways
// out. `reset` keeps the file aside as `<name>.json.damaged-<time>` (never
// deleted) and its owner starts as it does without a file, which its caller
// makes safe: a counter restarts from 0 without back-filling what the lost
// state may have counted (Prometheus sees a counter reset, never a bucket
// twice). Only damage is reset: a file that cannot be read (permissions, disk)
// may be intact, so it still stops start-up.
import { basename } from 'node:path';
import { isStateError, StateError, type StateStore } from './store.js';

/** config `state_recovery`. */
export type StateRecoveryMode = 'fail' | 'reset';

/** A damaged file put aside under `reset`. */
export interface StateReset {
  readonly file: string;
  readonly keptAs: string;
  readonly problem: string;
  /** The damaged file's mtime: about when its owner last saved, so where the lost state ended. */
  readonly lastWrittenMs: number | undefined;
}

export interface StateRecovery {
  readonly mode: StateRecoveryMode;
  /** Puts the damaged file of `name` aside (only called under `reset`). */
  reset(name: string, err: StateError): Promise<StateReset>;
}

/** `mode` over `store`; `onReset` hears of every file put aside (the daemon counts them). */
export function stateRecovery(
  store: Pick<StateStore, 'quarantine'>,
  mode: StateRecoveryMode,
  onReset?: (reset: StateReset) => void,
): StateRecovery {
  return {
    mode,
    async reset(name, err) {
      const { keptAs, lastWrittenMs } = await store.quarantine(name);
      const reset = { file: err.file, keptAs, problem: err.problem, lastWrittenMs };
      onReset?.(reset);
      return reset;
    },
  };
}

/** Every damaged file stops start-up. */
export const FAIL_ON_DAMAGE: StateRecovery = Object.freeze({
  mode: 'fail',
  reset: (_name: string, err: StateError) => Promise.reject(err),
});

interface RecoveredLoad<T> {
  /** Undefined on a first start and after a reset. */
  readonly value: T | undefined;
  readonly reset?: StateReset;
}

interface DamageAdvice {
  /** Why start-up stops, e.g. "Refusing to start rather than reset its counters silently". */
  readonly refusal: string;
  /** The ways out for a damaged file, naming what `state_recovery: reset` would do. */
  readonly remedy: string;
}

/**
 * Runs a start-up `load` of the state file `name`. Under `reset` a damaged
 * file is put aside and `value` is undefined; otherwise a StateError says
 * which file, what is wrong with it, and what to do.
 */
export async function loadRecovering<T>(
  recovery: StateRecovery,
  name: string,
  load: () => Promise<T | undefined>,
  advice: DamageAdvice,
): Promise<RecoveredLoad<T>> {
  try {
    return { value: await load() };
  } catch (err) {
    if (!isStateError(err)) throw err;
    if (err.damaged && recovery.mode === 'reset') return { value: undefined, reset: await recovery.reset(name, err) };
    const ways = err.damaged
      ? `${advice.remedy}; reset keeps the file as ${basename(err.file)}.damaged-<time>`
      : 'It may be intact: fix what keeps it from being read (ownership, permissions, disk); state_recovery: reset does not apply to it';
    throw new StateError(err.file, `${err.problem}. ${advice.refusal}. ${ways}`, { cause: err, damaged: err.damaged });
  }
}

/** An ISO time for a log line, or "unknown". */
export function isoOrUnknown(ms: number | undefined): string {
  return ms === undefined ? 'unknown' : new Date(ms).toISOString();
}
