// A state directory belongs to one shard: its counters, watermarks and WAF
// event checkpoint describe that shard's domains and packages alone. Two
// shards sharing one would overwrite each other's files (counters jumping
// between two histories, WAF events skipped or sent twice), so the first
// start records the shard in <state_dir>/shard.json and a replica with
// another index refuses to start. A changed count is accepted and recorded:
// scaling a StatefulSet changes every replica's count while each keeps its
// own volume, and so its index. Checked at start-up only: two replicas
// started at the same instant on an empty directory are not told apart.
// Another shard's marker is not damage: state_recovery: reset does not apply
// (resetting would let two replicas write one directory). A damaged marker
// under reset is kept aside and this shard recorded, as on a first start.
import { z } from 'zod';
import type { Shard } from './shard.js';
import { FAIL_ON_DAMAGE, isoOrUnknown, loadRecovering, StateError, type StateRecovery, type StateStore } from '../../state/index.js';

/** `<state_dir>/shard.json` */
export const SHARD_MARKER = 'shard';

const markerSchema = z.strictObject({ index: z.number().int().nonnegative(), count: z.number().int().positive() });

type StateOwnerStore = Pick<StateStore, 'init' | 'load' | 'save' | 'pathOf'>;
/** `error` reports a damaged marker put aside (state_recovery: reset); without it that is a warning. */
interface StateOwnerLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error?(obj: object, msg?: string): void;
}

/**
 * Records `shard` as the directory's owner, or throws a StateError when
 * another shard's index is recorded there; a sharded replica says which
 * shard it is.
 */
export async function claimStateDir(
  store: StateOwnerStore,
  shard: Shard,
  log: StateOwnerLog,
  recovery: StateRecovery = FAIL_ON_DAMAGE,
): Promise<void> {
  await store.init();
  const file = store.pathOf(SHARD_MARKER);
  const { value: recorded, reset } = await loadRecovering(recovery, SHARD_MARKER, () => store.load(SHARD_MARKER, markerSchema), {
    refusal: 'Refusing to start without knowing which shard this state directory belongs to',
    remedy: 'Restore it from a backup, or remove it (or set state_recovery: reset) to record this replica\'s shard there',
  });
  if (reset) {
    const fields = { file, keptAs: reset.keptAs, problem: reset.problem, lastWrittenAt: isoOrUnknown(reset.lastWrittenMs), index: shard.index };
    const msg = 'damaged shard marker kept aside (state_recovery: reset); the state directory is recorded as this shard\'s';
    if (log.error) log.error(fields, msg);
    else log.warn(fields, msg);
  }
  if (recorded !== undefined && recorded.index !== shard.index) {
    throw new StateError(
      file,
      `belongs to shard ${recorded.index} (of ${recorded.count}), and this replica is shard ${shard.index} (of ${shard.count}). ` +
        'Each shard needs its own state_dir; two sharing one would overwrite each other\'s counters and WAF checkpoint. ' +
        'Point this replica at its own directory (a new one starts its counters at 0); ' +
        'state_recovery: reset does not apply, the file is not damaged',
    );
  }
  if (recorded?.count !== shard.count) {
    if (recorded !== undefined) {
      log.warn(
        { file, index: shard.index, from: recorded.count, to: shard.count },
        'shard.count changed: domains and packages now owned by another shard are counted there from 0; their counters here keep their last value',
      );
    }
    await store.save(SHARD_MARKER, { index: shard.index, count: shard.count });
  }
  if (shard.count > 1) log.info({ shard: shard.index, of: shard.count }, 'sharded: collecting this shard\'s domains and packages');
}
