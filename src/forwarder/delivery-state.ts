// What the forwarder has delivered (the checkpoint: cursor and delivered ids)
// and counted (the denied counter), and the rule for keeping it on disk: the
// checkpoint and the denied counters change together and are saved together
// (checkpoint.ts) before the counters are published. A confirmed batch is one
// journal line (its ids, ids read again since, its counts), and so is a
// finished window (where the checkpoint moved). The start, any write after a
// failed one, and a finished window once the journal holds as many entries as
// the snapshot did, rewrite the snapshot (and empty the journal): what is
// written stays within twice what changed, and a load replays no more than a
// snapshot's worth. When a save fails the state is marked dirty and the forwarder
// sends nothing more until a save succeeds, so a crash never re-sends more
// than one batch. The rule descriptions (rule-info.ts) are saved and
// published with the counter the same way.
import type { JobLogger } from '../engine/job.js';
import { errorFields, InternalError } from '../shared/errors.js';
import type { SampleSink } from '../collectors/collector.js';

import type { LogEvent } from './log-sink.js';
import { appendCheckpoint, CHECKPOINT_NAME, loadCheckpoint, saveCheckpoint, type CheckpointStorage } from './checkpoint.js';
import { DeniedCounts, WAF_EVENTS_JOB, WAF_RULE_INFO, type DeniedDelta } from './metrics.js';
import { RuleInfo, type SavedRule } from './rule-info.js';
import { DeliveredMinutes } from './delivered-minutes.js';
import { DeliveredFiles } from './delivered-files.js';
import { ANY_SCOPE, auditFrom, nextMinute, type AuditFrom } from './audit-scope.js';
import { advance, initialCheckpoint, rememberInPlace, resumed, type Checkpoint, type Position } from './window.js';
import { isoOrUnknown, type StateRecovery } from '../state/recovery.js';
import { dirname, join } from 'node:path';
import type { Clock } from '../shared/clock.js';

/** `<state_dir>/waf-events-delivered/`: the delivered ids' hashes, a file per minute. */
const DELIVERED_DIR = 'waf-events-delivered';

interface DeliveryStateOptions {
  readonly store: CheckpointStorage;
  readonly samples: SampleSink;
  readonly log: JobLogger;
  readonly clock: Clock;
  /** Most series of the denied counter, and of the rule info. */
  readonly maxSeries: number;
  /** A rule absent from this much of the deny events read (by window end) leaves the rule info. */
  readonly forgetAfterMs: number;
  /** After every successful save, with the cursor saved. */
  readonly onSaved: (cursorMs: number) => void;
  /** What a damaged checkpoint does at start-up (state_recovery); default: start-up fails. */
  readonly recovery?: StateRecovery;
  /** The most id hashes kept for the delivery audit (delivered-minutes.ts); absent: no audit, none kept. */
  readonly audit?: { readonly maxHashes: number };
}

export class DeliveryState {
  /** Its `delivered` is this state's own map, updated in place (see rememberInPlace). */
  private current: (Checkpoint & { readonly delivered: Map<string, number> }) | undefined;
  private readonly counts: DeniedCounts;
  private readonly rules: RuleInfo;
  /** Delivered events per minute of event time, for the delivery audit (saved with the checkpoint). */
  readonly minutes: DeliveredMinutes | undefined;
  /** Their hashes on disk (`<state_dir>/waf-events-delivered/`). */
  private readonly files: DeliveredFiles | undefined;
  /** From when and for which domains the minutes are complete (audit-scope.ts): loaded, then set at the first audit. */
  private auditFrom: AuditFrom | undefined;
  private dirty = false;
  private saving: Promise<void> = Promise.resolve();
  /** The journal generation of the snapshot on disk; a new snapshot takes the next one. */
  private generation = 0;
  /**
   * The next write rewrites the snapshot: after load (a torn journal line must not stay in the middle), a failed
   * write, and a finished window once the journal holds as many entries as the snapshot did.
   */
  private compactNext = true;
  /** Ids added or kept longer since the last write (journaled by the next one). */
  private changed = new Set<string>();
  /** Counter increments since the last write. */
  private counted: DeniedDelta[] = [];
  /** Rules set since the last write. */
  private described: SavedRule[] = [];
  /** A window was done since the last write: the next journal line says where the checkpoint moved. */
  private moved = false;
  /** Entries (ids, counter series, rules) the last snapshot held, and entries journaled since (a move counts one). */
  private snapshotEntries = 0;
  private journaledEntries = 0;

