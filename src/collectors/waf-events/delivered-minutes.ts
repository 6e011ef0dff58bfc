// What the forwarder delivered, per minute of event time, for the delivery
// audit (audit.ts): how many events (sent as records or folded into
// summaries), and while the minute is inside the look-back the hashes of
// their ids (uid-hash.ts), so that a recovery tells the records it delivered
// from the missing ones. Bounded on both counts:
// - a minute's hashes are kept only while a recovery may read it (inside the
//   look-back), and at most maxHashes in all: past that the oldest minutes'
//   are given up first (a flood). A recovery there cannot tell, so it sends
//   the minute's records again with their uids (a backend that drops repeated
//   `log.record.uid`s keeps one) and counts the repeats: exactly-once gives,
//   memory does not.
// - a minute's count is kept while the audit still compares it (the caller
//   forgets it after).
// Changes since the last write are taken for the checkpoint's journal
// (takeChanges), the whole for its snapshot (entries).
import { uidHash } from './uid-hash.js';

const MINUTE_MS = 60_000;

/**
 * A minute's hashes are kept in chunks that double from 64 up to 8,192 (64 KB):
 * one array doubled and copied as it grew left up to half of it unused and
 * copied every hash again, a flood's hour being tens of MB (docs/benchmarks.md).
 */
const FIRST_CHUNK = 64;
const LAST_CHUNK = 8192;

interface Minute {
  count: number;
  /** The ids' hashes, in chunks (each full but the last, which holds size minus the rest); undefined once given up. */
  hashes: Float64Array[] | undefined;
  size: number;
  /** Hashes in the last chunk. */
  tail: number;
  /** The hashes as a set, built for a recovery's look-ups and kept up to date until it ends (endLookups). */
  lookup: Set<number> | undefined;
}

/** A minute as saved: [minute start ms, count, its hashes as base64 of little-endian doubles, or null once given up]. */
export type SavedMinute = readonly [number, number, string | null];
/** What one write adds: [minute start ms, count added, the added hashes (base64), or null when they are not kept]. */
export type MinuteChange = readonly [number, number, string | null];

export const minuteOf = (timeMs: number): number => Math.floor(timeMs / MINUTE_MS) * MINUTE_MS;

export class DeliveredMinutes {
  private readonly minutes = new Map<number, Minute>();
  private hashCount = 0;
  /** Per minute since the last takeChanges: count added and the hashes added (undefined: not kept). */
  private changes = new Map<number, { count: number; hashes: number[] | undefined }>();
  /** Minutes whose hashes were given up to stay within maxHashes (a counter for the status page and the log). */
  givenUp = 0;

  /**
   * The oldest minute whose hashes are worth keeping (no recovery reads
   * before it: forget() moves it); older ones are counted only. Until the
   * audit's first check, every minute's.
   */
  private hashesFromMs = Number.NEGATIVE_INFINITY;

  /** maxHashes bounds the hashes kept. */
  constructor(private readonly maxHashes: number) {}

  /** An event the receiver confirmed (as a record, or folded into a summary). */
  add(uid: string, timeMs: number): void {
    const start = minuteOf(timeMs);
    const keep = start >= this.hashesFromMs;
    let minute = this.minutes.get(start);
    if (minute === undefined) {
      minute = { count: 0, hashes: keep ? [] : undefined, size: 0, tail: 0, lookup: undefined };
      this.minutes.set(start, minute);
    }
    minute.count++;
    let change = this.changes.get(start);
    if (change === undefined) {
      change = { count: 0, hashes: minute.hashes === undefined ? undefined : [] };
      this.changes.set(start, change);
    }
    change.count++;
    if (minute.hashes === undefined) return;
    const hash = uidHash(uid);
    this.push(minute, hash);
    change.hashes?.push(hash);
    if (this.hashCount > this.maxHashes) this.giveUpOldest();
  }

  /**
   * A recovery sent `n` events of this minute again (its hashes were given
   * up): they were counted at their first delivery already.
   */
  uncount(minuteMs: number, n: number): void {
    const minute = this.minutes.get(minuteMs);
    if (minute === undefined || n <= 0) return;
    minute.count -= n;
    const change = this.changes.get(minuteMs);
    // A null change gives the minute's hashes up at load: only where they were.
    if (change === undefined) this.changes.set(minuteMs, { count: -n, hashes: minute.hashes === undefined ? undefined : [] });
    else change.count -= n;
  }

  /** Events delivered with a time in [fromMs, toMs) (whole minutes). */
  count(fromMs: number, toMs: number): number {
    let n = 0;
    for (let m = minuteOf(fromMs); m < toMs; m += MINUTE_MS) n += this.minutes.get(m)?.count ?? 0;
    return n;
  }

