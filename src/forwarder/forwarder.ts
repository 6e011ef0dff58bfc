// The WAF event forwarder: polls the deny records window by window
// (window.ts), drops repeats, converts, and delivers them to a LogSink in
// batches no larger than the sink takes, saving the checkpoint after every
// confirmed batch (delivery-state.ts). A crash re-sends at most the batch in flight;
// nothing confirmed before it is sent again, and nothing is skipped. It is an
// event-stream job of the engine (engine/scheduler.ts), which runs it at start
// and every interval, never overlapping itself; upstream failures are logged
// and retried on the next poll, delivery failures are retried in place
// (deliver.ts) while polling waits. Given a scope, each poll reads only the
// domains it gives at that moment. Between conversion and delivery the volume
// policy (volume.ts, waf_events.max_rate / over_rate) paces the batches or
// folds the events past the rate into summary records sent after the window.
// Once a poll has caught up, the delivery audit (auditor.ts) compares the
// upstream's deny counts per bucket with what was delivered, and the buckets
// it finds short are read again here and their missing records delivered,
// exactly as a window's.
import { MismatchReporter } from '../collectors/contract/reporter.js';
import { describeError, errorFields, failureMessage } from '../shared/errors.js';
import { notifySafely } from '../engine/guard.js';
import { type EventJob } from '../engine/job.js';
import type { Schedule } from '../engine/schedule.js';

import { CHECKPOINT_NAME } from './checkpoint.js';
import { headerPolicy, type HeaderPolicy } from './convert.js';
import { DEFAULT_DELIVERY_RETRY, deliverBatch, type DeliveryContext, type DeliveryRetry } from './deliver.js';
import { drainWindow, type Drained } from './drain.js';
import type { WafQuery } from './fetch.js';
import { WAF_EVENTS_JOB, type WafEventsObserver, type WafEventsStats } from './metrics.js';
import { pageMismatches } from './mismatches.js';
import { DEFAULT_MAX_WINDOW_EVENTS, type PollReport, type WafEventForwarderOptions } from './options.js';
import { DeliveryState } from './delivery-state.js';
import { nextWindow, passed, type TimeWindow, type WindowPass } from './window.js';
import { paceBatch, windowBudget, WindowFold } from './volume.js';
import type { AuditBucket } from './audit.js';
import { Auditor } from './auditor.js';
import { scopeKey } from './audit-scope.js';
import { OverlapTuner } from './overlap.js';
import { recoverBucket, type RecoveryHooks } from './recovery.js';
import { pause } from '../shared/wait.js';
import type { LogEvent } from './log-sink.js';
import { Outgoing } from './outgoing.js';
import { SYSTEM_CLOCK, type Clock } from '../shared/clock.js';

const SECOND = 1000;

interface Totals {
  read: number;
  deduplicated: number;
  forwarded: number;
  summarized: number;
  exportFailures: number;
}

