// The one engine every job runs under, sample jobs (the metric collectors) and
// event-stream jobs (the WAF event forwarder) alike. At start it restores every
// job's saved state (a damaged state file fails start-up), runs each once and then on its
// schedule (schedule.ts). The same job never runs twice at once: a tick that
// arrives while a run is in flight is skipped; for a collector that is
// counted and logged, for an event stream (a backlog being caught up) it is
// normal, and the job runs again as soon as the run ends. Failures are the
// jobs' to report; nothing a job does stops the engine. At stop the schedules
// end, runs in flight are aborted and awaited up to a deadline, and every
// job flushes its unsaved state. A reload that changes some collectors swaps
// their jobs alone (swap()); every other job keeps its slot, its schedule and
// its run state.
import type { PlatformClock } from '../api/time.js';
import { settlesWithin } from '../shared/wait.js';
import type { CollectorStatus, RunReport } from './reports.js';
import { notifySafely } from './guard.js';
import { type EngineObserver, type Job, type JobKind, type JobLogger, type JobRun } from './job.js';
import { jitterOffsetMs, startTicker, type Ticker } from './schedule.js';
import { type Clock, SYSTEM_CLOCK } from '../shared/clock.js';
import type { RunError } from '../shared/errors.js';

/** How long stop() waits for runs in flight unless told otherwise. */
export const DEFAULT_STOP_TIMEOUT_MS = 10_000;

interface SchedulerOptions {
  readonly jobs: readonly Job[];
  readonly tz: PlatformClock;
  readonly observer?: EngineObserver;
  /** Defaults to Date.now. */
  readonly clock?: Clock;
  readonly logger: JobLogger;
  /** Upper bound of the per-job offset after each boundary (collectors.defaults.jitter). */
  readonly jitterMs: number;
  /** How long stop() waits for runs in flight before abandoning them (default 10s). */
  readonly stopTimeoutMs?: number;
  /** Aborting it stops the engine, as stop() does. */
  readonly signal?: AbortSignal;
}

interface Slot {
  readonly job: Job;
  readonly log: JobLogger;
  /** Aborts this job's run: at stop, or when swap() replaces the job. */
  readonly controller: AbortController;
  inFlight: Promise<JobRun> | undefined;
  ticker: Ticker | undefined;
  /** An event job's tick arrived during a run: run again when it ends. */
  pending: boolean;
  lastRunAt?: number;
  lastSuccessAt?: number;
  lastOutcome?: 'success' | 'error';
  lastError?: Pick<RunError, 'code' | 'message' | 'address' | 'hint'>;
  skippedTicks: number;
}

export class Scheduler {
  private readonly options: SchedulerOptions;
  private readonly clock: Clock;
  private slots: readonly Slot[];
  private restoring: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(options: SchedulerOptions) {
    this.options = options;
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.slots = options.jobs.map((job) => this.slotOf(job));
    if (options.signal?.aborted) void this.stop();
    else options.signal?.addEventListener('abort', () => void this.stop(), { once: true });
  }

  /**
   * Restores every job, runs each once and arms the schedules. Resolves without
   * waiting for those runs; rejects (StateError) when a state file is
   * damaged. Idempotent.
   */
  start(): Promise<void> {
    this.starting ??= this.doStart();
    return this.starting;
  }

  /** Stops the schedules, aborts and awaits runs in flight (up to stopTimeoutMs), flushes every job. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  /** Restores every job once, in order (start() does it first; the run methods restore the jobs they run). */
  restore(): Promise<void> {
    this.restoring ??= (async () => {
      for (const slot of this.slots) await slot.job.restore();
    })();
    return this.restoring;
  }

  /** Every sample job once (joining a run already in flight), for `run --once`. */
  async runSamples(): Promise<RunReport[]> {
    const samples = this.slots.filter((s) => s.job.kind === 'samples');
    // Only these: `run --once` must not, say, fix the WAF event starting point.
    for (const slot of samples) await slot.job.restore();
    const runs = await Promise.all(samples.map((s) => s.inFlight ?? this.launch(s)));
    return runs.flatMap((run) => (run.kind === 'samples' ? [run.report] : []));
  }

  /** One run of `job` (joining the one in flight), with its report; undefined when the engine does not hold it. */
  async runJob<R>(job: Job & { run(signal: AbortSignal): Promise<R> }): Promise<R | undefined> {
    const slot = this.slots.find((s) => s.job === job);
    if (!slot) return undefined;
    await job.restore();
    const run = await (slot.inFlight ?? this.launch(slot));
    // The slot's report is what this very job's run() returned.
    return run.report as R;
  }

  /**
   * Puts each of `fresh` in the place of the held job of its name (or adds
   * it) and removes the jobs named in `gone`. A replaced or removed job is
   * stopped as at stop() (its run aborted and awaited up to stopTimeoutMs,
   * then flushed) before its successor restores, so the two never share state;
   * once started, a fresh job runs at once and then on its own schedule.
   * Every other job keeps its slot untouched. Rejects (StateError) when a
   * fresh job's state file is damaged: the ones before it are in place.
   */
  async swap(fresh: readonly Job[], gone: readonly string[]): Promise<void> {
    const names = new Set([...fresh.map((j) => j.name), ...gone]);
    const leaving = this.slots.filter((s) => names.has(s.job.name));
    await this.retire(leaving);
    const started = this.starting !== undefined && this.stopping === undefined;
    // The order of the jobs in force is kept (the status page lists them so), new jobs after.
    const byName = new Map(fresh.map((job) => [job.name, job]));
    const kept = this.slots.flatMap((s) => {
      if (!names.has(s.job.name)) return [s];
      const job = byName.get(s.job.name);
      byName.delete(s.job.name);
      return job ? [this.slotOf(job)] : [];
    });
    this.slots = [...kept, ...[...byName.values()].map((job) => this.slotOf(job))];
    if (!started) return;
    await this.starting;
    for (const slot of this.slots.filter((s) => fresh.includes(s.job))) {
      await slot.job.restore();
      this.arm(slot);
    }
  }

