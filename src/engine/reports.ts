// What the engine reports, for the exporters (self-metrics) and the server
// (landing page). Plain data: no upstream error classes cross this line.
import type { AuditTally } from '../collectors/collector.js';
import type { ContractCheck } from '../collectors/contract/checks.js';
import type { RejectTally } from '../collectors/rejects.js';
import type { RunError } from '../shared/errors.js';

/**
 * One collector run. `ok` (the `up` self-metric) is true when the cycle
 * produced output and it was persisted and published, even if some requests
 * failed (`partialErrors` > 0, logged); a cycle with no failed request and
 * nothing new is ok too. It is false when collect threw, when requests
 * failed and the cycle produced nothing, or when state could not be saved
 * (nothing is published then).
 */
export interface RunReport {
  readonly collector: string;
  readonly ok: boolean;
  /** Cycle start, epoch ms, from the engine's clock. */
  readonly now: number;
  readonly durationMs: number;
  readonly error?: RunError;
  /** Requests that failed inside a cycle that still counted as ok. */
  readonly partialErrors: number;
  /** From CollectOutput, for the data-lag self-metric; absent when the run failed or saw no bucket. */
  readonly newestBucketEndMs?: number;
  /** From CollectOutput, per target, for the freshness self-metric; absent when the run failed or the collector is account-wide. */
  readonly targetNewestBucketEndMs?: ReadonlyMap<string, number>;
  /** Targets this run forgot (targets.forget_after): their per-target self-metric series go too. Absent when none. */
  readonly forgottenTargets?: readonly string[];
  /** Points the cycle's conversion refused, by reason (edge_exporter_points_rejected_total); absent when none. */
  readonly rejected?: Readonly<RejectTally>;
}

/** Implemented by the exporter (self-metrics: up, last success, duration, data lag). */
export interface CollectorObserver {
  onRun(report: RunReport): void;
  /** Answers that contradicted an assumption, by check (edge_exporter_contract_mismatches_total). */
  onMismatch?(check: ContractCheck, count: number): void;
  /** Buckets a collector's audit re-read, by outcome (edge_exporter_audit_buckets_total). */
  onAudit?(collector: string, tally: AuditTally): void;
}

/** Run state of one collector for the landing page. */
export interface CollectorStatus {
  readonly name: string;
  readonly running: boolean;
  readonly lastRunAt?: number;
  readonly lastSuccessAt?: number;
  readonly lastOutcome?: 'success' | 'error';
  readonly lastError?: Pick<RunError, 'code' | 'message' | 'address' | 'hint'>;
  /** Ticks skipped because a run was still in flight, since start. */
  readonly skippedTicks: number;
  /** When the schedule fires next, epoch ms (absent while stopped). */
  readonly nextRunAt?: number;
}