export class WafEventForwarder implements EventJob {
  readonly kind = 'events';
  readonly name = WAF_EVENTS_JOB;
  readonly schedule: Schedule;
  private readonly options: WafEventForwarderOptions;
  private readonly clock: Clock;
  private readonly policy: HeaderPolicy;
  private readonly retry: DeliveryRetry;
  private readonly delivery: DeliveryState;
  private readonly mismatches: MismatchReporter;
  private readonly totals: Totals = { read: 0, deduplicated: 0, forwarded: 0, summarized: 0, exportFailures: 0 };
  private restoring: Promise<void> | undefined;
  private readonly auditor: Auditor | undefined;
  /** The overlap in force (waf_events.overlap, or under auto what the audit's recoveries call for). */
  private readonly overlap: OverlapTuner;
  /** over_rate delay: when the next batch may go (performance.now(), the clock pause() runs on). */
  private nextFreeMs = 0;
  /** The time a window spans past the cursor: maxWindowMs, shrunk while windows hold more than maxWindowEvents new records. */
  private spanMs: number;
  constructor(options: WafEventForwarderOptions) {
    this.options = options;
    this.spanMs = options.maxWindowMs;
    this.schedule = { kind: 'interval', everyMs: options.intervalMs };
    this.overlap = new OverlapTuner(options.overlapMs, options.delayMs, options.audit ? options.autoOverlap : undefined);
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.policy = headerPolicy(options.headers);
    this.retry = { ...DEFAULT_DELIVERY_RETRY, ...options.retry };
    this.mismatches = new MismatchReporter({
      log: options.log, clock: this.clock,
      observer: { onMismatch: (check, count) => this.notify((ob) => ob.onMismatch?.(check, count)) },
    });
    this.delivery = new DeliveryState({
      store: options.store,
      samples: options.samples,
      log: options.log,
      clock: this.clock,
      maxSeries: options.maxSeries ?? 10_000,
      forgetAfterMs: options.forgetAfterMs ?? 3_600_000,
      ...(options.recovery ? { recovery: options.recovery } : {}),
      ...(options.audit ? { audit: { maxHashes: options.audit.maxHashes } } : {}),
      onSaved: (cursorMs) => this.notify((ob) => ob.onCheckpoint?.(cursorMs)),
    });
    const minutes = this.delivery.minutes;
    this.auditor = options.audit && minutes
      ? new Auditor({
        options: options.audit, client: options.client, tz: options.tz, minutes, log: options.log, notify: (call) => this.notify(call),
        forget: (countsBeforeMs, hashesBeforeMs) => this.delivery.forgetMinutes(countsBeforeMs, hashesBeforeMs),
      })
      : undefined;
  }

  /**
   * Where edge_waf_denied_requests_total counts from (epoch ms): the
   * checkpoint's origin, kept with the totals across restarts; undefined
   * before the checkpoint is loaded. OTLP metrics' cumulative start for it.
   */
  countingSince(): number | undefined {
    return this.delivery.originMs;
  }

  stats(): WafEventsStats {
    const cursor = this.delivery.cursorMs;
    return {
      ...this.totals,
      checkpointLagSeconds: cursor === undefined ? undefined : Math.max(0, (this.clock.now() - cursor) / 1000),
      droppedFromCounter: this.delivery.droppedFromCounter,
      droppedFromRuleInfo: this.delivery.droppedFromRuleInfo,
      ...(this.auditor ? { audit: this.auditor.stats() } : {}),
    };
  }

  /** Reads the checkpoint once (the engine's start and every poll do it first); a damaged one rejects unless reset. */
  restore(): Promise<void> {
    this.restoring ??= (async () => {
      const restored = await this.delivery.load(this.options.startBackMs, this.options.delayMs, this.overlap.overlapMs);
      const { originMs, cursorMs, finalMs } = this.delivery.checkpoint;
      const { tz } = this.options;
      const fields = { restored, origin: tz.formatIso(originMs), cursor: tz.formatIso(cursorMs), finalPass: tz.formatIso(finalMs), file: this.options.store.pathOf(CHECKPOINT_NAME) };
      this.options.log.info(fields, 'WAF event checkpoint loaded');
    })();
    return this.restoring;
  }

