// When each job runs. An interval schedule fires at wall-clock
// boundaries (a 1m collector at :00 of every minute; whole-day periods at
// platform midnight) plus a fixed per-collector offset, so runs line up with
// bucket ends and collectors do not all hit the upstream in the same second.
// Ticks walk a grid of slots instead of adding the interval to "now": a timer
// that fires late neither skips the next slot nor repeats one, and one that
// fires early waits again. A cron schedule is node-cron's.
import { createTask } from 'node-cron';
import type { Logger as CronLogger, ScheduledTask } from 'node-cron';
import { INTERVAL_MS } from '../collectors/buckets.js';
import type { BucketInterval } from '../collectors/buckets.js';
import type { CollectorLogger } from '../collectors/collector.js';

import { DAY_MS, HOUR_MS } from '../api/time.js';
import { MAX_TIMER_MS } from '../shared/wait.js';
import type { Clock } from '../shared/clock.js';

export type Schedule =
  | { readonly kind: 'interval'; readonly everyMs: number }
  | { readonly kind: 'cron'; readonly expression: string };

/** A collector's schedule from its resolved options: `schedule` (cron) wins over `interval`. */
export function scheduleOf(options: { readonly interval: BucketInterval | number; readonly schedule?: string | undefined }): Schedule {
  if (options.schedule !== undefined) return { kind: 'cron', expression: options.schedule };
  const everyMs = typeof options.interval === 'number' ? options.interval : INTERVAL_MS[options.interval];
  return { kind: 'interval', everyMs };
}

/**
 * How often `schedule` fires, on average, per hour: an interval's share of an
 * hour, or for a cron schedule the next 500 times node-cron itself computes
 * (a daily schedule averages over 500 days, an every-second one over 500 s).
 */
export function runsPerHour(schedule: Schedule, offsetMinutes: number): number {
  if (schedule.kind === 'interval') return HOUR_MS / schedule.everyMs;
  const task = createTask(schedule.expression, () => undefined, { timezone: cronTimezone(offsetMinutes) });
  try {
    const runs = task.getNextRuns(500).map((d) => d.getTime());
    const first = runs[0];
    const last = runs.at(-1);
    if (first === undefined || last === undefined || last <= first) return 0;
    return ((runs.length - 1) * HOUR_MS) / (last - first);
  } finally {
    void task.destroy();
  }
}

/** The collector's fixed offset in [0, jitterMs): the same on every run and restart (FNV-1a of the name). */
export function jitterOffsetMs(name: string, jitterMs: number): number {
  if (jitterMs <= 0) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % Math.floor(jitterMs);
}

/** Start of the slot containing `t`: epoch multiples, or platform midnights for whole-day periods (as buckets.ts aligns). */
export function slotStart(everyMs: number, t: number, offsetMinutes: number): number {
  const shift = everyMs % DAY_MS === 0 ? offsetMinutes * 60_000 : 0;
  return Math.floor((t + shift) / everyMs) * everyMs - shift;
}

/** node-cron takes IANA zones; a whole-hour offset is an `Etc/GMT` zone (sign inverted by POSIX convention), else UTC. */
export function cronTimezone(offsetMinutes: number): string {
  const hours = offsetMinutes / 60;
  if (offsetMinutes === 0 || !Number.isInteger(hours) || hours < -12 || hours > 14) return 'UTC';
  return `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`;
}

interface TickerOptions {
  readonly name: string;
  readonly schedule: Schedule;
  /** Fixed delay after each boundary (jitterOffsetMs). */
  readonly offsetMs: number;
  readonly tzOffsetMinutes: number;
  readonly clock: Clock;
  readonly log: CollectorLogger;
  /** A slot is due; `slot` is its boundary (epoch ms, before the offset). */
  onTick(slot: number): void;
  /** Whole slots passed without a tick (the process was suspended or blocked); buckets are back-filled later. */
  onMissed(slots: number): void;
}

export interface Ticker {
  /** When the next tick is due, epoch ms; undefined once stopped. */
  nextRunAt(): number | undefined;
  stop(): void;
}

export function startTicker(options: TickerOptions): Ticker {
  return options.schedule.kind === 'interval'
    ? intervalTicker(options, options.schedule.everyMs)
    : cronTicker(options, options.schedule.expression);
}

function intervalTicker(options: TickerOptions, everyMs: number): Ticker {
  // An offset past the period would move runs into the next slot.
  const offset = everyMs > 1 ? options.offsetMs % everyMs : 0;
  const slotOf = (t: number): number => slotStart(everyMs, t - offset, options.tzOffsetMinutes);
  // The run at start-up covers the current slot; the schedule starts at the next boundary.
  let next: number | undefined = slotOf(options.clock.now()) + everyMs;
  let timer: NodeJS.Timeout | undefined;

  const arm = (): void => {
    if (next === undefined) return;
    // The wait is at most one period, unless the clock stepped back: a step of over 24.8 days would exceed what
    // setTimeout runs (it would fire after 1 ms, again and again). Wait at most the limit; fire() re-arms for the rest.
    timer = setTimeout(fire, Math.min(MAX_TIMER_MS, Math.max(0, next + offset - options.clock.now())));
    timer.unref();
  };
  const fire = (): void => {
    if (next === undefined) return;
    const now = options.clock.now();
    if (now < next + offset) return arm(); // early wake-up (clock stepped back): wait, never repeat a slot
    const current = slotOf(now);
    const missed = Math.round((current - next) / everyMs);
    if (missed > 0) options.onMissed(missed);
    next = current + everyMs;
    arm();
    options.onTick(current);
  };
  arm();
  return {
    nextRunAt: () => (next === undefined ? undefined : next + offset),
    stop() {
      next = undefined;
      clearTimeout(timer);
    },
  };
}

function cronTicker(options: TickerOptions, expression: string): Ticker {
  const delays = new Set<NodeJS.Timeout>();
  let stopped = false;
  // The engine's logger is bound to `component` already: a second `component` would be written twice in the line.
  const log = options.log.child({ scheduler: 'node-cron' });
  const logger: CronLogger = {
    debug: (message) => log.debug({ detail: String(message) }, 'scheduler'),
    info: (message) => log.debug({ detail: message }, 'scheduler'),
    warn: (message) => log.warn({ detail: message }, 'scheduler'),
    error: (message) => log.warn({ detail: String(message) }, 'scheduler'),
  };
  const task: ScheduledTask = createTask(
    expression,
    () => {
      if (stopped) return;
      const slot = options.clock.now();
      // The task returns at once: overlap is decided by the engine, which counts skipped ticks.
      if (options.offsetMs <= 0) return options.onTick(slot);
      const delay = setTimeout(() => {
        delays.delete(delay);
        if (!stopped) options.onTick(slot);
      }, options.offsetMs);
      delay.unref();
      delays.add(delay);
    },
    { name: `edge-exporter:${options.name}`, timezone: cronTimezone(options.tzOffsetMinutes), unref: true, logger },
  );
  void task.start();
  return {
    nextRunAt() {
      if (stopped) return undefined;
      const next = task.getNextRun();
      return next === null ? undefined : next.getTime() + options.offsetMs;
    },
    stop() {
      stopped = true;
      for (const delay of delays) clearTimeout(delay);
      delays.clear();
      void task.destroy();
    },
  };
}
