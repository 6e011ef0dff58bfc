// What the forwarder delivered, per minute of event time, for the delivery
// audit (audit.ts): how many events (sent as records or folded into
// summaries), and while the minute is inside the look-back the hashes of
// their ids (uid-hash.ts), so that a recovery tells the records it delivered
// from the missing ones. The counts are saved with the checkpoint (a few
// thousand numbers); the hashes in files of their own, one per minute
// (delivered-files.ts), appended with every confirmed batch. In memory:
// - a minute's hashes only while a recovery may read it (inside the
//   look-back), and at most maxHashes in all: past that the oldest minutes'
//   are given up first (a flood). Their files stay: a recovery of such a
//   minute reads its file first, so memory gives, exactly-once does not.
// - a minute's count while the audit still compares it (the caller forgets
//   it after).
import { uidHash } from './uid-hash.js';

const MINUTE_MS = 60_000;
/**
 * A minute's hashes are kept in chunks that double from 64 up to 8,192 (64 KB):
 * one array doubled and copied as it grew left up to half of it unused and
 * copied every hash again, a flood's hour being tens of MB.
 */
const FIRST_CHUNK = 64;
const LAST_CHUNK = 8192;

/** Where a minute's hashes are: in memory, given up to stay within maxHashes (its file has them), or never kept (older than the look-back). */
type Held = 'memory' | 'file' | 'none';

interface Minute {
  count: number;
  held: Held;
  /** The ids' hashes in memory, in chunks (each full but the last, which holds `tail`). */
  chunks: Float64Array[];
  size: number;
  tail: number;
  /** The hashes as a set, built for a recovery's look-ups and kept up to date until it ends (endLookups). */
  lookup: Set<number> | undefined;
}

/** A minute's count as saved, or what one write adds to it: [minute start ms, events]. */
export type MinuteCount = readonly [number, number];

/** What one write takes: counts added per minute (for the checkpoint), hashes added per minute (for their files). */
interface MinuteChanges {
  readonly counts: MinuteCount[];
  readonly hashes: Map<number, number[]>;
}

export const minuteOf = (timeMs: number): number => Math.floor(timeMs / MINUTE_MS) * MINUTE_MS;

export class DeliveredMinutes {
  private readonly minutes = new Map<number, Minute>();
  private hashCount = 0;
  private counts = new Map<number, number>();
  private hashes = new Map<number, number[]>();
  /** Minutes whose hashes were given up to stay within maxHashes. */
  givenUp = 0;
  /**
   * The oldest minute whose hashes are worth keeping (no recovery reads
   * before it: forget() moves it); older ones are counted only. Until the
   * audit's first check, every minute's.
   */
  private hashesFromMs = Number.NEGATIVE_INFINITY;

  /** maxHashes bounds the hashes kept in memory. */
  constructor(private readonly maxHashes: number) {}

  /** An event the receiver confirmed (as a record, or folded into a summary). */
  add(uid: string, timeMs: number): void {
    const start = minuteOf(timeMs);
    const minute = this.minute(start, start >= this.hashesFromMs ? 'memory' : 'none');
    minute.count++;
    this.counts.set(start, (this.counts.get(start) ?? 0) + 1);
    if (minute.held === 'none') return;
    const hash = uidHash(uid);
    let added = this.hashes.get(start);
    if (added === undefined) this.hashes.set(start, (added = []));
    added.push(hash);
    if (minute.held === 'memory') this.push(minute, hash);
  }

  /**
   * A recovery sent `n` events of this minute again (its hashes were not to
   * be had): they were counted at their first delivery already.
   */
  uncount(minuteMs: number, n: number): void {
    const minute = this.minutes.get(minuteMs);
    if (minute === undefined || n <= 0) return;
    minute.count -= n;
    this.counts.set(minuteMs, (this.counts.get(minuteMs) ?? 0) - n);
  }

  /** Events delivered with a time in [fromMs, toMs) (whole minutes). */
  count(fromMs: number, toMs: number): number {
    let n = 0;
    for (let m = minuteOf(fromMs); m < toMs; m += MINUTE_MS) n += this.minutes.get(m)?.count ?? 0;
    return n;
  }

  /**
   * Whether an event with this id and time was delivered: true or false while
   * its minute's hashes are in memory, undefined otherwise (given up: see
   * inFiles; or never kept).
   */
  holds(uid: string, timeMs: number): boolean | undefined {
    const minute = this.minutes.get(minuteOf(timeMs));
    if (minute === undefined) return false;
    if (minute.held !== 'memory') return undefined;
    minute.lookup ??= new Set(valuesOf(minute));
    return minute.lookup.has(uidHash(uid));
  }

