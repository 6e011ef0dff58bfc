// A series collector's shape around the driver (collect.ts): its options
// checked once, its request estimate, and the state it keeps from cycle to
// cycle besides the watermarks (the audit's record, the upstream's clock).
import type { CollectContext, Collector, CollectOutput, TargetCounts } from '../collector.js';
import type { UpstreamClock } from './answer.js';
import { AuditRecord, NO_AUDIT } from './audit.js';
import { checkSeriesOptions, nonNegative, type SeriesOptions } from './options.js';

/** What a series collector keeps from cycle to cycle besides the watermarks. */
export interface SeriesState {
  readonly audit: AuditRecord;
  /** The upstream's clock as the last cycle's answers showed it: the fallback of a probe that shows none. */
  clock: UpstreamClock | undefined;
}

/**
 * A series collector: its options checked once, and its state, which lives as
 * long as it does. `summaryWindowMs`, where a collector has one, is the
 * window of its summary gauges.
 */
export function seriesCollector(
  shape: Omit<Collector, 'collect' | 'requests'>,
  options: SeriesOptions & { readonly summaryWindowMs?: number },
  collect: (ctx: CollectContext, state: SeriesState) => Promise<CollectOutput>,
  targets: (counts: TargetCounts) => TargetRequests,
): Collector {
  checkSeriesOptions(shape.name, options);
  if (options.summaryWindowMs !== undefined) nonNegative(shape.name, 'summaryWindowMs', options.summaryWindowMs);
  const state: SeriesState = { audit: new AuditRecord(options.audit ?? NO_AUDIT), clock: undefined };
  const everyMs = options.audit?.everyMs ?? 0;
  return {
    ...shape,
    collect: (ctx) => collect(ctx, state),
    requests: (counts) => {
      const { requests, counted } = targets(counts);
      // An audit asks once more for each target with counter series (close.ts).
      return { run: requests, ...(everyMs > 0 && counted > 0 ? { audit: { requests: counted, everyMs } } : {}) };
    },
  };
}

/** A cycle's targets for the request estimate: requests of the main span, and how many of them carry counter series (each audited). */
interface TargetRequests {
  readonly requests: number;
  readonly counted: number;
}
