// What the exporter assumes about the upstream where the vendor document is
// silent, as named checks. Every answer is held against them at no extra
// request; a contradiction is a Mismatch: evidence for the operator (counted
// in edge_exporter_contract_mismatches_total, logged with the config key that
// changes the assumption), never a failed cycle. Where the data itself decides
// (bucket width, points outside the range, a time with no zone) the collectors
// adapt; where it cannot (units) config does, and the mismatch names the key.
import { DAY_MS, HOUR_MS, MINUTE_MS, type OperationName } from '../../api/index.js';

export const CONTRACT_CHECKS = [
  /** Points spaced differently from the interval asked for. */
  'bucket_width',
  /** Record times with no zone offset (read in upstream.timezone). */
  'timestamp_offset',
  /** Bandwidth x bucket seconds off the same bucket's traffic by another unit's factor. */
  'bandwidth_unit',
  /** A total or summary field (totalMap, count) that is not the sum of its points. */
  'totals',
  /** Points or records outside the range asked for, or a range answered with no point inside it. */
  'out_of_range',
  /** A bucket that changed after it was counted (found by the audit). */
  'late_revision',
  /** Buckets left out between the points of a series (zero buckets not listed). */
  'missing_buckets',
  /** The newest point of an answer ending now more than a bucket behind our current bucket (contract/clock.ts). */
  'clock_offset',
] as const;
export type ContractCheck = (typeof CONTRACT_CHECKS)[number];

/** One answer that contradicts one assumption. */
export interface Mismatch {
  readonly check: ContractCheck;
  /** Set by the collector (or the engine, from the collector's operation) when the finding does not know it. */
  readonly operation?: OperationName;
  /** Upstream field or metricName the evidence is in. */
  readonly field: string;
  readonly assumed: string;
  readonly seen: string;
  /** The config key that changes the assumption, and the value to try. */
  readonly configKey?: string;
  readonly suggest?: string;
}

/** Keeps the first finding of each check: a mismatch counts answers, not points. */
export function firstPerCheck(findings: Iterable<Mismatch>): Mismatch[] {
  const seen = new Map<ContractCheck, Mismatch>();
  for (const f of findings) if (!seen.has(f.check)) seen.set(f.check, f);
  return [...seen.values()];
}

/** A duration as config writes it: `1d`, `5m`, `90s`. */
export function seconds(ms: number): string {
  if (ms % DAY_MS === 0) return `${ms / DAY_MS}d`;
  if (ms % HOUR_MS === 0) return `${ms / HOUR_MS}h`;
  if (ms % MINUTE_MS === 0) return `${ms / MINUTE_MS}m`;
  return `${ms / 1000}s`;
}