  constructor(private readonly options: DeliveryStateOptions) {
    this.counts = new DeniedCounts(options.maxSeries);
    this.rules = new RuleInfo(options.maxSeries, options.forgetAfterMs);
    const audit = options.audit;
    this.minutes = audit === undefined ? undefined : new DeliveredMinutes(audit.maxHashes);
    this.files = audit === undefined ? undefined : new DeliveredFiles(join(dirname(options.store.pathOf(CHECKPOINT_NAME)), DELIVERED_DIR));
  }

  /** The loaded checkpoint; throws before load(). */
  get checkpoint(): Checkpoint {
    if (!this.current) throw new InternalError('WAF event checkpoint not loaded');
    return this.current;
  }

  get cursorMs(): number | undefined {
    return this.current?.cursorMs;
  }

  /** Where the checkpoint's stream began, and so what the denied counter counts from; undefined before it is loaded. */
  get originMs(): number | undefined {
    return this.current?.originMs;
  }

  /** Events left out of the denied counter by its series cap. */
  get droppedFromCounter(): number {
    return this.counts.dropped;
  }

  /** Deny events whose rule was left out of the rule info by its series cap. */
  get droppedFromRuleInfo(): number {
    return this.rules.dropped;
  }

  /**
   * Restores the saved state and publishes its counters; on a first start,
   * begins startBackMs before now and saves that at once (a restart before the
   * first batch must not move the starting point and skip events). After a
   * reset of a damaged checkpoint it begins delayMs before now instead: every
   * event delivered before the reset is older than that (no window ever ends
   * after now - delay, delay unchanged), so none is sent or counted twice;
   * those not delivered yet are skipped, and the error log gives that range.
   */
  async load(startBackMs: number, delayMs: number, overlapMs: number): Promise<boolean> {
    await this.options.store.init();
    const { state: saved, reset } = await loadCheckpoint(this.options.store, this.options.recovery);
    if (!saved) {
      this.current = { ...initialCheckpoint(this.options.clock.now(), { startBackMs: reset ? delayMs : startBackMs }), delivered: new Map() };
      this.auditFrom = { fromMs: nextMinute(this.current.originMs), scope: ANY_SCOPE };
      // Nothing delivered is known: hashes left by an earlier start (or beside a damaged checkpoint) are no one's.
      await this.files?.clear();
      if (reset) {
        const { file, keptAs, problem, lastWrittenMs } = reset;
        this.options.log.error(
          { file, keptAs, problem, lastWrittenAt: isoOrUnknown(lastWrittenMs), resumeFrom: isoOrUnknown(this.current.cursorMs) },
          'damaged WAF event checkpoint kept aside (state_recovery: reset): deny events not forwarded yet from the lost ' +
            'cursor (at or before lastWrittenAt minus waf_events.delay) up to resumeFrom are skipped; none is sent twice; ' +
            'edge_waf_denied_requests_total restarts at 0; edge_waf_rule_info starts empty, each rule back with its ' +
            'next deny event',
        );
      }
      await this.save();
      return false;
    }
    this.current = { ...resumed(saved.checkpoint, overlapMs), delivered: new Map(saved.checkpoint.delivered) };
    this.generation = saved.generation;
    this.counts.restore(saved.counters);
    this.rules.restore(saved.rules);
    this.minutes?.restore(saved.minutes);
    this.auditFrom = saved.auditFrom;
    await this.loadHashes();
    // As the moves replayed from the journal did in memory (advance).
    this.rules.forget(this.current.cursorMs);
    this.publish();
    // Folded into a new snapshot before anything is sent (the forwarder's poll saves a dirty state first).
    this.compactNext = true;
    this.dirty = true;
    return true;
  }

