// The forwarder's state: window position (cursor and final pass), the
// requestIds a window may read again, and the denied-request counters. Two files that always agree:
//
// - `<state_dir>/waf-events-checkpoint.json`, the snapshot: written whole and
//   atomically (StateStore.save) at start-up, after a failed write, and when
//   a window is done once the journal holds as many entries (ids, counter
//   series, rules) as the snapshot did; it names its journal generation
//   (`journal`).
// - `<state_dir>/waf-events-checkpoint.journal`, one NDJSON line per confirmed
//   batch (appended and fsynced): the batch's ids and what it added to the
//   counters, tagged with the generation; a window done and not snapshotted
//   adds where the checkpoint moved (`a`). Rewriting the whole id set after
//   every batch made catching up a backlog quadratic, and after every window
//   it was a quarter of the forwarder's old-space garbage.
//
// A load replays the lines of the snapshot's generation in order (a line's
// ids, then its move, which forgets the ids no window reads again); lines of another one
// are left over from a compaction a crash interrupted after the snapshot was
// renamed (already in it) and are ignored. A torn last line (a crash during
// the append) is dropped: its batch was not confirmed as saved, so it is sent
// again once, as before. After a crash either a batch's ids and its counts are
// on disk, or neither is. A snapshot without `journal` (written before the
// journal existed) is generation 0 and loads as it always did. Both files also
// hold the rules of edge_waf_rule_info (rule-info.ts): `rules` in the
// snapshot, `r` in a line (the rules its batch set); files written before
// they existed have none, and load with none. And both hold what the delivery
// audit counts (delivered-minutes.ts): per minute of event time, how many
// events were delivered, `minutes` in the snapshot, `m` in a line (what its
// batch added), with `auditFrom`, from when and for which domains those
// counts are complete (audit-scope.ts); files written before the audit have
// none, and the audit begins past their cursor. The ids' hashes are in files
// of their own (delivered-files.ts).
import { z } from 'zod';
import { FAIL_ON_DAMAGE, loadRecovering, type StateRecovery, type StateReset } from '../state/recovery.js';
import { StateError, type StateStore } from '../state/store.js';
import type { MinuteCount } from './delivered-minutes.js';
import type { AuditFrom } from './audit-scope.js';
import type { DeniedDelta, DeniedLabels } from './metrics.js';
import type { SavedRule } from './rule-info.js';
import { advance, type Checkpoint, type Position, type SavedCheckpoint } from './window.js';

/** `<state_dir>/waf-events-checkpoint.json` (and `.journal`) */
export const CHECKPOINT_NAME = 'waf-events-checkpoint';

/** The store operations the forwarder needs (StateStore has them). */
export type CheckpointStorage = Pick<StateStore, 'init' | 'load' | 'save' | 'pathOf' | 'journal'>;

const labelsSchema = z.strictObject({ domain: z.string(), rule_id: z.string(), severity: z.string() });
/** [rule_id, description, category, seen at ms]; absent in files written before edge_waf_rule_info. */
const rulesSchema = z.array(z.tuple([z.string(), z.string(), z.string(), z.number().int()])).optional();
/** [minute start ms, events delivered]; a line's may be negative (a recovery's repeats, counted before). */
const minutesSchema = z.array(z.tuple([z.number().int(), z.number().int()])).optional();

const checkpointFileSchema = z
  .strictObject({
    originMs: z.number().int(),
    cursorMs: z.number().int(),
    /** Where the final pass resumes (window.ts); absent in files written before it. */
    finalMs: z.number().int().optional(),
    /** [requestId, event time ms]: an array, so no id can collide with an object key like __proto__. */
    delivered: z.array(z.tuple([z.string().min(1), z.number().int()])),
    counters: z.array(z.strictObject({ labels: labelsSchema, value: z.number().int().nonnegative() })),
    /** The journal generation whose lines belong to this snapshot; absent before the journal existed (0). */
    journal: z.number().int().nonnegative().optional(),
    rules: rulesSchema,
    minutes: minutesSchema,
    /** [ms, domains]: the audit's minutes hold every event delivered from then on, for the domains in the scope key (audit-scope.ts). */
    auditFrom: z.tuple([z.number().int(), z.string()]).optional(),
  })
  .refine((f) => f.cursorMs >= f.originMs, { path: ['cursorMs'], error: 'cursor before origin' })
  // Checked once the cursor is in order: a damaged file names one problem.
  .refine((f) => f.finalMs === undefined || f.cursorMs < f.originMs || (f.finalMs >= f.originMs && f.finalMs <= f.cursorMs), {
    path: ['finalMs'],
    error: 'final pass outside origin..cursor',
  });

