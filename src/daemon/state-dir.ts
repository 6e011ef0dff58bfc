// The state directory a daemon holds for its whole life: its lock (a second
// daemon on it stops at start, told who holds it) and one store, so a save
// of the old engine and one of a reload's new engine never overlap.
import type { Logger } from '../log/logger.js';
import { acquireStateLock, StateStore, type StateLock } from '../state/index.js';

export interface HeldDir {
  readonly lock: StateLock;
  readonly store: StateStore;
}

/** Takes the lock and opens the store; `onSaveFailure` gets the file name of a save that failed, for the self-metric. */
export async function holdStateDir(dir: string, logger: Logger, onSaveFailure: (file: string) => void): Promise<HeldDir> {
  const log = logger.child({ component: 'state' });
  const lock = await acquireStateLock(dir, { onTakeover: (holder, message) => log.warn({ holder }, message) });
  return { lock, store: await openStore(dir, lock, log, onSaveFailure) };
}

/**
 * A store in `dir` under the held `lock`: the state directory's own, or an
 * account's subdirectory of it. A save that finds the directory gone puts the
 * lock back first (a subdirectory's save re-creates the state directory too),
 * so no state file lands in a recreated directory another daemon may have
 * taken. Only the lock's holder removes a crashed writer's temporary files.
 */
export async function openStore(dir: string, lock: StateLock, log: Logger, onSaveFailure: (file: string) => void): Promise<StateStore> {
  const store = new StateStore(dir, {
    onDirectoryCreated: () => lock.restore(),
    onDirectoryRecreated: (recreated) => log.warn({ dir: recreated }, 'the state directory had disappeared; recreated it with the lock, saving again'),
    onSaveFailure: (name, err) => {
      onSaveFailure(`${name}.json`);
      log.debug({ file: err.file, problem: err.problem }, 'state save failed');
    },
  });
  const removed = await store.removeLeftoverTemps();
  if (removed.length > 0) log.info({ files: removed }, 'removed temporary files an earlier crash left in the state directory');
  return store;
}
