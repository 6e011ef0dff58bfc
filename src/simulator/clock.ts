// The simulator's notion of "now". Everything time-dependent in the simulated
// upstream (late-arriving buckets, WAF ingest lag, certificate expiry, the rate
// limit window) reads this clock, so tests can pin it and soak runs can speed
// it up without touching the exporter's own timers.
//
// One formula covers every mode: now = anchorSim + (wall() - anchorWall) * speed.
// `fixed` is speed 0 (moves only by set/advance), `real` is speed 1, and any
// other speed runs simulated time N times faster from the latest anchor.
import { ArgumentError } from '../shared/errors.js';

export type ClockMode = 'real' | 'fixed';

interface SimClockOptions {
  /** `fixed` (default for tests) freezes time; `real` follows the wall clock. Default `real`. */
  mode?: ClockMode;
  /** Simulated epoch ms at construction. Default: the wall clock. */
  start?: number;
  /** Speed factor in `real` mode. Default 1. */
  speed?: number;
  /** Wall clock source, injectable for tests of the speed factor. Default Date.now. */
  wall?: () => number;
}

interface SimClockState {
  readonly now: number;
  readonly mode: ClockMode;
  readonly speed: number;
}

export class SimClock {
  private anchorSim: number;
  private anchorWall: number;
  private speed: number;
  private readonly wall: () => number;

  constructor(options: SimClockOptions = {}) {
    this.wall = options.wall ?? Date.now;
    this.anchorWall = this.wall();
    this.anchorSim = options.start ?? this.anchorWall;
    const mode = options.mode ?? 'real';
    this.speed = mode === 'fixed' ? 0 : checkSpeed(options.speed ?? 1);
  }

  /** Simulated epoch milliseconds (an integer). */
  now(): number {
    return Math.floor(this.anchorSim + (this.wall() - this.anchorWall) * this.speed);
  }

  get mode(): ClockMode {
    return this.speed === 0 ? 'fixed' : 'real';
  }

  /** Jumps to `ms`; a running clock keeps running from there. */
  set(ms: number): void {
    if (!Number.isFinite(ms)) throw new ArgumentError(`clock time must be a finite number, got ${ms}`);
    this.anchorSim = Math.floor(ms);
    this.anchorWall = this.wall();
  }

  advance(ms: number): void {
    this.set(this.now() + ms);
  }

  /** 0 freezes the clock (fixed mode); N > 0 runs it N times faster than the wall clock. */
  setSpeed(speed: number): void {
    const now = this.now();
    this.speed = speed === 0 ? 0 : checkSpeed(speed);
    this.set(now);
  }

  state(): SimClockState {
    return { now: this.now(), mode: this.mode, speed: this.speed };
  }
}

function checkSpeed(speed: number): number {
  if (!Number.isFinite(speed) || speed <= 0) throw new ArgumentError(`clock speed must be a positive number, got ${speed}`);
  return speed;
}
