// The file a collector's ledger is saved in: its schema and its name in the state directory.
import { z } from 'zod';
import type { StateStore } from '../state/store.js';
import { historyFileSchema } from './history/file.js';

const counterEntrySchema = z.strictObject({
  name: z.string().min(1),
  labels: z.record(z.string(), z.string()),
  value: z.number().finite().nonnegative(),
  timestampMs: z.number().int().optional(),
  /** Where the series started counting (epoch ms): OTLP metrics' cumulative start time. Absent in files written before it was kept. */
  startMs: z.number().int().optional(),
});

/** What one collector's state file holds (inside the store's `{ version, data }` envelope). */
export const ledgerFileSchema = z.strictObject({
  collector: z.string().min(1),
  watermarks: z.record(z.string(), z.number().int()),
  counters: z.array(counterEntrySchema),
  /** Samples counted but not yet confirmed by the remote-write receiver (remote_write on); absent otherwise. */
  history: historyFileSchema(3).optional(),
  /** Points counted but not yet confirmed by the OTLP metrics receiver (otlp_metrics on); absent otherwise. */
  otlpHistory: historyFileSchema(4).optional(),
});
export type LedgerFile = z.output<typeof ledgerFileSchema>;

/** The store operations the ledger needs. */
export type LedgerStorage = Pick<StateStore, 'load' | 'save' | 'pathOf'>;

/** State file name of a collector's ledger: `<state_dir>/ledger-<collector>.json`. */
export function ledgerFileName(collector: string): string {
  return `ledger-${collector}`;
}
