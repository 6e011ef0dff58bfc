// The one poller every collector runs under. At start it loads each
// collector's persisted counters (refusing to start on a damaged state file
// rather than silently resetting counters, unless state_recovery: reset),
// publishes them, runs every collector once and then on its schedule
// (poller-schedule.ts). The same collector never runs twice at once: a tick
// that arrives while a run is in flight is skipped, counted and logged.
// Failures are logged and retried on the next tick; nothing the upstream does
// stops the daemon. A cycle is in poller-run.ts.
import type { PlatformClock } from '../api/time.js';
import { MismatchReporter } from './contract/reporter.js';
import { anyFamilyEnabled } from './filter.js';
import type { FamilyFilter } from './filter.js';
import type { CounterLedger, LedgerStorage } from './ledger.js';
import { ledgerFileName } from './ledger.js';
import { errorFields } from './poller-errors.js';
import { restoreLedger, runCycle, settlesWithin } from './poller-run.js';
import type { CycleDeps, PollerLogger } from './poller-run.js';
import { jitterOffsetMs, startTicker } from './poller-schedule.js';
import type { Schedule, Ticker } from './poller-schedule.js';
import type { TargetSource } from './targets.js';
import type { StateRecovery } from '../state/recovery.js';
import type { Clock, Collector, CollectorStatus, PollerObserver, RunReport, SampleSink, UpstreamClient } from './types.js';

export type { PollerLogger } from './poller-run.js';

/** A collector and when it runs. */
export interface PolledCollector {
  readonly collector: Collector;
  readonly schedule: Schedule;
}

export interface PollerOptions {
  readonly collectors: readonly PolledCollector[];
  readonly client: UpstreamClient;
  readonly tz: PlatformClock;
  readonly sink: SampleSink;
  readonly ledger: CounterLedger;
  /** The state directory; needs `init` besides what the ledger uses. */
  readonly store: LedgerStorage & { init(): Promise<void> };
  readonly targets: TargetSource;
  readonly filter: FamilyFilter;
  readonly observer?: PollerObserver;
  /** Defaults to Date.now. */
  readonly clock?: Clock;
  readonly logger: PollerLogger;
  /** Upper bound of the per-collector offset after each boundary (collectors.defaults.jitter). */
  readonly jitterMs: number;
  /** How long stop() waits for runs in flight before abandoning them (default 10s). */
  readonly stopTimeoutMs?: number;
  /** What a damaged state file does at start-up (state_recovery); default: start-up fails. */
  readonly recovery?: StateRecovery;
}

interface Slot {
  readonly polled: PolledCollector;
  readonly log: PollerLogger;
  inFlight: Promise<RunReport> | undefined;
  ticker: Ticker | undefined;
  lastRunAt?: number;
  lastSuccessAt?: number;
  lastOutcome?: 'success' | 'error';
  lastError?: { code: string; message: string };
  skippedTicks: number;
}

const SYSTEM_CLOCK: Clock = Object.freeze({ now: () => Date.now() });

export class Poller {
  private readonly opts: PollerOptions;
  private readonly clock: Clock;
  private readonly slots: readonly Slot[];
  private readonly dirty = new Set<string>();
  private readonly controller = new AbortController();
  private readonly mismatches: MismatchReporter;
  private loading: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private abandoned = false;

  constructor(options: PollerOptions) {
    this.opts = options;
    this.clock = options.clock ?? SYSTEM_CLOCK;
    const observer = options.observer;
    this.mismatches = new MismatchReporter({
      log: options.logger, clock: this.clock,
      observer: { onMismatch: (check, count) => this.notify(() => observer?.onMismatch?.(check, count)) },
    });
    const active = options.collectors.filter(({ collector }) => {
      const on = anyFamilyEnabled(options.filter, collector.families);
      if (!on) options.logger.info({ collector: collector.name }, 'every metric family of the collector is denied; it will not run');
      return on;
    });
    this.slots = active.map((polled) => ({
      polled,
      log: options.logger.child({ collector: polled.collector.name }),
      inFlight: undefined,
      ticker: undefined,
      skippedTicks: 0,
    }));
  }

  /**
   * Loads state, publishes the restored counters, runs every collector once
   * and arms the schedules. Resolves without waiting for those runs; rejects
   * (StateError) when a state file is damaged. Idempotent.
   */
  start(): Promise<void> {
    this.starting ??= this.doStart();
    return this.starting;
  }

  /** Stops the schedules, aborts and awaits runs in flight (up to stopTimeoutMs), saves unsaved state. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  /** Every active collector once (joining a run already in flight), for `run --once`. */
  async runOnce(): Promise<RunReport[]> {
    await this.load();
    return Promise.all(this.slots.map((slot) => slot.inFlight ?? this.launch(slot)));
  }