  /** One poll: every window due, until caught up or failed. The engine never runs two at once. */
  async run(signal: AbortSignal): Promise<PollReport> {
    const before = this.totals.forwarded;
    let windows = 0;
    const report = (error?: unknown): PollReport => ({
      ok: error === undefined,
      windows,
      forwarded: this.totals.forwarded - before,
      cursorMs: this.delivery.cursorMs,
      ...(error === undefined ? {} : { error: describeError(error) }),
    });
    try {
      await this.restore();
      await this.delivery.saveIfDirty();
      const query = await this.queryOf(signal);
      // Windows end by the time the poll began: a poll slower than the events it reads ends anyway (the lag
      // gauge shows it), and the next poll goes on with windows longer by the time this one took.
      const now = this.clock.now();
      for (;;) {
        signal.throwIfAborted();
        // Windows of half an interval at least (unless a final pass closes the gap to the cursor): fewer requests and snapshots.
        // The ids kept stay within max_window_events and one window, a flood's included (nextWindow).
        const bounds = { ...this.options, overlapMs: this.overlap.overlapMs, maxWindowMs: this.spanMs, minNewMs: this.options.intervalMs / 2, maxKeptIds: this.maxWindowEvents };
        const window = nextWindow(this.delivery.checkpoint, now, bounds);
        if (!window) {
          // Caught up: the audit's turn (its recoveries wait behind the new events).
          if (query !== undefined && this.auditor) {
            const span = { fromMs: this.delivery.auditStart(scopeKey(query.domains)), finalMs: this.delivery.checkpoint.finalMs };
            if (await this.audit(now, span, query, signal)) this.tuneOverlap(now);
          }
          return report();
        }
        const behindMs = now - this.options.delayMs - this.delivery.checkpoint.cursorMs;
        const readAtMs = this.clock.now();
        const drained = query === undefined ? { delivered: 0, read: 0, complete: true } : await this.drain(window, query, signal);
        if (!drained.complete) {
          // Its new records are delivered and their ids kept as any window's; the same start is read again, shorter.
          this.spanMs = Math.max(SECOND, Math.floor((window.endMs - window.startMs) / 2 / SECOND) * SECOND);
          this.logShrunk(window, drained.delivered);
          continue;
        }
        await this.delivery.advance(passed(this.delivery.checkpoint, window, readAtMs, bounds));
        windows++;
        // Few enough: try a longer one next (fewer windows). Counted as read: after a cut the shorter window
        // finds many of its records delivered already, and would grow back into the cut.
        if (drained.read < this.maxWindowEvents / 2) this.spanMs = Math.min(this.options.maxWindowMs, this.spanMs * 2);
        this.logWindow(window, drained.delivered, behindMs);
      }
    } catch (err) {
      if (signal.aborted) this.options.log.info({}, 'WAF event poll stopped');
      else this.options.log.warn(errorFields(err), failureMessage(err, 'WAF event poll'));
      return report(err);
    }
  }

  /** This poll's query: the configured one, or the scope's domains; undefined when the scope gives none. */
  private async queryOf(signal: AbortSignal): Promise<WafQuery | undefined> {
    const scope = this.options.scope;
    if (!scope) return this.options.query;
    const domains = await scope.domains(this.clock.now(), signal);
    // No request at all: `domains: []` would read every domain of the account.
    return domains.length === 0 ? undefined : { ...this.options.query, domains };
  }

  private get maxWindowEvents(): number {
    return this.options.maxWindowEvents ?? DEFAULT_MAX_WINDOW_EVENTS;
  }

  /**
   * One audit check when due; whether it checked. A check that fails (the
   * upstream refused logTread, a recovery's read failed) is logged and tried
   * again at the next one: the windows it follows were delivered, and the
   * poll stands.
   */
  private async audit(now: number, span: { fromMs: number; finalMs: number }, query: WafQuery, signal: AbortSignal): Promise<boolean> {
    if (!this.auditor) return false;
    try {
      return await this.auditor.runIfDue(now, span, query, signal, (bucket) => this.recover(bucket, query, signal));
    } catch (err) {
      if (signal.aborted) throw err;
      this.options.log.warn(errorFields(err), failureMessage(err, 'WAF delivery audit check'));
      return false;
    }
  }

  /**
   * A bucket the audit found short, read again whole (recovery.ts): what was
   * not delivered yet goes as a window's records would (the volume policy too:
   * like a final pass, a recovery adds no budget, so under summarize its events
   * are folded).
   */
  private recover(bucket: AuditBucket, query: WafQuery, signal: AbortSignal): Promise<number> {
    const minutes = this.delivery.minutes;
    if (!minutes) return Promise.resolve(0);
    return recoverBucket(bucket, {
      minutes,
      hashesOnDisk: (list) => this.delivery.hashesOnDisk(list),
      drain: (window, hooks) => this.drain(window, query, signal, hooks),
      recovered: (atMs, latenessMs) => {
        this.overlap.recovered(atMs, latenessMs);
        this.notify((ob) => ob.onRecovered?.(latenessMs.map((ms) => ms / SECOND)));
      },
      nowMs: this.clock.now(),
      tz: this.options.tz,
      log: this.options.log,
      notify: (call) => this.notify(call),
    });
  }