/**
 * One confirmed batch: generation, [requestId, kept-until ms] of its ids (and
 * ids read again), counter increments; and after them, when a window was done
 * since the last write, [cursorMs, finalMs] where the checkpoint moved (absent
 * in files written before it existed).
 */
const journalLineSchema = z.strictObject({
  g: z.number().int().nonnegative(),
  d: z.array(z.tuple([z.string().min(1), z.number().int()])),
  c: z.array(z.tuple([z.string(), z.string(), z.string(), z.number().int().positive()])),
  r: rulesSchema,
  m: minutesSchema,
  a: z.tuple([z.number().int(), z.number().int()]).optional(),
});

interface CheckpointState {
  readonly checkpoint: Checkpoint;
  readonly counters: ReadonlyArray<{ labels: DeniedLabels; value: number }>;
  readonly rules: readonly SavedRule[];
  /** The delivery audit's counts per minute (loaded: the snapshot's, then each journal line's, in order). */
  readonly minutes: readonly MinuteCount[];
  /** From when, and for which domains, the minutes are complete; absent in files written before the audit or without it. */
  readonly auditFrom?: AuditFrom | undefined;
}

interface LoadedCheckpoint extends Omit<CheckpointState, 'checkpoint'> {
  readonly checkpoint: SavedCheckpoint;
  /** The generation loaded; the next snapshot takes the one after it. */
  readonly generation: number;
}

/**
 * The saved state (`state` undefined on a first start or after a reset). A
 * damaged file fails with its path: starting over would re-send the last
 * start_from of events, or skip everything between the checkpoint and the new
 * starting point. Under state_recovery: reset it is put aside (with its
 * journal) instead and `reset` says so; the forwarder then skips rather than
 * re-sends (delivery-state.ts).
 */
export async function loadCheckpoint(
  store: CheckpointStorage,
  recovery: StateRecovery = FAIL_ON_DAMAGE,
): Promise<{ state: LoadedCheckpoint | undefined; reset?: StateReset }> {
  const { value, reset } = await loadRecovering(recovery, CHECKPOINT_NAME, () => loadWithJournal(store), {
    refusal: 'Refusing to start rather than guess where WAF event forwarding stopped',
    remedy:
      'Restore it from a backup (removing it would start again waf_events.start_from back: events sent and counted ' +
      'twice), or set state_recovery: reset to resume at now minus waf_events.delay (events not forwarded yet before ' +
      'that are skipped, none is sent or counted twice; edge_waf_denied_requests_total restarts from 0, ' +
      'edge_waf_rule_info starts empty)',
  });
  if (value === undefined) return reset ? { state: undefined, reset } : { state: undefined };
  return { state: value };
}