  /** The hashes of every minute that has a file, oldest first (the newest kept in memory within the cap). */
  private async loadHashes(): Promise<void> {
    const { minutes, files } = this;
    if (minutes === undefined || files === undefined) return;
    for (const minute of await files.minutes()) {
      const hashes = await files.read(minute);
      if (hashes !== undefined) minutes.restoreHashes(minute, hashes);
    }
  }

  /**
   * The hashes in the files of these minutes (given up in memory: a recovery reads them before it reads the upstream),
   * and the minutes whose file was there.
   */
  async hashesOnDisk(minutes: readonly number[]): Promise<{ readonly hashes: Set<number>; readonly found: Set<number> }> {
    const hashes = new Set<number>();
    const found = new Set<number>();
    for (const minute of minutes) {
      const read = await this.files?.read(minute);
      if (read === undefined) continue;
      found.add(minute);
      for (const hash of read) hashes.add(hash);
    }
    return { hashes, found };
  }

  /** Minutes before `countsBeforeMs` leave the audit; hashes before `hashesBeforeMs` leave memory and disk. */
  async forgetMinutes(countsBeforeMs: number, hashesBeforeMs: number): Promise<void> {
    this.minutes?.forget(countsBeforeMs, hashesBeforeMs);
    if (this.minutes) await this.files?.forget(this.minutes.hashesFrom);
  }

  has(uid: string): boolean {
    return this.current?.delivered.has(uid) ?? false;
  }

  /**
   * The receiver has these, read in a window ending at windowEndMs: remember
   * them, count them, save. A recovery's (`byId` false) are not kept by id: no
   * window reads before the final pass again, and the audit's minutes tell
   * another recovery that they were delivered.
   */
  confirm(events: readonly LogEvent[], windowEndMs: number, byId = true): Promise<void> {
    if (byId) {
      rememberInPlace(this.owned().delivered, events.map((e): [string, number] => [e.uid, e.timestampMs]), windowEndMs);
      for (const e of events) this.changed.add(e.uid);
    }
    if (this.minutes) for (const e of events) this.minutes.add(e.uid, e.timestampMs);
    for (const delta of this.counts.add(events)) this.counted.push(delta);
    for (const rule of this.rules.see(events, windowEndMs)) this.described.push(rule);
    return this.save();
  }

  /**
   * Where the audit may begin for these domains (audit-scope.ts). A change is
   * saved with the next write, as a snapshot; until then a restart computes it
   * again from a later cursor, which is never too early.
   */
  auditStart(scope: string): number {
    const next = auditFrom(this.auditFrom, scope, this.checkpoint.cursorMs);
    if (next !== this.auditFrom) {
      this.auditFrom = next;
      this.compactNext = true;
      this.dirty = true;
    }
    return next.fromMs;
  }

  /** Delivered ids read again in a window ending at windowEndMs: kept until windows past it (saved with the next save). */
  refresh(uids: readonly string[], windowEndMs: number): void {
    const known = uids.flatMap((uid): Array<[string, number]> => {
      const at = this.current?.delivered.get(uid);
      return at === undefined ? [] : [[uid, at]];
    });
    if (known.length === 0) return;
    rememberInPlace(this.owned().delivered, known, windowEndMs);
    for (const [uid] of known) this.changed.add(uid);
  }

  /** A whole window is delivered: move the checkpoint to `to`, forget ids no window reads again, save. */
  advance(to: Position): Promise<void> {
    // advance() builds a new map: owned as it is, rather than a window's worth of ids copied again.
    const next = advance(this.checkpoint, to);
    this.current = next;
    this.rules.forget(next.cursorMs);
    this.moved = true;
    // A snapshot per window wrote every id kept and counter series again, in a backlog a quarter of the
    // forwarder's old-space garbage: due once the journal holds as much.
    if (this.journaledEntries >= this.snapshotEntries) this.compactNext = true;
    return this.save();
  }

