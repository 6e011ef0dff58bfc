// Which time range to read next, and how the checkpoint moves. Pure.
//
// Every range of event time is read at most twice (a window cut at
// max_window_events and a restart aside):
// - new: [cursor, min(now - delay, cursor + maxWindow)), once, when it has
//   passed `delay` (the upstream's usual ingest lag);
// - final pass: [final, min(cursor, now - delay - overlap, final +
//   maxWindow)), once more, when its end is `delay + overlap` old, so a record
//   ingested up to `delay + overlap` late is still found, later.
// A new window read `delay + overlap` after its end (a backlog) was already
// read that late: with no final pass pending before it, it is final at once,
// and a backlog is read once. `delivered` (requestId -> kept-until time)
// drops what was sent already; ids kept until before `final` are forgotten,
// since no window reads before it again. Re-reading the whole overlap in
// every window instead cost (overlap + interval) / interval records read per
// delivered event caught up (11 at the defaults); this costs 2.
// Bounds are whole seconds because the query's times are `yyyy-MM-dd HH:mm:ss`.

export interface Checkpoint {
  /** Where forwarding began (first start); no window reaches before it. */
  readonly originMs: number;
  /** Every range before this instant has been read (delivered) once. */
  readonly cursorMs: number;
  /** Every range before this instant had its final pass (read delay + overlap after its end); at most cursorMs. */
  readonly finalMs: number;
  /** requestId -> time (ms) until which a window may read it again. */
  readonly delivered: ReadonlyMap<string, number>;
}

/** A checkpoint as saved: files written before the final pass have no finalMs (see resumed). */
export type SavedCheckpoint = Omit<Checkpoint, 'finalMs'> & { readonly finalMs?: number };

export interface WindowOptions {
  readonly overlapMs: number;
  readonly delayMs: number;
  readonly maxWindowMs: number;
  /**
   * Least time a window is started for (capped at maxWindowMs; default any),
   * unless it closes the gap to the cursor: fewer, longer windows, each one
   * a request at least and a snapshot of the checkpoint.
   */
  readonly minNewMs?: number;
  /** First start only: begin this long before now. */
  readonly startBackMs: number;
  /**
   * Ids the checkpoint may keep before new windows wait to be final at once
   * (default no limit; the forwarder gives max_window_events): see nextWindow.
   */
  readonly maxKeptIds?: number;
}

/** [startMs, endMs), whole seconds. */
export interface TimeWindow {
  readonly startMs: number;
  readonly endMs: number;
}

/** A window and which pass reads it: the first past the cursor, or the final pass past `final`. */
export interface WindowPass extends TimeWindow {
  readonly pass: 'new' | 'final';
}

/** Where the checkpoint moves once a whole window is delivered. */
export type Position = Pick<Checkpoint, 'cursorMs' | 'finalMs'>;

const SECOND = 1000;
const floorSecond = (ms: number): number => Math.floor(ms / SECOND) * SECOND;

/** The checkpoint of a first start: nothing delivered, beginning startBackMs before now. */
export function initialCheckpoint(now: number, options: Pick<WindowOptions, 'startBackMs'>): Checkpoint {
  const origin = floorSecond(now - options.startBackMs);
  return { originMs: origin, cursorMs: origin, finalMs: origin, delivered: new Map() };
}

/**
 * A saved checkpoint as the forwarder resumes it. One written before finalMs
 * existed kept the ids of the overlap before its cursor, which every window
 * read again: its final pass starts there (the overlap read once more).
 */
export function resumed(saved: SavedCheckpoint, overlapMs: number): Checkpoint {
  const finalMs = saved.finalMs ?? Math.max(saved.originMs, floorSecond(saved.cursorMs - overlapMs));
  return { ...saved, finalMs: Math.min(finalMs, saved.cursorMs) };
}

/**
 * The next window, or undefined when there is nothing to read. A final pass
 * due goes first: once it has reached the cursor, a new window read late
 * enough is final at once (see passed). A window shorter than minNewMs waits
 * for the next poll, except a final pass that reaches the cursor. While the
 * checkpoint keeps maxKeptIds ids or more, a new window ends no later than
 * delay + overlap before now.
 */
