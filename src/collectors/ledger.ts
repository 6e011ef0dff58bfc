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
import type { CollectOutput, Sample } from './types.js';

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
  value: number;
  timestampMs: number | undefined;
}

interface CollectorBook {
  readonly watermarks: Map<string, number>;
  /** By seriesKey, the identity the watermarks use too (in memory only: the file stores name and labels). */
  readonly counters: Map<string, CounterEntry>;
}

export class CounterLedger {
  private readonly books = new Map<string, CollectorBook>();

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
        book.counters.set(key, { name: inc.name, labels: { ...inc.labels }, value: inc.value, timestampMs: inc.timestampMs });
      }
    }
    for (const [key, ms] of Object.entries(output.watermarks)) book.watermarks.set(key, ms);
    return { rejected };
  }

  /** Absolute values of every counter series the collector has produced. */
  snapshot(collector: string): Sample[] {
    return [...this.book(collector).counters.values()].map((e) =>
      e.timestampMs === undefined
        ? { name: e.name, labels: e.labels, value: e.value }
        : { name: e.name, labels: e.labels, value: e.value, timestampMs: e.timestampMs },
    );
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

  /** Replaces the collector's state with a file's content. */
  restore(collector: string, file: LedgerFile): void {
    const book: CollectorBook = { watermarks: new Map(Object.entries(file.watermarks)), counters: new Map() };
    for (const c of file.counters) {
      book.counters.set(seriesKey(c.name, c.labels), { name: c.name, labels: c.labels, value: c.value, timestampMs: c.timestampMs });
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

  /** Writes the collector's watermarks and counters in one atomic file. */
  save(store: LedgerStorage, collector: string): Promise<void> {
    return store.save(ledgerFileName(collector), this.serialise(collector));
  }

  private book(collector: string): CollectorBook {
    let book = this.books.get(collector);
    if (!book) {
      book = { watermarks: new Map(), counters: new Map() };
      this.books.set(collector, book);
    }
    return book;
  }
}
