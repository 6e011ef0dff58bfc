// The overlap the delivery audit's recoveries call for, and `overlap: auto`.
// A record the audit recovered was ingested too late for the final pass,
// which reads a range `delay + overlap` after its end: found L after its
// time, it would have been read by a final pass with an overlap of L − delay.
// The suggestion is the longest such overlap over the last day, in whole
// minutes (kept as the longest per hour, as the delay suggestion is:
// series/suggest-delay.ts); under `auto` it is put in force within its
// bounds (config: the default overlap to the audit's look-back), so a steady
// account needs few recoveries. Like `delay: auto` it is kept in memory only:
// a restart starts again at the floor.
import { shouldLogSuggestion, suggestDelay, withRevision, type RevisionAges, type SuggestionLogged } from '../collectors/series/suggest-delay.js';

const MINUTE_MS = 60_000;

/** `overlap: auto`'s bounds, ms. */
export interface AutoOverlap {
  readonly floorMs: number;
  readonly ceilingMs: number;
}

interface OverlapChange {
  /** The overlap the last day's recoveries call for (ms); the one in force when there were none. */
  readonly suggestedMs: number;
  /** Under auto, the overlap put in force by this check when it moved; else undefined. */
  readonly putInForceMs: number | undefined;
  /** A fixed overlap the suggestion differs from: log it (once a day, or when it moved by more than a minute). */
  readonly logSuggestion: boolean;
}

export class OverlapTuner {
  private ages: RevisionAges = new Map();
  private inForceMs: number;
  private logged: SuggestionLogged | undefined;

  /** `auto`: the bounds the suggestion is put in force within (undefined: a fixed overlap). */
  constructor(overlapMs: number, private readonly delayMs: number, private readonly auto: AutoOverlap | undefined) {
    this.inForceMs = overlapMs;
  }

  get overlapMs(): number {
    return this.inForceMs;
  }

  /** A recovery at `atMs` found records this late (ms from their time to the read). */
  recovered(atMs: number, latenessMs: readonly number[]): void {
    if (latenessMs.length === 0) return;
    this.ages = withRevision(this.ages, atMs, Math.max(0, Math.max(...latenessMs) - this.delayMs));
  }

  /** After a check: the suggestion, put in force under auto. */
  afterCheck(nowMs: number): OverlapChange {
    const suggestedMs = suggestDelay(this.ages, nowMs, this.inForceMs);
    if (this.auto === undefined) {
      const logSuggestion = shouldLogSuggestion(this.logged, suggestedMs, this.inForceMs, nowMs, MINUTE_MS);
      if (logSuggestion) this.logged = { at: nowMs, suggestedMs };
      return { suggestedMs, putInForceMs: undefined, logSuggestion };
    }
    const next = Math.min(this.auto.ceilingMs, Math.max(this.auto.floorMs, suggestedMs));
    if (next === this.inForceMs) return { suggestedMs, putInForceMs: undefined, logSuggestion: false };
    this.inForceMs = next;
    return { suggestedMs, putInForceMs: next, logSuggestion: false };
  }
}