export function nextWindow(checkpoint: Checkpoint | undefined, now: number, options: WindowOptions): WindowPass | undefined {
  const cp = checkpoint ?? initialCheckpoint(now, options);
  const least = Math.max(1, Math.min(options.minNewMs ?? 0, options.maxWindowMs));
  const finalEnd = floorSecond(Math.min(cp.cursorMs, now - options.delayMs - options.overlapMs, cp.finalMs + options.maxWindowMs));
  if (finalEnd > cp.finalMs && (finalEnd === cp.cursorMs || finalEnd - cp.finalMs >= least)) {
    return { pass: 'final', startMs: cp.finalMs, endMs: finalEnd };
  }
  // Ids are kept from a window's read until its final pass: under a flood, overlap's worth of events. Once
  // maxKeptIds are kept, a new window waits until it is final at once (delay + overlap old, see passed),
  // so it adds none for long: the ids stay within maxKeptIds and one window, and events come up to overlap later.
  const flooded = cp.delivered.size >= (options.maxKeptIds ?? Infinity);
  const newestMs = flooded ? now - options.delayMs - options.overlapMs : now - options.delayMs;
  const endMs = floorSecond(Math.min(newestMs, cp.cursorMs + options.maxWindowMs));
  return endMs - cp.cursorMs >= least ? { pass: 'new', startMs: cp.cursorMs, endMs } : undefined;
}

/**
 * Where the checkpoint moves once `window`, whose reading began at readAtMs,
 * is delivered whole. A final pass moves `final` to its end. A new window
 * moves the cursor; with no final pass pending before it, its part older
 * than delay + overlap at readAtMs is final too: every record there ingested
 * within delay + overlap was visible when it was read.
 */
export function passed(checkpoint: Position, window: WindowPass, readAtMs: number, options: Pick<WindowOptions, 'delayMs' | 'overlapMs'>): Position {
  if (window.pass === 'final') return { cursorMs: checkpoint.cursorMs, finalMs: Math.max(checkpoint.finalMs, Math.min(window.endMs, checkpoint.cursorMs)) };
  const cursorMs = Math.max(checkpoint.cursorMs, window.endMs);
  const readLate = floorSecond(readAtMs - options.delayMs - options.overlapMs);
  const finalMs = checkpoint.finalMs >= window.startMs ? Math.max(checkpoint.finalMs, Math.min(window.endMs, readLate)) : checkpoint.finalMs;
  return { cursorMs, finalMs };
}

/**
 * Adds confirmed events to `delivered` without moving the checkpoint (after
 * each batch), or refreshes ids read again. Each is kept under the later of
 * its time and the end of the window it was read in: a record whose time says
 * nothing about the windows that return it (a range ignored, a time running
 * behind) is kept as long as windows that could return it are read. In
 * place, on a map the caller owns: after every batch, a copy of a set that
 * grows with the window made catching up a backlog quadratic.
 */
export function rememberInPlace(delivered: Map<string, number>, events: Iterable<readonly [string, number]>, windowEndMs?: number): void {
  for (const [uid, timeMs] of events) delivered.set(uid, Math.max(timeMs, windowEndMs ?? timeMs, delivered.get(uid) ?? timeMs));
}

/**
 * After a whole window was delivered: the checkpoint moves to `to` (never
 * back), and ids kept until before `final` are forgotten: no window reads
 * before it again. Those kept until exactly `final` (read in the window
 * ending there) stay until the next window past it, which may return them.
 * The ids are a new map, the caller's to own and update in place.
 */
export function advance(checkpoint: Checkpoint, to: Position): Checkpoint & { readonly delivered: Map<string, number> } {
  const cursorMs = Math.max(checkpoint.cursorMs, to.cursorMs);
  const finalMs = Math.min(cursorMs, Math.max(checkpoint.finalMs, to.finalMs));
  const delivered = new Map<string, number>();
  for (const [uid, keepMs] of checkpoint.delivered) if (keepMs >= finalMs) delivered.set(uid, keepMs);
  return { originMs: checkpoint.originMs, cursorMs, finalMs, delivered };
}
