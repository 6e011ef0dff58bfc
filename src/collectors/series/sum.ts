// A cycle's output, added up one target at a time, and the rules every
// series collector shares for a partial failure: a gauge family is replaced
// by whatever the successful requests produced (a target whose request failed
// has no gauge this cycle rather than a stale one), counters of a failed
// target simply do not advance, and a cycle in which every request failed
// throws, so the engine records the failure and reports it. So does a cycle
// in which nothing advanced because every answer that came back said nothing
// (`data: null`, no item for the series): those buckets are asked again next
// cycle (count.ts), but a collector up and lagging silently behind an
// upstream that returns no data would hide the outage.
import { firstPerCheck, type Mismatch } from '../contract/checks.js';
import type { RejectedPoints } from '../rejects.js';
import type { CollectOutput, Sample } from '../collector.js';
import type { TargetResult } from './count.js';
import type { Tally } from './fetch.js';
import { EdgeError } from '../../shared/errors.js';

interface CycleInput {
  readonly collector: string;
  /** Watermarks persisted so far; series not touched this cycle keep theirs. */
  readonly previous: Readonly<Record<string, number>>;
  readonly results: readonly TargetResult[];
  readonly tallies: readonly Tally[];
  /** Enabled gauge families this cycle produced (each replaces its previous series, even when empty). */
  readonly gaugeFamilies: readonly string[];
}

/** Every answer of a cycle covered nothing it was asked for. */
export class NoDataError extends EdgeError {
  readonly code = 'EDGE_NO_DATA';
}

/** A cycle's output from results and tallies at hand (topn: a family whose request failed has no result and keeps its last values). */
export function assemble(input: CycleInput): CollectOutput {
  const sum = new CycleSum(input);
  input.results.forEach((r, i) => sum.add(r, input.tallies[i]));
  for (const tally of input.tallies.slice(input.results.length)) sum.add(undefined, tally);
  return sum.output();
}

/** A cycle's output, added up one target at a time: its result, its requests, or both. */
export class CycleSum {
  private readonly gauges: Map<string, Sample[]>;
  private readonly increments: Sample[] = [];
  private readonly watermarks: Record<string, number>;
  private readonly errors: Error[] = [];
  private readonly mismatches: Mismatch[] = [];
  private readonly rejected: RejectedPoints[] = [];
  private requests = 0;
  private newest: number | undefined;
  /** Per target: one entry per domain or package, not per series. */
  private readonly targetNewest = new Map<string, number>();
  private anyUncovered = false;
  private anyMoved = false;

  constructor(private readonly input: Omit<CycleInput, 'results' | 'tallies'>) {
    this.gauges = new Map(input.gaugeFamilies.map((f) => [f, []]));
    this.watermarks = { ...input.previous };
  }

  add(r: TargetResult | undefined, tally: Tally | undefined, target?: string): void {
    if (tally !== undefined) {
      this.errors.push(...tally.errors);
      this.requests += tally.requests;
    }
    if (r === undefined) return;
    if ((r.uncovered?.length ?? 0) > 0) this.anyUncovered = true;
    if (Object.keys(r.watermarks).length > 0 || r.gauges.length > 0) this.anyMoved = true;
    this.rejected.push(...(r.rejected ?? []));
    this.mismatches.push(...firstPerCheck(r.mismatches ?? []));
    this.increments.push(...r.increments);
    Object.assign(this.watermarks, r.watermarks);
    for (const g of r.gauges) this.gauges.get(g.name)?.push(g);
    if (r.newestBucketEndMs === undefined) return;
    this.newest = Math.max(this.newest ?? r.newestBucketEndMs, r.newestBucketEndMs);
    if (target !== undefined) this.targetNewest.set(target, Math.max(this.targetNewest.get(target) ?? r.newestBucketEndMs, r.newestBucketEndMs));
  }

  output(): CollectOutput {
    const { errors, requests } = this;
    if (requests > 0 && errors.length === requests) {
      throw errors.length === 1 && errors[0] ? errors[0] : new AggregateError(errors, `${this.input.collector}: every request failed`);
    }
    if (this.anyUncovered && !this.anyMoved) {
      throw errors[0] ?? new NoDataError(`${this.input.collector}: no answer carried data for the buckets to count (data: null or missing items); asked again next cycle`);
    }
    return {
      gauges: this.gauges, increments: this.increments, watermarks: this.watermarks, errors, mismatches: this.mismatches,
      ...(this.rejected.length > 0 ? { rejected: this.rejected } : {}),
      ...(this.newest === undefined ? {} : { newestBucketEndMs: this.newest }),
      ...(this.targetNewest.size === 0 ? {} : { targetNewestBucketEndMs: this.targetNewest }),
    };
  }
}
