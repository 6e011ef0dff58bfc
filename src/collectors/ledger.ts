// The counters the exporter has counted so far, and the watermarks saying
// which buckets they include. Both live in ONE state file per collector and
// are written together, so after a crash they still agree: either a cycle's
// increments and its watermarks are on disk, or neither is, and the next run
// recounts exactly the buckets the counters lack. Restart continues every
// counter with no loss and no double count.
import { z } from 'zod';
import { StateError } from '../state/store.js';
import type { StateStore } from '../state/store.js';
import { seriesKey } from './series/keys.js';
import type { CollectOutput, CounterView, Sample } from './types.js';

const counterEntrySchema = z.strictObject({
  name: z.string().min(1),
  labels: z.record(z.string(), z.string()),
  value: z.number().finite().nonnegative(),
  timestampMs: z.number().int().optional(),
});

/** What one collector's state file holds (inside the store's `{ version, data }` envelope). */
export const ledgerFileSchema = z.strictObject({
  collector: z.string().min(1),
  watermarks: z.record(z.string(), z.number().int()),
  counters: z.array(counterEntrySchema),
});
export type LedgerFile = z.output<typeof ledgerFileSchema>;

/** The store operations the ledger needs. */
export type LedgerStorage = Pick<StateStore, 'load' | 'save' | 'pathOf'>;

/** State file name of a collector's ledger: `<state_dir>/ledger-<collector>.json`. */
export function ledgerFileName(collector: string): string {
  return `ledger-${collector}`;
}

export interface ApplyResult {
  /** Increments refused: negative, not finite, or taking the total past the largest finite number (a counter never goes down). */
  readonly rejected: number;
}

interface CounterEntry {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Counted so far, increments not yet on disk included. */
  value: number;
  timestampMs: number | undefined;
  /** The total on disk, the only one published; undefined until the series' first save. */
  saved: number | undefined;
  savedTimestampMs: number | undefined;
}

interface CollectorBook {
  readonly watermarks: Map<string, number>;
  /** By seriesKey, the identity the watermarks use too (in memory only: the file stores name and labels). */
  readonly counters: Map<string, CounterEntry>;
  /** Increases whenever a saved total changes (a save or a restore). */
  version: number;
}

/**
 * The exporter's one copy of every counter total. A cycle's increments are
 * applied at once (the next cycle's watermarks depend on them) but become
 * visible through view() only when save() has put them on disk, so nothing
 * Prometheus has seen can be lost or counted twice by a restart. A failed
 * save leaves them pending; the next save carries them.
 */
export class CounterLedger {
  private readonly books = new Map<string, CollectorBook>();
  private readonly views = new Map<string, CounterView>();

  /** The collector's watermarks, a copy for CollectContext. */
  watermarks(collector: string): Readonly<Record<string, number>> {
    return Object.fromEntries(this.book(collector).watermarks);
  }

  /** Adds a cycle's increments to the totals and replaces the watermarks it reports (others are kept). */
  apply(collector: string, output: Pick<CollectOutput, 'increments' | 'watermarks'>): ApplyResult {
    const book = this.book(collector);
    let rejected = 0;
    for (const inc of output.increments) {
      if (!Number.isFinite(inc.value) || inc.value < 0) {
        rejected++;
        continue;
      }
      const key = seriesKey(inc.name, inc.labels);
      const entry = book.counters.get(key);
      // A total past the largest double would be +Inf: not exposable, and JSON would save it as null.
      if (entry && !Number.isFinite(entry.value + inc.value)) {
        rejected++;
        continue;
      }
      if (entry) {
        entry.value += inc.value;
        if (inc.timestampMs !== undefined) entry.timestampMs = Math.max(entry.timestampMs ?? inc.timestampMs, inc.timestampMs);
      } else {
        const { name, labels, value, timestampMs } = inc;
        book.counters.set(key, { name, labels: { ...labels }, value, timestampMs, saved: undefined, savedTimestampMs: undefined });
      }
    }
    for (const [key, ms] of Object.entries(output.watermarks)) book.watermarks.set(key, ms);
    return { rejected };
  }

