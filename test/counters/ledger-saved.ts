// What a CounterLedger puts on disk for a collector, read through its own
// save() into memory: the production path for "what has been counted",
// pending increments included (a save makes them visible, as it does in the
// daemon).
import type { CounterLedger } from '../../src/counters/ledger.js';
import { ledgerFileSchema, type LedgerStorage } from '../../src/counters/ledger-file.js';
import type { Sample } from '../../src/collectors/collector.js';

/** The value the ledger hands the store for the collector's file, as given. */
export async function savedFile(ledger: CounterLedger, collector: string): Promise<unknown> {
  let saved: unknown;
  const store: LedgerStorage = {
    load: () => Promise.resolve(undefined),
    pathOf: (name) => `/state/${name}.json`,
    save: (_name, data) => {
      saved = data;
      return Promise.resolve();
    },
  };
  await ledger.save(store, collector);
  return saved;
}

/** Every counter series of the collector as saved, with its absolute value. */
export async function savedCounters(ledger: CounterLedger, collector: string): Promise<Sample[]> {
  const file = ledgerFileSchema.parse(await savedFile(ledger, collector));
  return file.counters.map(({ name, labels, value, timestampMs }) => (timestampMs === undefined ? { name, labels, value } : { name, labels, value, timestampMs }));
}
