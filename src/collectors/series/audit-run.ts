// Running the audit of one cycle: one request per target for the buckets its
// series counted within lookback, compared with what the counters hold
// (audit.ts), and the outcome folded into the cycle's output. A failed audit
// request costs nothing but that audit: the buckets are compared next time.
import type { CollectorLogger, CollectOutput } from '../types.js';
import type { AuditBook } from './audit.js';
import type { CounterSpec } from './count.js';
import type { Grid } from './options.js';
import { asError } from './output.js';
import { spanOf, type TimeSpan } from './window.js';

export interface AuditUnit<R> {
  readonly specs: readonly CounterSpec<R>[];
  send(span: TimeSpan, kind: 'backfill'): Promise<R>;
  readonly log: CollectorLogger;
}

/** The cycle's output with the audit's corrections, late revisions and tally; unchanged when no audit is due. */
export async function audited<R>(
  book: AuditBook, units: readonly AuditUnit<R>[], grid: Grid, now: number, output: CollectOutput,
): Promise<CollectOutput> {
  if (!book.due(now)) return output;
  const results = await Promise.all(units.map(async (unit) => {
    const range = book.range(unit.specs.map((s) => s.key));
    if (range === undefined) return undefined;
    const span = spanOf(range, grid);
    try {
      return book.compare(unit.specs, await unit.send(span, 'backfill'), span, grid, now);
    } catch (err) {
      unit.log.debug({ err: asError(err) }, 'audit request failed; these buckets are compared next time');
      return undefined;
    }
  }));
  const done = results.filter((r) => r !== undefined);
  const match = done.reduce((n, r) => n + r.match, 0);
  const revised = done.reduce((n, r) => n + r.revised, 0);
  return {
    ...output,
    increments: [...output.increments, ...done.flatMap((r) => r.corrections)],
    mismatches: [...(output.mismatches ?? []), ...done.flatMap((r) => r.revisions)],
    audit: { match, revised },
  };
}