  /** Absolute values of every counter series the collector has counted, saved or not. */
  snapshot(collector: string): Sample[] {
    return [...this.book(collector).counters.values()].map((e) => sample(e.name, e.labels, e.value, e.timestampMs));
  }

  /**
   * The collector's saved totals, read-only and live: what the FamilyStore
   * exposes, so the totals are held here only. The same object on every call.
   */
  view(collector: string): CounterView {
    let view = this.views.get(collector);
    if (view === undefined) {
      const book = (): CollectorBook => this.book(collector);
      view = {
        get version() {
          return book().version;
        },
        get size() {
          let n = 0;
          for (const e of book().counters.values()) if (e.saved !== undefined) n++;
          return n;
        },
        *[Symbol.iterator]() {
          for (const e of book().counters.values()) if (e.saved !== undefined) yield sample(e.name, e.labels, e.saved, e.savedTimestampMs);
        },
      };
      this.views.set(collector, view);
    }
    return view;
  }

  serialise(collector: string): LedgerFile {
    const book = this.book(collector);
    return {
      collector,
      watermarks: Object.fromEntries(book.watermarks),
      counters: [...book.counters.values()].map((e) => ({
        name: e.name,
        labels: { ...e.labels },
        value: e.value,
        ...(e.timestampMs === undefined ? {} : { timestampMs: e.timestampMs }),
      })),
    };
  }

  /** Replaces the collector's state with a file's content (all of it saved). */
  restore(collector: string, file: LedgerFile): void {
    const version = (this.books.get(collector)?.version ?? 0) + 1;
    const book: CollectorBook = { watermarks: new Map(Object.entries(file.watermarks)), counters: new Map(), version };
    for (const c of file.counters) {
      book.counters.set(seriesKey(c.name, c.labels), {
        name: c.name, labels: c.labels, value: c.value, timestampMs: c.timestampMs, saved: c.value, savedTimestampMs: c.timestampMs,
      });
    }
    this.books.set(collector, book);
  }

  /**
   * Reads the collector's state file: true when one was found, false for a
   * fresh start (no file). A damaged file throws StateError; nothing is reset
   * here (restoreLedger applies state_recovery).
   */
  async load(store: LedgerStorage, collector: string): Promise<boolean> {
    const file = await store.load(ledgerFileName(collector), ledgerFileSchema);
    if (file === undefined) return false;
    if (file.collector !== collector) {
      throw new StateError(store.pathOf(ledgerFileName(collector)), `belongs to collector "${file.collector}", not "${collector}"`, {
        damaged: true,
      });
    }
    this.restore(collector, file);
    return true;
  }

  /**
   * Writes the collector's watermarks and counters in one atomic file, then
   * makes what it wrote visible. Increments applied while the write is under
   * way stay pending: they were not in the file.
   */
  async save(store: LedgerStorage, collector: string): Promise<void> {
    const book = this.book(collector);
    const written = [...book.counters.values()].map((e) => [e, e.value, e.timestampMs] as const);
    await store.save(ledgerFileName(collector), this.serialise(collector));
    let changed = false;
    for (const [entry, value, timestampMs] of written) {
      changed ||= entry.saved !== value || entry.savedTimestampMs !== timestampMs;
      entry.saved = value;
      entry.savedTimestampMs = timestampMs;
    }
    if (changed) book.version++;
  }

  private book(collector: string): CollectorBook {
    let book = this.books.get(collector);
    if (!book) {
      book = { watermarks: new Map(), counters: new Map(), version: 0 };
      this.books.set(collector, book);
    }
    return book;
  }
}

function sample(name: string, labels: Readonly<Record<string, string>>, value: number, timestampMs: number | undefined): Sample {
  return timestampMs === undefined ? { name, labels, value } : { name, labels, value, timestampMs };
}
