// How the history is kept in the state directory: each collector's pages in
// its ledger file, beside the counters they were counted with (one atomic
// write, so after a crash both or neither are on disk), and the receiver's
// confirmations in one small file of their own.
import { z } from 'zod';

const labels = z.record(z.string(), z.string());

const historyPageSchema = z.strictObject({
  seq: z.number().int().positive(),
  createdMs: z.number().int(),
  /** [series index, timestamp ms, value] for each sample, flat: a page holds thousands. */
  samples: z.array(z.number()).refine((a) => a.length % 3 === 0, { error: 'expected [series, timestamp, value] triples' }),
});

/** The `history` member of a ledger file. */
export const historyFileSchema = z.strictObject({
  /** The seq the next page gets. */
  nextSeq: z.number().int().positive(),
  /** Per gauge family, the newest time queued: after a restart no gauge sample at or before it is queued again. */
  gaugeFloors: z.record(z.string(), z.number().int()),
  /** [index, name, labels] of every series the pages hold. */
  series: z.array(z.tuple([z.number().int().nonnegative(), z.string().min(1), labels])),
  pages: z.array(historyPageSchema),
});
export type HistoryFile = z.output<typeof historyFileSchema>;

/** `<state_dir>/remote-write-acks.json`: per collector, the seq of the last page the receiver confirmed or refused. */
export const acksFileSchema = z.strictObject({
  settled: z.record(z.string(), z.number().int().nonnegative()),
});

export const ACKS_FILE = 'remote-write-acks';