  /** Run state of the jobs of one kind, for the landing page. */
  status(kind: JobKind = 'samples'): CollectorStatus[] {
    return this.slots.filter((s) => s.job.kind === kind).map((s) => {
      const nextRunAt = s.ticker?.nextRunAt();
      return {
        name: s.job.name,
        running: s.inFlight !== undefined,
        skippedTicks: s.skippedTicks,
        ...(s.lastRunAt === undefined ? {} : { lastRunAt: s.lastRunAt }),
        ...(s.lastSuccessAt === undefined ? {} : { lastSuccessAt: s.lastSuccessAt }),
        ...(s.lastOutcome === undefined ? {} : { lastOutcome: s.lastOutcome }),
        ...(s.lastError === undefined ? {} : { lastError: { ...s.lastError } }),
        ...(nextRunAt === undefined ? {} : { nextRunAt }),
      };
    });
  }

  private async doStart(): Promise<void> {
    await this.restore();
    if (this.stopping) return;
    for (const slot of this.slots) this.arm(slot);
    const named = (kind: JobKind): string[] => this.slots.filter((s) => s.job.kind === kind).map((s) => s.job.name);
    this.options.logger.info({ collectors: named('samples'), events: named('events') }, 'engine started');
  }

  private slotOf(job: Job): Slot {
    return { job, log: this.options.logger.child({ collector: job.name }), controller: new AbortController(), inFlight: undefined, ticker: undefined, pending: false, skippedTicks: 0 };
  }

  /** Runs the job once now and arms its schedule. */
  private arm(slot: Slot): void {
    const { job } = slot;
    void this.launch(slot);
    slot.ticker = startTicker({
      name: job.name,
      schedule: job.schedule,
      offsetMs: jitterOffsetMs(job.name, this.options.jitterMs),
      tzOffsetMinutes: this.options.tz.offsetMinutes,
      clock: this.clock,
      log: slot.log,
      onTick: () => this.tick(slot),
      onMissed: (missed) =>
        job.kind === 'samples'
          ? slot.log.warn({ missedSlots: missed }, 'schedule slots missed (process blocked?); buckets are back-filled')
          : slot.log.debug({ missedSlots: missed }, 'schedule slots missed (process blocked?); the next run catches up'),
    });
  }

  private tick(slot: Slot): void {
    if (!slot.inFlight) {
      void this.launch(slot);
      return;
    }
    if (slot.job.kind === 'events') {
      // A backlog outlasting the interval is normal for an event stream: no warning, no count.
      slot.pending = true;
      slot.log.debug({}, 'previous run still in flight; running again when it ends');
      return;
    }
    slot.skippedTicks++;
    const now = this.clock.now();
    slot.log.warn({ skippedTicks: slot.skippedTicks }, 'previous run still in flight; tick skipped');
    this.notify(() => this.options.observer?.onSkippedTick?.({ job: slot.job.name, now }));
  }

  private launch(slot: Slot): Promise<JobRun> {
    slot.pending = false;
    const run = this.execute(slot).finally(() => {
      slot.inFlight = undefined;
      if (slot.pending && slot.ticker && !this.stopping) void this.launch(slot);
    });
    slot.inFlight = run;
    return run;
  }

  private async execute(slot: Slot): Promise<JobRun> {
    const { job } = slot;
    const signal = slot.controller.signal;
    slot.lastRunAt = this.clock.now();
    const run: JobRun =
      job.kind === 'samples'
        ? { job: job.name, kind: job.kind, report: await job.run(signal) }
        : { job: job.name, kind: job.kind, report: await job.run(signal) };
    const { report } = run;
    slot.lastOutcome = report.ok ? 'success' : 'error';
    if (report.ok) {
      slot.lastSuccessAt = run.kind === 'samples' ? run.report.now : slot.lastRunAt;
      delete slot.lastError;
    } else if (report.error) {
      const { code, message, address, hint } = report.error;
      slot.lastError = { code, message, ...(address === undefined ? {} : { address }), ...(hint === undefined ? {} : { hint }) };
    }
    this.notify(() => this.options.observer?.onRun(run));
    return run;
  }

  private notify(call: () => void): void {
    notifySafely(this.options.logger, 'engine observer', call);
  }

  private async doStop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    await this.retire(this.slots);
    this.options.logger.info({}, 'engine stopped');
  }

  /** Ends the slots' schedules, aborts and awaits their runs (up to stopTimeoutMs), flushes their jobs. */
  private async retire(slots: readonly Slot[]): Promise<void> {
    for (const slot of slots) {
      slot.ticker?.stop();
      slot.ticker = undefined;
      slot.pending = false;
      slot.controller.abort();
    }
    const inFlight = slots.flatMap((s) => (s.inFlight ? [s.inFlight] : []));
    if (inFlight.length > 0 && !(await settlesWithin(Promise.allSettled(inFlight), this.options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS))) {
      const running = slots.filter((s) => s.inFlight).map((s) => s.job.name);
      this.options.logger.warn({ running }, 'runs still in flight at stop; their results are discarded');
    }
    for (const slot of slots) await slot.job.flush();
  }
}
