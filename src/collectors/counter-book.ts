// Counter totals of one owner (a collector, or the WAF denied counter), held
// once: counted at once, visible through view() only after a write has put
// them on disk. Both the ledger and the WAF delivery book keep their totals
// here, so the FamilyStore reads every counter the same way and holds none.
import { seriesKey, type Labels } from './series/keys.js';
import type { CounterView, Sample } from './types.js';

export interface CounterEntry {
  readonly name: string;
  readonly labels: Labels;
  /** Counted so far, increments not yet on disk included. */
  readonly value: number;
  readonly timestampMs: number | undefined;
}

interface Entry {
  readonly name: string;
  readonly labels: Labels;
  value: number;
  timestampMs: number | undefined;
  /** The total on disk, the only one published; undefined until the series' first write. */
  saved: number | undefined;
  savedTimestampMs: number | undefined;
}

/** What a write took: the values to mark saved once it is on disk. */
export type Written = readonly (readonly [Entry, number, number | undefined])[];

export class CounterBook {
  private readonly entries = new Map<string, Entry>();
  /** Increases whenever a saved total changes (a write or a restore). */
  private version = 0;
  readonly view: CounterView;

  constructor() {
    const entries = this.entries;
    const book = (): CounterBook => this;
    this.view = {
      get version() {
        return book().version;
      },
      get size() {
        let n = 0;
        for (const e of entries.values()) if (e.saved !== undefined) n++;
        return n;
      },
      *[Symbol.iterator]() {
        for (const e of entries.values()) if (e.saved !== undefined) yield sample(e.name, e.labels, e.saved, e.savedTimestampMs);
      },
    };
  }

  /** Series counted so far, saved or not. */
  get size(): number {
    return this.entries.size;
  }

  has(name: string, labels: Labels): boolean {
    return this.entries.has(seriesKey(name, labels));
  }

  /**
   * Adds `value` (finite, >= 0: the caller checks) to the series; false, and
   * nothing added, when the total would pass the largest finite number (+Inf
   * is not exposable, and JSON would save it as null).
   */
  add(name: string, labels: Labels, value: number, timestampMs?: number): boolean {
    const key = seriesKey(name, labels);
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.entries.set(key, { name, labels: { ...labels }, value, timestampMs, saved: undefined, savedTimestampMs: undefined });
      return true;
    }
    if (!Number.isFinite(entry.value + value)) return false;
    entry.value += value;
    if (timestampMs !== undefined) entry.timestampMs = Math.max(entry.timestampMs ?? timestampMs, timestampMs);
    return true;
  }

  /** Every series as counted, for the file a write puts on disk. */
  counted(): CounterEntry[] {
    return [...this.entries.values()].map(({ name, labels, value, timestampMs }) => ({ name, labels, value, timestampMs }));
  }

  /** Replaces every series with what a file held; all of it is on disk, so all of it is visible. */
  restore(entries: Iterable<CounterEntry>): void {
    this.entries.clear();
    for (const { name, labels, value, timestampMs } of entries) {
      this.entries.set(seriesKey(name, labels), { name, labels, value, timestampMs, saved: value, savedTimestampMs: timestampMs });
    }
    this.version++;
  }

  /** Taken just before a write: increments counted while it is under way stay pending, they are not in the file. */
  writing(): Written {
    return [...this.entries.values()].map((e) => [e, e.value, e.timestampMs] as const);
  }

  /** The write is on disk: what it took becomes visible. */
  written(taken: Written): void {
    let changed = false;
    for (const [entry, value, timestampMs] of taken) {
      changed ||= entry.saved !== value || entry.savedTimestampMs !== timestampMs;
      entry.saved = value;
      entry.savedTimestampMs = timestampMs;
    }
    if (changed) this.version++;
  }
}

function sample(name: string, labels: Labels, value: number, timestampMs: number | undefined): Sample {
  return timestampMs === undefined ? { name, labels, value } : { name, labels, value, timestampMs };
}