  private async drain(window: TimeWindow, query: WafQuery, signal: AbortSignal, recovery?: RecoveryHooks): Promise<Drained> {
    const delivery = this.deliveryContext(signal, (events) => {
      // Forwarded once the receiver confirmed, whether or not the save that follows succeeds.
      this.count('forwarded', events.length, (ob) => ob.onForwarded?.(events.length));
      return this.confirm(events, window, recovery);
    });
    const { maxRate, overRate } = this.options.volume ?? { maxRate: undefined, overRate: 'delay' };
    const fold = maxRate !== undefined && overRate === 'summarize' ? new WindowFold(windowBudget(window, this.delivery.checkpoint, maxRate)) : undefined;
    const sink = this.options.sink;
    const drained = await drainWindow(window, {
      reader: { client: this.options.client, tz: this.options.tz, query, signal },
      policy: this.policy,
      maxBatch: this.options.sink.maxBatch,
      // A one-second window cannot be cut shorter: it is read whole; so is a recovery (what it delivers is not kept by id).
      ...(recovery === undefined && window.endMs - window.startMs > SECOND ? { maxNew: this.maxWindowEvents } : {}),
      offsetMinutes: this.options.tz.offsetMinutes,
      now: () => this.clock.now(),
      isDelivered: (uid, timeMs) => this.delivery.has(uid) || fold?.holds(uid) === true || recovery?.isDelivered(uid, timeMs) === true,
      refresh: (uids) => this.delivery.refresh(uids, window.endMs),
      // The sink takes each record as it is read (held whole, a batch's events were promoted and marked
      // again at every full collection); a folded event goes to no batch, its fold keeps what its summary reads.
      open: () => sink.batch(),
      ...(fold ? { admit: (event: LogEvent) => fold.take(event) } : {}),
      deliver: async (batch) => {
        if (!fold) await this.paced(batch.records.size, maxRate, signal);
        await deliverBatch(batch, delivery);
      },
      onPage: (read, repeats, findings) => {
        this.count('read', read, (ob) => ob.onRead?.(read));
        this.count('deduplicated', repeats, (ob) => ob.onDeduplicated?.(repeats));
        this.mismatches.report(WAF_EVENTS_JOB, pageMismatches(window, findings, this.options.tz));
      },
    });
    if (fold) await this.deliverSummaries(fold, window, signal, recovery);
    return drained;
  }

  /** Events the receiver confirmed, sent as records or folded into summaries; a recovery's are tallied, and not kept by id. */
  private confirm(events: readonly LogEvent[], window: TimeWindow, recovery: RecoveryHooks | undefined): Promise<void> {
    recovery?.onConfirmed(events);
    return this.delivery.confirm(events, window.endMs, recovery === undefined);
  }

  private deliveryContext(signal: AbortSignal, confirm: DeliveryContext['confirm']): DeliveryContext {
    return {
      sink: this.options.sink,
      signal,
      retry: this.retry,
      log: this.options.log,
      confirm,
      failed: (events, code) => this.count('exportFailures', 1, (ob) => ob.onExportFailure?.({ events, code })),
    };
  }

  /** over_rate delay: waits for the turn of a batch of `events` at max_rate (volume.ts). */
  private async paced(events: number, maxRate: number | undefined, signal: AbortSignal): Promise<void> {
    if (maxRate === undefined) return;
    const { waitMs, nextFreeMs } = paceBatch(this.nextFreeMs, performance.now(), events, maxRate);
    this.nextFreeMs = nextFreeMs;
    if (waitMs > 0) await pause(waitMs, signal);
    signal.throwIfAborted();
  }

