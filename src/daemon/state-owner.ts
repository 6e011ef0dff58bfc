// A state directory belongs to one shard: its counters, watermarks and WAF
// event checkpoint describe that shard's domains and packages alone. Two
// shards sharing one would overwrite each other's files (counters jumping
// between two histories, WAF events skipped or sent twice), so the first
// start records the shard in <state_dir>/shard.json and a replica with
// another index refuses to start. A changed count is accepted and recorded:
// scaling a StatefulSet changes every replica's count while each keeps its
// own volume, and so its index. Checked at start-up only: two replicas
// started at the same instant on an empty directory are not told apart.
import { z } from 'zod';
import type { Shard } from '../collectors/index.js';
import type { Logger } from '../log/logger.js';
import { StateError, type StateStore } from '../state/index.js';

/** `<state_dir>/shard.json` */
export const SHARD_MARKER = 'shard';

const markerSchema = z.strictObject({ index: z.number().int().nonnegative(), count: z.number().int().positive() });

export type StateOwnerStore = Pick<StateStore, 'init' | 'load' | 'save' | 'pathOf'>;

/** Records `shard` as the directory's owner, or throws a StateError when another shard's index is recorded there. */
export async function claimStateDir(store: StateOwnerStore, shard: Shard, log: Pick<Logger, 'warn'>): Promise<void> {
  await store.init();
  const file = store.pathOf(SHARD_MARKER);
  const recorded = await store.load(SHARD_MARKER, markerSchema);
  if (recorded !== undefined && recorded.index !== shard.index) {
    throw new StateError(
      file,
      `belongs to shard ${recorded.index} (of ${recorded.count}), and this replica is shard ${shard.index} (of ${shard.count}). ` +
        'Each shard needs its own state_dir; two sharing one would overwrite each other\'s counters and WAF checkpoint. ' +
        'Point this replica at its own directory (a new one starts its counters at 0)',
    );
  }
  if (recorded?.count === shard.count) return;
  if (recorded !== undefined) {
    log.warn(
      { file, index: shard.index, from: recorded.count, to: shard.count },
      'shard.count changed: domains and packages now owned by another shard are counted there from 0; their counters here keep their last value',
    );
  }
  await store.save(SHARD_MARKER, { index: shard.index, count: shard.count });
}
