// The counters the exporter has counted so far, and the watermarks saying
// which buckets they include. Both live in ONE state file per collector and
// are written together, so after a crash they still agree: either a cycle's
// increments and its watermarks are on disk, or neither is, and the next run
// recounts exactly the buckets the counters lack. Restart continues every
// counter with no loss and no double count.
import { z } from 'zod';
import { StateError } from '../state/store.js';
import type { StateStore } from '../state/store.js';
import { CounterBook } from './counter-book.js';
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

interface CollectorBook {
  readonly watermarks: Map<string, number>;
  readonly counters: CounterBook;
}

/**
 * The collectors' counter totals, one CounterBook per collector, with the
 * watermarks. A cycle's increments are applied at once (the next cycle's
 * watermarks depend on them) but become visible through view() only when
 * save() has put them on disk, so nothing Prometheus has seen can be lost or
 * counted twice by a restart. A failed save leaves them pending; the next
 * save carries them.
 */
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
      const ok = Number.isFinite(inc.value) && inc.value >= 0 && book.counters.add(inc.name, inc.labels, inc.value, inc.timestampMs);
      if (!ok) rejected++;
    }
    for (const [key, ms] of Object.entries(output.watermarks)) book.watermarks.set(key, ms);
    return { rejected };
  }

  /** Absolute values of every counter series the collector has counted, saved or not. */
  snapshot(collector: string): Sample[] {
    return this.book(collector).counters.counted().map((e) => sample(e.name, e.labels, e.value, e.timestampMs));
  }

  /**
   * The collector's saved totals, read-only and live: what the FamilyStore
   * exposes, so the totals are held here only. The same object on every call.
   */
  view(collector: string): CounterView {
    return this.book(collector).counters.view;
  }

  serialise(collector: string): LedgerFile {
    const book = this.book(collector);
    return {
      collector,
      watermarks: Object.fromEntries(book.watermarks),
      counters: book.counters.counted().map((e) => ({
        name: e.name,
        labels: { ...e.labels },
        value: e.value,
        ...(e.timestampMs === undefined ? {} : { timestampMs: e.timestampMs }),
      })),
    };
  }

  /** Replaces the collector's state with a file's content (all of it saved). */
  restore(collector: string, file: LedgerFile): void {
    const book = this.book(collector);
    book.watermarks.clear();
    for (const [key, ms] of Object.entries(file.watermarks)) book.watermarks.set(key, ms);
    book.counters.restore(file.counters.map((c) => ({ name: c.name, labels: c.labels, value: c.value, timestampMs: c.timestampMs })));
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
    const { counters } = this.book(collector);
    const taken = counters.writing();
    await store.save(ledgerFileName(collector), this.serialise(collector));
    counters.written(taken);
  }

  private book(collector: string): CollectorBook {
    let book = this.books.get(collector);
    if (!book) {
      book = { watermarks: new Map(), counters: new CounterBook() };
      this.books.set(collector, book);
    }
    return book;
  }
}

function sample(name: string, labels: Readonly<Record<string, string>>, value: number, timestampMs: number | undefined): Sample {
  return timestampMs === undefined ? { name, labels, value } : { name, labels, value, timestampMs };
}
