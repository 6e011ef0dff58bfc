// The forwarder's one state file: window position, the requestIds delivered
// inside the overlap, and the denied-request counters. One atomic file so
// they always agree: after a crash either a batch's ids and its counts are on
// disk, or neither is and the batch is sent (and counted) again once.
import { z } from 'zod';
import { FAIL_ON_DAMAGE, loadRecovering, type StateRecovery, type StateReset } from '../../state/recovery.js';
import type { StateStore } from '../../state/store.js';
import type { DeniedLabels } from './metrics.js';
import type { Checkpoint } from './window.js';

/** `<state_dir>/waf-events-checkpoint.json` */
export const CHECKPOINT_NAME = 'waf-events-checkpoint';

/** The store operations the forwarder needs (StateStore has them). */
export type CheckpointStorage = Pick<StateStore, 'init' | 'load' | 'save' | 'pathOf'>;

const checkpointFileSchema = z
  .strictObject({
    originMs: z.number().int(),
    cursorMs: z.number().int(),
    /** [requestId, event time ms]: an array, so no id can collide with an object key like __proto__. */
    delivered: z.array(z.tuple([z.string().min(1), z.number().int()])),
    counters: z.array(
      z.strictObject({
        labels: z.strictObject({ domain: z.string(), rule_id: z.string(), severity: z.string() }),
        value: z.number().int().nonnegative(),
      }),
    ),
  })
  .refine((f) => f.cursorMs >= f.originMs, { path: ['cursorMs'], error: 'cursor before origin' });

export interface CheckpointState {
  readonly checkpoint: Checkpoint;
  readonly counters: ReadonlyArray<{ labels: DeniedLabels; value: number }>;
}

/**
 * The saved state (`state` undefined on a first start or after a reset). A
 * damaged file fails with its path: starting over would re-send the last
 * start_from of events, or skip everything between the checkpoint and the new
 * starting point. Under state_recovery: reset it is put aside instead and
 * `reset` says so; the forwarder then skips rather than re-sends (delivery-book.ts).
 */
export async function loadCheckpoint(
  store: CheckpointStorage,
  recovery: StateRecovery = FAIL_ON_DAMAGE,
): Promise<{ state: CheckpointState | undefined; reset?: StateReset }> {
  const { value: file, reset } = await loadRecovering(recovery, CHECKPOINT_NAME, () => store.load(CHECKPOINT_NAME, checkpointFileSchema), {
    refusal: 'Refusing to start rather than guess where WAF event forwarding stopped',
    remedy:
      'Restore it from a backup (removing it would start again waf_events.start_from back: events sent and counted ' +
      'twice), or set state_recovery: reset to resume at now minus waf_events.delay (events not forwarded yet before ' +
      'that are skipped, none is sent or counted twice; edge_waf_denied_requests_total restarts from 0)',
  });
  if (file === undefined) return reset ? { state: undefined, reset } : { state: undefined };
  return {
    state: {
      checkpoint: { originMs: file.originMs, cursorMs: file.cursorMs, delivered: new Map(file.delivered) },
      counters: file.counters,
    },
  };
}

export function saveCheckpoint(store: CheckpointStorage, state: CheckpointState): Promise<void> {
  const { checkpoint, counters } = state;
  return store.save(CHECKPOINT_NAME, {
    originMs: checkpoint.originMs,
    cursorMs: checkpoint.cursorMs,
    delivered: [...checkpoint.delivered],
    counters,
  });
}
