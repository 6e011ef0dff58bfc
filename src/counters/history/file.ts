// How the history is kept in the state directory: each collector's pages in
// its ledger file, beside the counters they were counted with (one atomic
// write, so after a crash both or neither are on disk), and each pipe's
// confirmations in one small file of its own.
import { z } from 'zod';

const labels = z.record(z.string(), z.string());

/**
 * Numbers per sample in a page: remote-write keeps [series, time, value];
 * OTLP metrics keeps [series, start, time, value], a point's start being its
 * bucket's (delta) or its series' (cumulative).
 */
export type Stride = 3 | 4;

function historyPageSchema(stride: Stride) {
  const layout = stride === 3 ? '[series, timestamp, value]' : '[series, start, timestamp, value]';
  return z.strictObject({
    seq: z.number().int().positive(),
    createdMs: z.number().int(),
    /** What the pipe's sampler made the page as (OTLP metrics: its temporality), so a page outlives a change of it. */
    tag: z.string().min(1).optional(),
    /** One row per sample, flat: a page holds thousands. */
    samples: z.array(z.number()).refine((a) => a.length % stride === 0, { error: `expected ${layout} rows` }),
  });
}

/** A pipe's member of a ledger file, whose rows are `stride` numbers long. */
export function historyFileSchema(stride: Stride) {
  return z.strictObject({
    /** The seq the next page gets. */
    nextSeq: z.number().int().positive(),
    /** Per gauge family, the newest time queued: after a restart no gauge sample at or before it is queued again. */
    gaugeFloors: z.record(z.string(), z.number().int()),
    /** [index, name, labels] of every series the pages hold. */
    series: z.array(z.tuple([z.number().int().nonnegative(), z.string().min(1), labels])),
    pages: z.array(historyPageSchema(stride)),
  });
}
export type HistoryFile = z.output<ReturnType<typeof historyFileSchema>>;

/** `<state_dir>/<pipe>-acks.json`: per collector, the seq of the last page the receiver confirmed or refused. */
export const acksFileSchema = z.strictObject({
  settled: z.record(z.string(), z.number().int().nonnegative()),
});
