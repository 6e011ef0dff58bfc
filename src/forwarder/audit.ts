// The delivery audit's audited buckets: every settled bucket of the upstream's logTread
// grid, the upstream's deny count for it against the deny events delivered
// with a time in it (delivered-minutes.ts), and what to do about it. Pure:
// the forwarder asks the counts (audit-check.ts), reads the buckets this says
// to recover, and tells it what they found.
//
// A bucket is checked at every audit from the time the forwarder's final pass
// has read past its end, and is either
// - `short` (counted more than delivered): recovered (read again) while it is
//   inside the look-back, but only when its count changed since it was last
//   read, so counts that never agree with the records are not read in a loop;
// - or even, or `surplus` (more delivered than counted: reported, never taken
//   back).
// It is final once it is older than the look-back and its count has held
// still for HOLD_MS: then its outcome is `match`, `recovered` (it was
// recovered and is even), `surplus`, or `unreconciled` (still different). A
// final bucket whose count moves again (records ingested later still) is
// checked again, and final again later (counted again only under another
// outcome). A bucket is let go once it is
// older than twice the look-back and a check (the horizon), final at its
// last outcome if it was not.
import { spacing } from '../collectors/contract/series-layout.js';
import { minuteOf } from './delivered-minutes.js';

export type FinalOutcome = 'match' | 'recovered' | 'surplus' | 'unreconciled';
export type AuditOutcome = FinalOutcome | 'short';
export const AUDIT_OUTCOMES: readonly AuditOutcome[] = ['match', 'recovered', 'short', 'surplus', 'unreconciled'];

/** How long a bucket's count must hold still, once it is older than the look-back, to be final. */
export const HOLD_MS = 10 * 60_000;
const MINUTE_MS = 60_000;

/** A bucket of the upstream's grid: [startMs, endMs). */
export interface AuditBucket {
  readonly startMs: number;
  readonly endMs: number;
}

interface BucketState extends AuditBucket {
  /** The upstream's count at the last check, and since when it has held it. */
  counted: number;
  countedSinceMs: number;
  /** Delivered with a time in the bucket, at the last check. */
  delivered: number;
  /** The count the last recovery read it at (a recovery is due again only once the count moves). */
  readAtCount: number | undefined;
  /** Events its recoveries delivered. */
  recovered: number;
  short: boolean;
  final: FinalOutcome | undefined;
  /** Its outcome when it was last final, if its count moved after that. */
  reopened: FinalOutcome | undefined;
}

export interface FinalBucket {
  readonly bucket: AuditBucket;
  readonly outcome: FinalOutcome;
  readonly counted: number;
  readonly delivered: number;
  readonly again: boolean;
}

export interface AuditContext {
  readonly nowMs: number;
  readonly lookbackMs: number;
  /**
   * Buckets that ended by then are out of the audit's range (twice the look-back and a check ago: a record ingested
   * twice the look-back after its bucket's end is still counted by a check).
   */
  readonly horizonMs: number;
  /** Delivered events with a time in [fromMs, toMs). */
  delivered(fromMs: number, toMs: number): number;
}

/** What one check decided. */
interface CheckResult {
  /** Short buckets inside the look-back whose count moved since they were last read: read them again. */
  readonly recover: readonly AuditBucket[];
  /** Buckets found short at this check that were not at the last one. */
  readonly foundShort: number;
  /**
   * Buckets that became final, with their numbers (an unreconciled one is reported here, once; again only if its
   * count moves after that). `again`: it was final before with this outcome (not to be counted twice).
   */
  readonly finals: readonly FinalBucket[];
}

type Point = readonly [number, number | null];

/** The buckets a logTread answer lists that the audit compares: whole ones, inside [fromMs, settledMs), with a count. */
export function settledBuckets(points: readonly Point[], fromMs: number, settledMs: number): Array<AuditBucket & { counted: number }> {
  const width = gridWidth(points);
  if (width === undefined) return [];
  return points.flatMap(([start, counted]) =>
    counted === null || start < fromMs || start + width > settledMs ? [] : [{ startMs: start, endMs: start + width, counted }]);
}

/**
 * The width of the answer's buckets: the greatest common divisor of the
 * spacings between its points, so a listing that leaves out empty buckets
 * still shows the grid; undefined with fewer than two points or a grid not in
 * whole minutes (delivered events are kept per minute).
 */