  /** The minutes of [fromMs, toMs) whose hashes were given up in memory and are in their files. */
  inFiles(fromMs: number, toMs: number): number[] {
    const out: number[] = [];
    for (let m = minuteOf(fromMs); m < toMs; m += MINUTE_MS) if (this.minutes.get(m)?.held === 'file') out.push(m);
    return out;
  }

  /** A recovery is over: its look-up sets (five times the memory of the hashes) go. */
  endLookups(): void {
    for (const minute of this.minutes.values()) minute.lookup = undefined;
  }

  /** Minutes before `countsBeforeMs` are forgotten; hashes of minutes before `hashesBeforeMs` are dropped (counts kept). */
  forget(countsBeforeMs: number, hashesBeforeMs: number): void {
    this.hashesFromMs = minuteOf(hashesBeforeMs);
    for (const [start, minute] of this.minutes) {
      if (start < countsBeforeMs) {
        this.hashCount -= minute.size;
        this.minutes.delete(start);
      } else if (start < this.hashesFromMs && minute.held !== 'none') {
        this.drop(minute, 'none');
      }
    }
  }

  /** The oldest minute whose hashes are kept (their files before it may go). */
  get hashesFrom(): number {
    return this.hashesFromMs;
  }

  get size(): { readonly minutes: number; readonly hashes: number } {
    return { minutes: this.minutes.size, hashes: this.hashCount };
  }

  /** What was added since the last call: counts for the checkpoint, hashes for their files. */
  takeChanges(): MinuteChanges {
    const changes = { counts: [...this.counts], hashes: this.hashes };
    this.counts = new Map();
    this.hashes = new Map();
    return changes;
  }

  /** Hashes a write could not put in their files: taken again by the next one. */
  putBack(hashes: ReadonlyMap<number, readonly number[]>): void {
    for (const [minute, list] of hashes) {
      const pending = this.hashes.get(minute);
      this.hashes.set(minute, pending === undefined ? [...list] : [...list, ...pending]);
    }
  }

  /** Whether anything was added since the last takeChanges. */
  get changed(): boolean {
    return this.counts.size > 0 || this.hashes.size > 0;
  }

  /** Every minute's count, for the snapshot. */
  entries(): MinuteCount[] {
    return [...this.minutes].map(([start, m]) => [start, m.count]);
  }

  /** A snapshot's counts, then its journal's, in order. */
  restore(saved: readonly MinuteCount[]): void {
    this.minutes.clear();
    this.hashCount = 0;
    for (const [start, count] of saved) this.minute(start, 'none').count += count;
    this.counts = new Map();
    this.hashes = new Map();
  }

  /** A minute's hashes read from its file at start-up (in memory while within maxHashes, the oldest given up first). */
  restoreHashes(start: number, hashes: Float64Array): void {
    const minute = this.minute(start, 'memory');
    if (minute.held === 'none') minute.held = 'memory';
    for (const hash of hashes) this.push(minute, hash);
  }

  private minute(start: number, held: Held): Minute {
    let minute = this.minutes.get(start);
    if (minute === undefined) {
      minute = { count: 0, held, chunks: [], size: 0, tail: 0, lookup: undefined };
      this.minutes.set(start, minute);
    }
    return minute;
  }

  private push(minute: Minute, hash: number): void {
    let last = minute.chunks.at(-1);
    if (last === undefined || minute.tail === last.length) {
      last = new Float64Array(Math.min(LAST_CHUNK, FIRST_CHUNK * 2 ** minute.chunks.length));
      minute.chunks.push(last);
      minute.tail = 0;
    }
    last[minute.tail++] = hash;
    minute.size++;
    this.hashCount++;
    // Kept up to date rather than dropped: a recovery confirms batch after batch of the minute it reads.
    minute.lookup?.add(hash);
    if (this.hashCount > this.maxHashes) this.giveUpOldest();
  }

  private drop(minute: Minute, held: Held): void {
    this.hashCount -= minute.size;
    minute.held = held;
    minute.chunks = [];
    minute.size = 0;
    minute.tail = 0;
    minute.lookup = undefined;
  }

  /** Past maxHashes: the oldest minutes in memory give theirs up (to their files) until within it (Map order is not time order). */
  private giveUpOldest(): void {
    const held = [...this.minutes].filter(([, m]) => m.held === 'memory').sort((a, b) => a[0] - b[0]);
    for (const [, minute] of held) {
      if (this.hashCount <= this.maxHashes) return;
      this.drop(minute, 'file');
      this.givenUp++;
    }
  }
}

/** A minute's hashes, oldest first. */
function* valuesOf(minute: Minute): Generator<number> {
  let left = minute.size;
  for (const chunk of minute.chunks) {
    const n = Math.min(left, chunk.length);
    for (let i = 0; i < n; i++) yield chunk[i] ?? 0;
    left -= n;
  }
}