  /**
   * over_rate summarize, after the window's last page: its summary records, in batches. The events a summary
   * folds are marked delivered and counted only once the receiver confirmed it; until then a restart reads
   * them again and builds the same summary uid.
   */
  private async deliverSummaries(fold: WindowFold, window: TimeWindow, signal: AbortSignal, recovery?: RecoveryHooks): Promise<void> {
    const summaries = fold.summaries();
    const delivery = this.deliveryContext(signal, (events) => {
      this.count('summarized', events.length, (ob) => ob.onSummarized?.(events.length));
      return this.confirm(events, window, recovery);
    });
    const sink = this.options.sink;
    const maxBatch = Math.max(1, Math.floor(sink.maxBatch));
    for (let i = 0; i < summaries.length; i += maxBatch) {
      const batch = new Outgoing(sink.batch());
      for (const { record, folded } of summaries.slice(i, i + maxBatch)) batch.addSummary(record, folded);
      await deliverBatch(batch, delivery);
    }
  }

  /**
   * After a check: the overlap its recoveries call for, as a gauge; under auto put in force from the next window,
   * else logged where it differs from the one configured (once a day, or when it moved by more than a minute).
   */
  private tuneOverlap(nowMs: number): void {
    const was = this.overlap.overlapMs;
    const { suggestedMs, putInForceMs, logSuggestion } = this.overlap.afterCheck(nowMs);
    this.notify((ob) => ob.onOverlapSuggested?.(suggestedMs / SECOND));
    const fields = { overlap: was / SECOND, suggestedOverlap: suggestedMs / SECOND };
    if (putInForceMs !== undefined) {
      this.options.log.info({ ...fields, overlap: putInForceMs / SECOND, was: was / SECOND }, `waf_events.overlap: auto puts ${putInForceMs / SECOND}s in force from the next window`);
    } else if (logSuggestion) {
      this.options.log.warn(fields, `the WAF delivery audit recovered records ingested later than delay + overlap over the last day; an overlap of ${suggestedMs / SECOND}s would have caught them (edge_exporter_waf_suggested_overlap_seconds; or overlap: auto)`);
    }
  }

  private logShrunk(window: WindowPass, delivered: number): void {
    const { tz } = this.options;
    this.options.log.info(
      { from: tz.formatIso(window.startMs), to: tz.formatIso(window.endMs), pass: window.pass, delivered, nextSpanSeconds: this.spanMs / SECOND, maxWindowEvents: this.maxWindowEvents },
      'WAF event window held more than waf_events.max_window_events new events: read again shorter',
    );
  }

  private logWindow(window: WindowPass, delivered: number, behindMs: number): void {
    const fields = {
      from: this.options.tz.formatIso(window.startMs),
      to: this.options.tz.formatIso(window.endMs),
      pass: window.pass,
      delivered,
      remainingLagSeconds: Math.max(0, Math.round((this.clock.now() - this.options.delayMs - this.delivery.checkpoint.cursorMs) / 1000)),
    };
    // Catching up a backlog is worth an operator's eye; the steady state is not.
    if (behindMs > this.options.maxWindowMs) this.options.log.info(fields, 'WAF event backlog: window delivered');
    else this.options.log.debug(fields, 'WAF event window delivered');
  }

  private count(total: keyof Totals, n: number, call: (ob: WafEventsObserver) => void): void {
    if (n === 0) return;
    this.totals[total] += n;
    this.notify(call);
  }

  private notify(call: (ob: WafEventsObserver) => void): void {
    const observer = this.options.observer;
    if (observer) notifySafely(this.options.log, 'WAF event observer', () => call(observer));
  }

  /** At stop, after the poll settled or was given up: a checkpoint whose save failed is saved (its failure is logged there). */
  async flush(): Promise<void> {
    await this.delivery.saveIfDirty().catch(() => undefined);
    this.options.log.info({}, 'WAF event forwarder stopped');
  }
}