export function gridWidth(points: readonly Point[]): number | undefined {
  const starts = points.map(([s]) => s).sort((a, b) => a - b);
  const width = spacing(starts) ?? 0;
  return width > 0 && width % MINUTE_MS === 0 && starts.every((s) => s === minuteOf(s)) ? width : undefined;
}

export class AuditedBuckets {
  private readonly buckets = new Map<number, BucketState>();

  /** Compares this check's buckets; buckets not listed keep their state (an answer may leave some out). */
  check(listed: ReadonlyArray<AuditBucket & { counted: number }>, ctx: AuditContext): CheckResult {
    const recover: AuditBucket[] = [];
    const finals: FinalBucket[] = [];
    let foundShort = 0;
    for (const b of listed) {
      // Past the horizon: it was let go (a range begun a coarse bucket early lists it again), and stays out.
      if (b.endMs <= ctx.horizonMs) continue;
      let state = this.buckets.get(b.startMs);
      if (state === undefined || state.endMs !== b.endMs) {
        state = { startMs: b.startMs, endMs: b.endMs, counted: b.counted, countedSinceMs: ctx.nowMs, delivered: 0, readAtCount: undefined, recovered: 0, short: false, final: undefined, reopened: undefined };
        this.buckets.set(b.startMs, state);
      }
      if (state.counted !== b.counted) {
        state.counted = b.counted;
        state.countedSinceMs = ctx.nowMs;
        // Moved after it was final: records are still being ingested for it; checked again, and final again later.
        if (state.final !== undefined) state.reopened = state.final;
        state.final = undefined;
      }
      state.delivered = ctx.delivered(state.startMs, state.endMs);
      const short = state.counted > state.delivered;
      if (short && !state.short) foundShort++;
      state.short = short;
      if (state.final !== undefined) continue;
      const inLookback = state.endMs > ctx.nowMs - ctx.lookbackMs;
      if (short && inLookback && state.readAtCount !== state.counted) recover.push({ startMs: state.startMs, endMs: state.endMs });
      else if (!inLookback && ctx.nowMs - state.countedSinceMs >= HOLD_MS) finals.push(this.finish(state));
    }
    // Past the horizon: out of the audit's range, final at its last outcome.
    for (const [start, state] of this.buckets) {
      if (state.endMs > ctx.horizonMs) continue;
      if (state.final === undefined) finals.push(this.finish(state));
      this.buckets.delete(start);
    }
    return { recover, foundShort, finals };
  }

  /** A recovery read the bucket at its current count and delivered `events` of it. */
  recovered(bucket: AuditBucket, events: number, ctx: AuditContext): void {
    const state = this.buckets.get(bucket.startMs);
    if (state === undefined) return;
    state.readAtCount = state.counted;
    state.recovered += events;
    state.delivered = ctx.delivered(state.startMs, state.endMs);
    state.short = state.counted > state.delivered;
  }

  /** Counted upstream minus delivered, over the buckets not final. */
  missing(): number {
    let n = 0;
    for (const s of this.buckets.values()) if (s.final === undefined) n += Math.max(0, s.counted - s.delivered);
    return n;
  }

  /** Buckets short now (not final). */
  shortNow(): number {
    let n = 0;
    for (const s of this.buckets.values()) if (s.final === undefined && s.short) n++;
    return n;
  }

  private finish(state: BucketState): FinalBucket {
    const outcome: FinalOutcome = state.counted > state.delivered ? 'unreconciled'
      : state.counted < state.delivered ? 'surplus'
      : state.recovered > 0 ? 'recovered' : 'match';
    state.final = outcome;
    const again = state.reopened === outcome;
    state.reopened = undefined;
    return { bucket: { startMs: state.startMs, endMs: state.endMs }, outcome, counted: state.counted, delivered: state.delivered, again };
  }
}

/** What the status page shows of the audit. */
export interface AuditStats {
  /** When the last check was made (epoch ms), or undefined before the first. */
  readonly checkedMs: number | undefined;
  readonly bucketsShort: number;
  readonly missing: number;
  readonly recoveredEvents: number;
  readonly unreconciledBuckets: number;
  /** Delivered ids kept as hashes to tell them from missing ones (waf_events.audit.max_kept_ids bounds them). */
  readonly idsKept: number;
}