  /**
   * Whether an event with this id and time was delivered: true or false while
   * its minute's hashes are kept, undefined once they were given up (or were
   * never kept: the minute was older than the look-back when it was delivered).
   */
  holds(uid: string, timeMs: number): boolean | undefined {
    const minute = this.minutes.get(minuteOf(timeMs));
    if (minute === undefined) return false;
    if (minute.hashes === undefined) return undefined;
    minute.lookup ??= new Set(valuesOf(minute));
    return minute.lookup.has(uidHash(uid));
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
        this.hashCount -= minute.hashes === undefined ? 0 : minute.size;
        this.minutes.delete(start);
      } else if (start < hashesBeforeMs && minute.hashes !== undefined) {
        this.drop(minute);
      }
    }
  }

  get size(): { readonly minutes: number; readonly hashes: number } {
    return { minutes: this.minutes.size, hashes: this.hashCount };
  }

  /** What was added since the last call, for the journal (one entry per minute). */
  takeChanges(): MinuteChange[] {
    const out: MinuteChange[] = [];
    for (const [start, change] of this.changes) out.push([start, change.count, change.hashes === undefined ? null : encode(change.hashes)]);
    this.changes = new Map();
    return out;
  }

  /** Whether anything was added since the last takeChanges. */
  get changed(): boolean {
    return this.changes.size > 0;
  }

  /** Every minute, for the snapshot. */
  entries(): SavedMinute[] {
    return [...this.minutes].map(([start, m]) => [start, m.count, m.hashes === undefined ? null : encode(valuesOf(m))]);
  }

  /** A snapshot's minutes, then its journal's changes in order. */
  restore(saved: readonly SavedMinute[]): void {
    this.minutes.clear();
    this.hashCount = 0;
    for (const [start, count, hashes] of saved) this.replay([start, count, hashes]);
    this.changes = new Map();
  }

  replay([start, count, encoded]: MinuteChange): void {
    let minute = this.minutes.get(start);
    if (minute === undefined) {
      minute = { count: 0, hashes: encoded === null ? undefined : [], size: 0, tail: 0, lookup: undefined };
      this.minutes.set(start, minute);
    }
    minute.count += count;
    if (encoded === null) {
      if (minute.hashes !== undefined) this.drop(minute);
      return;
    }
    if (minute.hashes === undefined) return;
    for (const hash of decode(encoded)) this.push(minute, hash);
    if (this.hashCount > this.maxHashes) this.giveUpOldest();
  }

  private push(minute: Minute, hash: number): void {
    const chunks = minute.hashes;
    if (chunks === undefined) return;
    let last = chunks.at(-1);
    if (last === undefined || minute.tail === last.length) {
      last = new Float64Array(Math.min(LAST_CHUNK, FIRST_CHUNK * 2 ** chunks.length));
      chunks.push(last);
      minute.tail = 0;
    }
    last[minute.tail++] = hash;
    minute.size++;
    this.hashCount++;
    // Kept up to date rather than dropped: a recovery confirms batch after batch of the minute it reads.
    minute.lookup?.add(hash);
  }

  private drop(minute: Minute): void {
    this.hashCount -= minute.size;
    minute.hashes = undefined;
    minute.size = 0;
    minute.tail = 0;
    minute.lookup = undefined;
  }

  /** Past maxHashes: the oldest minutes holding hashes give them up until within it (Map order is not time order). */
  private giveUpOldest(): void {
    const held = [...this.minutes].filter(([, m]) => m.hashes !== undefined).sort((a, b) => a[0] - b[0]);
    for (const [start, minute] of held) {
      if (this.hashCount <= this.maxHashes) return;
      this.drop(minute);
      this.givenUp++;
      // The journal must say so too, or a load would keep the hashes the running daemon gave up.
      const change = this.changes.get(start);
      if (change === undefined) this.changes.set(start, { count: 0, hashes: undefined });
      else change.hashes = undefined;
    }
  }
}

/** A minute's hashes, oldest first. */
function* valuesOf(minute: Minute): Generator<number> {
  let left = minute.size;
  for (const chunk of minute.hashes ?? []) {
    const n = Math.min(left, chunk.length);
    for (let i = 0; i < n; i++) yield chunk[i] ?? 0;
    left -= n;
  }
}

function encode(hashes: Iterable<number> | readonly number[]): string {
  const list = Array.isArray(hashes) ? hashes : [...hashes];
  const bytes = Buffer.alloc(list.length * 8);
  for (let i = 0; i < list.length; i++) bytes.writeDoubleLE(list[i] ?? 0, i * 8);
  return bytes.toString('base64');
}

function decode(text: string): Float64Array {
  const bytes = Buffer.from(text, 'base64');
  const out = new Float64Array(Math.floor(bytes.length / 8));
  for (let i = 0; i < out.length; i++) out[i] = bytes.readDoubleLE(i * 8);
  return out;
}
