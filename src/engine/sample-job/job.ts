// A metric collector as an engine job: its cycle (cycle.ts) on its schedule,
// its counters restored before the first run (and published at once, so a
// restart does not blank them until the first cycle succeeds), and, at stop,
// a save of increments a failed save left in memory.
import type { PlatformClock } from '../../api/time.js';
import type { ReadClient } from '../../api/read-client.js';
import type { StateRecovery } from '../../state/recovery.js';
import { MismatchReporter } from '../../collectors/contract/reporter.js';
import { errorFields } from '../../shared/errors.js';
import { notifySafely } from '../guard.js';
import { type JobLogger, type SampleJob } from '../job.js';
import type { Schedule } from '../schedule.js';
import { anyFamilyEnabled, type FamilyFilter } from '../../collectors/filter.js';
import type { CounterLedger } from '../../counters/ledger.js';
import { ledgerFileName, type LedgerStorage } from '../../counters/ledger-file.js';
import type { TargetSource } from '../../collectors/targets/discovery.js';
import type { TargetForgetter } from '../../collectors/targets/forget.js';
import type { Collector, SampleSink } from '../../collectors/collector.js';
import type { CollectorObserver, RunReport } from '../reports.js';
import { restoreLedger, runCycle, type CycleDeps } from './cycle.js';
import { RejectLog } from './reject-log.js';
import { SYSTEM_CLOCK, type Clock } from '../../shared/clock.js';

/** A collector and when it runs. */
export interface PolledCollector {
  readonly collector: Collector;
  readonly schedule: Schedule;
}

/** What every collector's job shares. */
interface SampleJobContext {
  readonly client: ReadClient;
  readonly tz: PlatformClock;
  readonly sink: SampleSink;
  readonly ledger: CounterLedger;
  /** The state directory; needs `init` besides what the ledger uses. */
  readonly store: LedgerStorage & { init(): Promise<void> };
  readonly targets: TargetSource;
  readonly filter: FamilyFilter;
  /** Contract mismatches and audit outcomes (the self-metrics); runs are reported by the engine. */
  readonly observer?: Pick<CollectorObserver, 'onMismatch' | 'onAudit'>;
  /** Defaults to Date.now. */
  readonly clock?: Clock;
  readonly logger: JobLogger;
  /** What a damaged state file does at start-up (state_recovery); default: start-up fails. */
  readonly recovery?: StateRecovery;
  /** Targets that left the lists (targets.forget_after); none: nothing is forgotten. */
  readonly forgetter?: TargetForgetter;
}

/** The jobs of the collectors that export anything: one whose every family is denied is left out (and logged). */
export function sampleJobs(collectors: readonly PolledCollector[], context: SampleJobContext): CollectorJob[] {
  return collectors
    .filter(({ collector }) => {
      const on = anyFamilyEnabled(context.filter, collector.families);
      if (!on) context.logger.info({ collector: collector.name }, 'every metric family of the collector is denied; it will not run');
      return on;
    })
    .map((polled) => new CollectorJob(polled, context));
}

export class CollectorJob implements SampleJob {
  readonly kind = 'samples';
  readonly name: string;
  readonly schedule: Schedule;
  private readonly collector: Collector;
  private readonly context: SampleJobContext;
  private readonly log: JobLogger;
  private readonly deps: CycleDeps;
  private restoring: Promise<void> | undefined;
  private dirty = false;
  private abandoned = false;

  constructor(polled: PolledCollector, context: SampleJobContext) {
    this.collector = polled.collector;
    this.name = polled.collector.name;
    this.schedule = polled.schedule;
    this.context = context;
    this.log = context.logger.child({ collector: this.name });
    const clock = context.clock ?? SYSTEM_CLOCK;
    const notify = (call: () => void): void => notifySafely(context.logger, 'engine observer', call);
    const { client, tz, sink, ledger, store, targets, filter, observer } = context;
    this.deps = {
      client, tz, sink, ledger, store, targets, filter, clock,
      abandoned: () => this.abandoned,
      markDirty: () => {
        this.dirty = true;
      },
      markClean: () => {
        this.dirty = false;
      },
      mismatches: new MismatchReporter({
        log: context.logger, clock,
        observer: { onMismatch: (check, count) => notify(() => observer?.onMismatch?.(check, count)) },
      }),
      onAudit: (name, tally) => notify(() => observer?.onAudit?.(name, tally)),
      rejectLog: new RejectLog(),
      ...(context.forgetter ? { forgetter: context.forgetter } : {}),
    };
  }

  /** Restores the collector's counters and publishes them; a damaged file rejects unless reset (restoreLedger). */
  restore(): Promise<void> {
    this.restoring ??= (async () => {
      const { ledger, store, sink, recovery } = this.context;
      await store.init();
      await restoreLedger(ledger, store, this.name, this.log, recovery);
      const counters = ledger.saved(this.name);
      if (counters.size > 0) sink.publish(this.name, { counters, gauges: new Map() });
    })();
    return this.restoring;
  }

  run(signal: AbortSignal): Promise<RunReport> {
    return runCycle(this.deps, this.collector, this.log, signal);
  }

  /** A run still in flight is abandoned (its results discarded); increments a failed save kept are saved. */
  async flush(): Promise<void> {
    this.abandoned = true;
    if (!this.dirty) return;
    const { ledger, store, logger } = this.context;
    try {
      await ledger.save(store, this.name);
      this.dirty = false;
    } catch (err) {
      logger.error({ collector: this.name, file: store.pathOf(ledgerFileName(this.name)), ...errorFields(err) }, 'saving collector state at stop failed');
    }
  }
}
