// Assembling a cycle's CollectOutput from per-target results, shared by the
// time-series collectors so they agree on what a partial failure means:
// a gauge family is replaced by whatever the successful requests produced (a
// target whose request failed has no gauge this cycle rather than a stale
// one), counters of a failed target simply do not advance, and a cycle in
// which every request failed throws so the poller backs off and reports it.
// So does a cycle in which nothing advanced because every answer that came
// back said nothing (`data: null`, no item for the series): those buckets are
// asked again next cycle (count.ts), but a collector up and lagging silently
// behind an upstream that returns no data would hide the outage.
import { firstPerCheck, type Mismatch } from '../contract/checks.js';
import type { CollectOutput, CollectorLogger, Sample } from '../types.js';
import type { Labels } from './keys.js';
import type { CountedRange } from './read-buckets.js';

export interface TargetResult {
  readonly increments: readonly Sample[];
  readonly watermarks: Readonly<Record<string, number>>;
  readonly gauges: readonly Sample[];
  readonly newestBucketEndMs: number | undefined;
  /** Counter series with buckets to count that no response covered (they did not advance). */
  readonly uncovered?: readonly string[];
  /** Answers that contradicted an assumption (findings of every series; assemble keeps one per check and target). */
  readonly mismatches?: readonly Mismatch[];
  /** Series key -> the buckets counted this cycle (the audit's record). */
  readonly counted?: ReadonlyMap<string, CountedRange>;
}

/** Requests a target made and the errors of those that failed. */
export interface Tally {
  readonly requests: number;
  readonly errors: readonly Error[];
}

export interface CycleInput {
  readonly collector: string;
  /** Watermarks persisted so far; series not touched this cycle keep theirs. */
  readonly previous: Readonly<Record<string, number>>;
  readonly results: readonly TargetResult[];
  readonly tallies: readonly Tally[];
  /** Enabled gauge families this cycle produced (each replaces its previous series, even when empty). */
  readonly gaugeFamilies: readonly string[];
}

/** Every answer of a cycle covered nothing it was asked for. */
export class NoDataError extends Error {
  readonly code = 'EDGE_NO_DATA';
}

export function assemble(input: CycleInput): CollectOutput {
  const errors = input.tallies.flatMap((t) => t.errors);
  const requests = input.tallies.reduce((n, t) => n + t.requests, 0);
  if (requests > 0 && errors.length === requests) {
    throw errors.length === 1 && errors[0] ? errors[0] : new AggregateError(errors, `${input.collector}: every request failed`);
  }
  const stalled = input.results.some((r) => (r.uncovered?.length ?? 0) > 0)
    && input.results.every((r) => Object.keys(r.watermarks).length === 0 && r.gauges.length === 0);
  if (stalled) {
    throw errors[0] ?? new NoDataError(`${input.collector}: no answer carried data for the buckets to count (data: null or missing items); asked again next cycle`);
  }
  const gauges = new Map<string, Sample[]>(input.gaugeFamilies.map((f) => [f, []]));
  const increments: Sample[] = [];
  const watermarks: Record<string, number> = { ...input.previous };
  let newest: number | undefined;
  const mismatches: Mismatch[] = [];
  for (const r of input.results) {
    mismatches.push(...firstPerCheck(r.mismatches ?? []));
    increments.push(...r.increments);
    Object.assign(watermarks, r.watermarks);
    for (const g of r.gauges) gauges.get(g.name)?.push(g);
    if (r.newestBucketEndMs !== undefined) newest = Math.max(newest ?? r.newestBucketEndMs, r.newestBucketEndMs);
  }
  return { gauges, increments, watermarks, errors, mismatches, ...(newest === undefined ? {} : { newestBucketEndMs: newest }) };
}

/** A gauge sample, with the bucket time only when the collector is configured with `timestamps`. */
export function gaugeSample(name: string, labels: Labels, value: number, bucketStart: number | undefined, timestamps: boolean): Sample {
  return timestamps && bucketStart !== undefined ? { name, labels, value, timestampMs: bucketStart } : { name, labels, value };
}

export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Series that had buckets to count but no covering answer (a failed request,
 * or `data: null` / a missing item): they keep their watermark and are asked
 * again next cycle. Debug only: the data-lag self-metric makes a lasting gap visible.
 */
export function logUncovered(log: CollectorLogger, result: TargetResult): void {
  if (result.uncovered && result.uncovered.length > 0) log.debug({ series: result.uncovered }, 'no answer covered these series; they wait for the next cycle');
}