async function loadWithJournal(store: CheckpointStorage): Promise<LoadedCheckpoint | undefined> {
  const file = await store.load(CHECKPOINT_NAME, checkpointFileSchema);
  // A journal without its snapshot belongs to no state: the first save truncates it.
  if (file === undefined) return undefined;
  const generation = file.journal ?? 0;
  let delivered = new Map(file.delivered);
  let position = { cursorMs: file.cursorMs, finalMs: file.finalMs };
  const counters = new Map(file.counters.map((c) => [counterKey(c.labels), { labels: c.labels, value: c.value }]));
  const rules = new Map((file.rules ?? []).map((r) => [r[0], r]));
  const minutes: MinuteCount[] = [...(file.minutes ?? [])];
  const journal = store.journal(CHECKPOINT_NAME);
  const { entries } = await journal.read();
  for (const [i, entry] of entries.entries()) {
    const line = journalLineSchema.safeParse(entry);
    if (!line.success) {
      const issue = line.error.issues[0];
      const where = issue ? `${['line', String(i + 1), ...issue.path.map(String)].join('.')}: ${issue.message}` : `line ${i + 1}`;
      throw new StateError(journal.path, `does not hold what it should (${where})`, { damaged: true });
    }
    if (line.data.g !== generation) continue;
    for (const [uid, keepMs] of line.data.d) delivered.set(uid, Math.max(keepMs, delivered.get(uid) ?? keepMs));
    for (const [domain, rule_id, severity, n] of line.data.c) {
      const labels = { domain, rule_id, severity };
      const key = counterKey(labels);
      const known = counters.get(key);
      if (known) known.value += n;
      else counters.set(key, { labels, value: n });
    }
    for (const rule of line.data.r ?? []) rules.set(rule[0], rule);
    for (const change of line.data.m ?? []) minutes.push(change);
    if (line.data.a !== undefined) {
      const [cursorMs, finalMs] = line.data.a;
      // As the forwarder moved it (window.ts advance); a move follows a snapshot with finalMs (one is written at every start).
      const moved = advance({ originMs: file.originMs, ...position, finalMs: position.finalMs ?? file.originMs, delivered }, { cursorMs, finalMs });
      delivered = moved.delivered;
      position = { cursorMs: moved.cursorMs, finalMs: moved.finalMs };
    }
  }
  return {
    checkpoint: { originMs: file.originMs, cursorMs: position.cursorMs, ...(position.finalMs === undefined ? {} : { finalMs: position.finalMs }), delivered },
    counters: [...counters.values()],
    rules: [...rules.values()],
    minutes,
    ...(file.auditFrom === undefined ? {} : { auditFrom: { fromMs: file.auditFrom[0], scope: file.auditFrom[1] } }),
    generation,
  };
}

const counterKey = (labels: DeniedLabels): string => `${labels.domain}\u0000${labels.rule_id}\u0000${labels.severity}`;

/** The whole state as generation `generation`, then the journal emptied (its lines are in the snapshot now). */
export async function saveCheckpoint(store: CheckpointStorage, state: CheckpointState, generation = 0): Promise<void> {
  const { checkpoint, counters, rules, minutes, auditFrom } = state;
  await store.save(CHECKPOINT_NAME, {
    originMs: checkpoint.originMs,
    cursorMs: checkpoint.cursorMs,
    finalMs: checkpoint.finalMs,
    delivered: [...checkpoint.delivered],
    counters,
    journal: generation,
    rules,
    ...(minutes.length === 0 ? {} : { minutes }),
    ...(auditFrom === undefined ? {} : { auditFrom: [auditFrom.fromMs, auditFrom.scope] }),
  });
  await store.journal(CHECKPOINT_NAME).truncate();
}

/** What one write adds: a batch's ids and counts, the rules it set, the audit's minutes it added to. */
interface JournalChanges {
  readonly delivered: ReadonlyArray<readonly [string, number]>;
  readonly counted: readonly DeniedDelta[];
  readonly rules: readonly SavedRule[];
  readonly minutes: readonly MinuteCount[];
}

/** The changes since the last write, appended to the journal of `generation` and fsynced: one batch's, and where a window done moved the checkpoint. */
export function appendCheckpoint(store: CheckpointStorage, generation: number, changes: JournalChanges, moved?: Position): Promise<void> {
  const { delivered, counted, rules, minutes } = changes;
  return store.journal(CHECKPOINT_NAME).append([{
    g: generation,
    d: delivered,
    c: counted.map((c) => [c.labels.domain, c.labels.rule_id, c.labels.severity, c.value]),
    ...(rules.length === 0 ? {} : { r: rules }),
    ...(minutes.length === 0 ? {} : { m: minutes }),
    ...(moved === undefined ? {} : { a: [moved.cursorMs, moved.finalMs] }),
  }]);
}
