// Which time range to read next, and how the checkpoint moves. Pure.
//
// A window is [cursor - overlap, min(now - delay, cursor + maxWindow)). The
// delay keeps the end behind the upstream's ingest lag; the overlap re-reads
// the tail of the previous window so a record ingested later than the delay
// is still found, and `delivered` (requestId -> event time) drops what was
// sent already. Only ids at or after the next window's start are kept: older
// ones can never be read again, so the ids kept are those of the overlap and
// of the last window (each capped in events by the forwarder: its span shrinks
// while a window holds more than max_window_events new ones).
// Bounds are whole seconds because the query's times are `yyyy-MM-dd HH:mm:ss`.

export interface Checkpoint {
  /** Where forwarding began (first start); no window reaches before it. */
  readonly originMs: number;
  /** Every window before this instant has been delivered (late arrivals inside the overlap aside). */
  readonly cursorMs: number;
  /** requestId -> event time (ms) of delivered events a later window may read again. */
  readonly delivered: ReadonlyMap<string, number>;
}

export interface WindowOptions {
  readonly overlapMs: number;
  readonly delayMs: number;
  readonly maxWindowMs: number;
  /**
   * Least new time (past the cursor) a window is started for, capped at
   * maxWindowMs; default any. Each window reads the whole overlap again, so a
   * window for a second of new time at a high rate could take longer to read
   * than the time it adds, and a poll would never end.
   */
  readonly minNewMs?: number;
  /** First start only: begin this long before now. */
  readonly startBackMs: number;
}

/** [startMs, endMs), whole seconds. */
export interface TimeWindow {
  readonly startMs: number;
  readonly endMs: number;
}

const SECOND = 1000;
const floorSecond = (ms: number): number => Math.floor(ms / SECOND) * SECOND;

/** The checkpoint of a first start: nothing delivered, beginning startBackMs before now. */
export function initialCheckpoint(now: number, options: Pick<WindowOptions, 'startBackMs'>): Checkpoint {
  const origin = floorSecond(now - options.startBackMs);
  return { originMs: origin, cursorMs: origin, delivered: new Map() };
}

/** Where the next window starts for a checkpoint: the overlap before the cursor, never before the origin. */
export function windowStart(checkpoint: Pick<Checkpoint, 'originMs' | 'cursorMs'>, overlapMs: number): number {
  return Math.max(checkpoint.originMs, floorSecond(checkpoint.cursorMs - overlapMs));
}

/**
 * The next window, or undefined when there is not enough new to read: its end
 * would not pass the cursor by minNewMs (re-reading only the overlap is left
 * to the next window, which reads it anyway).
 */
export function planWindow(checkpoint: Checkpoint | undefined, now: number, options: WindowOptions): TimeWindow | undefined {
  const cp = checkpoint ?? initialCheckpoint(now, options);
  const startMs = windowStart(cp, options.overlapMs);
  const endMs = floorSecond(Math.min(now - options.delayMs, cp.cursorMs + options.maxWindowMs));
  const least = Math.max(1, Math.min(options.minNewMs ?? 0, options.maxWindowMs));
  return endMs - cp.cursorMs >= least && endMs > startMs ? { startMs, endMs } : undefined;
}

/**
 * Adds confirmed events to `delivered` without moving the cursor (after each
 * batch), or refreshes ids read again. Each is kept under the later of its
 * time and the end of the window it was read in: a record whose time says
 * nothing about the windows that return it (a range ignored, a time running
 * behind) is kept as long as windows that could return it are read. In
 * place, on a map the caller owns: after every batch, a copy of a set that
 * grows with the window made catching up a backlog quadratic.
 */
export function rememberInPlace(delivered: Map<string, number>, events: Iterable<readonly [string, number]>, windowEndMs?: number): void {
  for (const [uid, timeMs] of events) delivered.set(uid, Math.max(timeMs, windowEndMs ?? timeMs, delivered.get(uid) ?? timeMs));
}

/**
 * After a whole window was delivered: the cursor moves to its end (never
 * back), and ids older than the next window's start are forgotten.
 */
export function advance(checkpoint: Checkpoint, windowEndMs: number, overlapMs: number): Checkpoint {
  const cursorMs = Math.max(checkpoint.cursorMs, windowEndMs);
  const keepFrom = windowStart({ originMs: checkpoint.originMs, cursorMs }, overlapMs);
  const delivered = new Map<string, number>();
  for (const [uid, timeMs] of checkpoint.delivered) if (timeMs >= keepFrom) delivered.set(uid, timeMs);
  return { originMs: checkpoint.originMs, cursorMs, delivered };
}