  status(): CollectorStatus[] {
    return this.slots.map((s) => {
      const nextRunAt = s.ticker?.nextRunAt();
      return {
        name: s.polled.collector.name,
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
    await this.load();
    if (this.stopping) return;
    for (const slot of this.slots) {
      const { collector, schedule } = slot.polled;
      const counters = this.opts.ledger.view(collector.name);
      if (counters.size > 0) this.opts.sink.publish(collector.name, { counters, gauges: new Map() });
      void this.launch(slot);
      slot.ticker = startTicker({
        name: collector.name,
        schedule,
        offsetMs: jitterOffsetMs(collector.name, this.opts.jitterMs),
        tzOffsetMinutes: this.opts.tz.offsetMinutes,
        clock: this.clock,
        log: slot.log,
        onTick: () => this.tick(slot),
        onMissed: (missed) => slot.log.warn({ missedSlots: missed }, 'schedule slots missed (process blocked?); buckets are back-filled'),
      });
    }
    this.opts.logger.info({ collectors: this.slots.map((s) => s.polled.collector.name) }, 'poller started');
  }

  /**
   * Reads every active collector's state once (start() and runOnce() do it
   * first); a damaged file fails start-up unless reset (see restoreLedger).
   */
  load(): Promise<void> {
    this.loading ??= (async () => {
      await this.opts.store.init();
      for (const slot of this.slots) {
        await restoreLedger(this.opts.ledger, this.opts.store, slot.polled.collector.name, slot.log, this.opts.recovery);
      }
    })();
    return this.loading;
  }

  private tick(slot: Slot): void {
    if (slot.inFlight) {
      slot.skippedTicks++;
      const now = this.clock.now();
      slot.log.warn({ skippedTicks: slot.skippedTicks }, 'previous run still in flight; tick skipped');
      this.notify(() => this.opts.observer?.onSkippedTick?.({ collector: slot.polled.collector.name, now }));
      return;
    }
    void this.launch(slot);
  }

  private launch(slot: Slot): Promise<RunReport> {
    const run = this.execute(slot).finally(() => {
      slot.inFlight = undefined;
    });
    slot.inFlight = run;
    return run;
  }

  private async execute(slot: Slot): Promise<RunReport> {
    slot.lastRunAt = this.clock.now();
    const report = await runCycle(this.deps(), slot.polled.collector, slot.log, this.controller.signal);
    slot.lastOutcome = report.ok ? 'success' : 'error';
    if (report.ok) {
      slot.lastSuccessAt = report.now;
      delete slot.lastError;
    } else if (report.error) {
      slot.lastError = { code: report.error.code, message: report.error.message };
    }
    this.notify(() => this.opts.observer?.onRun(report));
    return report;
  }

  private deps(): CycleDeps {
    const { client, tz, sink, ledger, store, targets, filter } = this.opts;
    return {
      client, tz, sink, ledger, store, targets, filter,
      clock: this.clock,
      abandoned: () => this.abandoned,
      markDirty: (name) => this.dirty.add(name),
      markClean: (name) => this.dirty.delete(name),
      mismatches: this.mismatches,
      onAudit: (name, tally) => this.notify(() => this.opts.observer?.onAudit?.(name, tally)),
    };
  }

  /** An observer's bug must not take the poller down. */
  private notify(call: () => void): void {
    try {
      call();
    } catch (err) {
      this.opts.logger.error(errorFields(err), 'poller observer failed');
    }
  }

  private async doStop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    for (const slot of this.slots) {
      slot.ticker?.stop();
      slot.ticker = undefined;
    }
    this.controller.abort();
    const inFlight = this.slots.flatMap((s) => (s.inFlight ? [s.inFlight] : []));
    if (inFlight.length > 0 && !(await settlesWithin(Promise.allSettled(inFlight), this.opts.stopTimeoutMs ?? 10_000))) {
      const running = this.slots.filter((s) => s.inFlight).map((s) => s.polled.collector.name);
      this.opts.logger.warn({ running }, 'runs still in flight at stop; their results are discarded');
    }
    this.abandoned = true;
    for (const name of [...this.dirty]) {
      try {
        await this.opts.ledger.save(this.opts.store, name);
        this.dirty.delete(name);
      } catch (err) {
        const file = this.opts.store.pathOf(ledgerFileName(name));
        this.opts.logger.error({ collector: name, file, ...errorFields(err) }, 'saving collector state at stop failed');
      }
    }
    this.opts.logger.info({}, 'poller stopped');
  }
}
