// What the client does when the upstream throttles it: additive increase,
// multiplicative decrease (AIMD), the rule TCP uses to share a link. A 429
// halves the rate in force; answers that succeed raise it again by a small
// step until it is back where it was allowed to be. An account whose real
// limit is below the configured budget settles into a slow sawtooth: one 429
// about every RECOVERY_SECONDS, not a storm.
//
// "Throttled" starts with the first 429 (or 503 with Retry-After) and ends at
// the first success once the rate is back at its target: the configured
// upstream.rate_limit, or, with none configured, the rate the daemon was
// sending at when the first 429 came, at which point the limit is lifted.
import type { RateGate } from './rate-gate.js';

/** The lowest rate a 429 can push the daemon to: one request every 10 s. */
export const MIN_RATE = 0.1;
/** Seconds of successful answers, at full demand, that take the rate from half back to where the 429 hit. */
export const RECOVERY_SECONDS = 60;

/** The rate after a 429: half of what was in force (or of what was being sent, with no rate in force). */
export function lowered(rate: number, sentLastSecond: number): number {
  const base = Number.isFinite(rate) ? rate : Math.max(1, sentLastSecond);
  return Math.max(MIN_RATE, base / 2);
}

/** The rate after one successful answer: `level / RECOVERY_SECONDS` per second's worth of answers, at most `target`. */
export function raised(rate: number, level: number, target: number): number {
  const step = Math.max(MIN_RATE, level / RECOVERY_SECONDS) / rate;
  return Math.min(target, rate + step);
}

type ThrottleChange = 'start' | 'end' | undefined;

export class Throttle {
  private throttled = false;
  /** The rate the last decrease started from: recovery steps are a fraction of it. */
  private level = 0;
  /** Where recovery stops: the configured rate, or the level with none. */
  private target: number;
  /** When the rate was last lowered; a 429 to a request sent before then was answered to the old rate. */
  private loweredAt = Number.NEGATIVE_INFINITY;

  /** `configured`: upstream.rate_limit per second, Infinity for none. */
  constructor(private readonly gate: RateGate, private readonly configured: number) {
    this.target = configured;
  }

  get active(): boolean {
    return this.throttled;
  }

  /** A 429 (lower: true) or a 503 with Retry-After (lower: false) to a request admitted at `sentAt`. */
  onThrottled(sentAt: number, lower: boolean): ThrottleChange {
    const started = !this.throttled;
    this.throttled = true;
    if (lower && sentAt > this.loweredAt) {
      const before = this.gate.ratePerSecond;
      const sending = this.gate.recentlySent();
      this.level = Number.isFinite(before) ? before : Math.max(1, sending);
      if (!Number.isFinite(this.configured)) this.target = this.level;
      this.gate.setRate(lowered(before, sending));
      this.loweredAt = this.gate.clock();
    }
    return started ? 'start' : undefined;
  }

  /** A request that succeeded: one step of recovery, and the end of throttling once the target is reached. */
  onSuccess(): ThrottleChange {
    if (!this.throttled) return undefined;
    const rate = this.gate.ratePerSecond;
    if (rate < this.target) {
      this.gate.setRate(raised(rate, this.level, this.target));
      return undefined;
    }
    this.throttled = false;
    if (!Number.isFinite(this.configured)) this.gate.setRate(Number.POSITIVE_INFINITY);
    this.target = this.configured;
    return 'end';
  }
}
