// What the engine runs: jobs of two kinds on one lifecycle. A sample job is a
// metric collector's cycle (its runs are what edge_exporter_collector_* are
// about); an event-stream job forwards records (WAF deny events) and keeps
// metrics of its own. The engine restores every job's saved state before the
// first run, never runs a job twice at once, and flushes every job at stop.
// Restoring is no lifecycle step of its own: it reads what an earlier process
// saved, so the engine's start() and every run do it first, once.
import type { CollectorLogger } from '../collectors/collector.js';
import type { RunReport } from './reports.js';
import type { Schedule } from './schedule.js';
import type { RunError } from '../shared/errors.js';

/** The engine's logger: a collector's one plus `error`, for failures that need an operator. */
export interface JobLogger extends CollectorLogger {
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): JobLogger;
}

export type JobKind = 'samples' | 'events';

/** The least an event-stream job reports of a run. */
export interface EventReport {
  readonly ok: boolean;
  readonly error?: RunError;
}

interface JobBase {
  readonly name: string;
  readonly schedule: Schedule;
  /** Restores saved state (idempotent); rejects (StateError) on a damaged file, which fails start-up. */
  restore(): Promise<void>;
  /** Saves what a run could not (called at stop, after runs settled or the deadline passed); never throws. */
  flush(): Promise<void>;
}

export interface SampleJob extends JobBase {
  readonly kind: 'samples';
  /** One cycle; never throws. `signal` aborts at stop. */
  run(signal: AbortSignal): Promise<RunReport>;
}

export interface EventJob extends JobBase {
  readonly kind: 'events';
  /** One poll (until caught up or failed); never throws. `signal` aborts at stop. */
  run(signal: AbortSignal): Promise<EventReport>;
}

export type Job = SampleJob | EventJob;

/** One finished run, by kind: the daemon feeds only sample runs to the collector self-metrics. */
export type JobRun =
  | { readonly job: string; readonly kind: 'samples'; readonly report: RunReport }
  | { readonly job: string; readonly kind: 'events'; readonly report: EventReport };

export interface EngineObserver {
  onRun(run: JobRun): void;
  /** A sample job's tick arrived while its previous run was still in flight, and was skipped. */
  onSkippedTick?(event: { readonly job: string; readonly now: number }): void;
}