  private owned(): Checkpoint & { readonly delivered: Map<string, number> } {
    if (!this.current) throw new InternalError('WAF event checkpoint not loaded');
    return this.current;
  }

  /** Retries a save that failed (before anything else is sent). */
  async saveIfDirty(): Promise<void> {
    if (this.dirty) await this.save();
  }

  /** One write at a time: the engine's stop may flush while a poll it gave up waiting for is still saving. */
  private save(): Promise<void> {
    this.dirty = true;
    const write = this.saving.then(() => this.write());
    this.saving = write.catch(() => undefined);
    return write;
  }

  private async write(): Promise<void> {
    const checkpoint = this.checkpoint;
    const taken = this.counts.totals.writing();
    const compact = this.compactNext;
    const changed = this.changed;
    const counted = this.counted;
    const described = this.described;
    const moved = this.moved;
    const minuteChanges = this.minutes?.takeChanges();
    const minutes = minuteChanges?.counts ?? [];
    this.changed = new Set();
    this.counted = [];
    this.described = [];
    this.moved = false;
    try {
      // The batch's hashes before the line that counts it: after a crash between the two, the batch is sent again and
      // its hashes are there already (delivered-files.ts).
      if (minuteChanges !== undefined && this.files !== undefined) {
        try {
          await this.files.append(minuteChanges.hashes);
        } catch (err) {
          this.minutes?.putBack(minuteChanges.hashes);
          throw err;
        }
      }
      if (compact) {
        const counters = this.counts.entries();
        const rules = this.rules.entries();
        const saved = this.minutes?.entries() ?? [];
        // Counted now: confirmations while it is written add to the map, and go to the journal.
        const entries = checkpoint.delivered.size + counters.length + rules.length + saved.length;
        const from = this.minutes === undefined ? {} : { auditFrom: this.auditFrom };
        await saveCheckpoint(this.options.store, { checkpoint, counters, rules, minutes: saved, ...from }, this.generation + 1);
        this.generation += 1;
        this.compactNext = false;
        this.snapshotEntries = entries;
        this.journaledEntries = 0;
      } else if (changed.size > 0 || counted.length > 0 || described.length > 0 || moved || minutes.length > 0) {
        const delivered: Array<[string, number]> = [];
        for (const uid of changed) {
          const keep = checkpoint.delivered.get(uid);
          if (keep !== undefined) delivered.push([uid, keep]);
        }
        const position = moved ? { cursorMs: checkpoint.cursorMs, finalMs: checkpoint.finalMs } : undefined;
        await appendCheckpoint(this.options.store, this.generation, { delivered, counted, rules: described, minutes }, position);
        this.journaledEntries += delivered.length + counted.length + described.length + minutes.length + (moved ? 1 : 0);
      }
    } catch (err) {
      // What this write took is not known to be on disk (a journal line may be torn): the next write is a whole snapshot.
      this.compactNext = true;
      this.options.log.error(errorFields(err), 'saving the WAF event checkpoint failed; nothing more is sent until it succeeds');
      throw err;
    }
    this.dirty = false;
    this.counts.totals.written(taken);
    this.publish();
    this.options.onSaved(checkpoint.cursorMs);
  }

  /** A sink's bug must not undo a delivery that is already saved. */
  private publish(): void {
    try {
      const gauges = new Map([[WAF_RULE_INFO.name, this.rules.samples()]]);
      this.options.samples.publish(WAF_EVENTS_JOB, { counters: this.counts.totals.saved, gauges });
    } catch (err) {
      this.options.log.error(errorFields(err), 'publishing the WAF denied-request counter and rule info failed');
    }
  }
}
