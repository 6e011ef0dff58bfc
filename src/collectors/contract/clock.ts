// clock_offset: how far the upstream's newest bucket is from ours. The
// upstream lists buckets up to its own "now", so the newest point of an
// answer that reaches our now says where its clock (or its ingest) stands.
// One judgement, pure, shared by `doctor` (src/doctor/clock.ts) and the
// run-time count (series/answer.ts), so what the doctor finds on day one and
// what the daemon counts later agree. Counted in whole buckets: within one
// either way, the newest bucket may simply not have begun upstream yet, or
// the request crossed a bucket boundary on its way.
import { DAY_MS, MINUTE_MS } from '../../api/index.js';
import { MAX_LAG_MS } from '../../config/duration.js';
import { seconds, type Mismatch } from './checks.js';

/**
 * How far back an offset is looked for: `doctor` widens its search up to this
 * (src/doctor/clock.ts), and a cycle whose answers are empty looks back this
 * far once an hour (series/lookback.ts).
 */
export const CLOCK_SEARCH_BACK_MS = DAY_MS;

export type ClockOffset =
  | { readonly kind: 'in_step'; /** -1, 0 or 1. */ readonly buckets: number }
  | {
    readonly kind: 'behind';
    readonly buckets: number;
    readonly offsetMs: number;
    /** The delay that covers the offset on top of the configured one, rounded up to 5 minutes (or the bucket), at most the longest a delay may be. */
    readonly delayMs: number;
    /** True when even the longest delay (1d) does not cover it. */
    readonly beyondDelay: boolean;
  }
  | { readonly kind: 'ahead'; /** Positive: how many buckets ahead. */ readonly buckets: number; readonly offsetMs: number };

/**
 * `behindMs`: the start of our bucket minus the start of the upstream's
 * newest (negative when the upstream lists buckets after ours). `delayMs`:
 * the collector's configured delay.
 */
export function judgeClockOffset(input: { readonly behindMs: number; readonly size: number; readonly delayMs: number }): ClockOffset {
  const { size } = input;
  const buckets = Math.round(input.behindMs / size);
  if (Math.abs(buckets) <= 1) return { kind: 'in_step', buckets };
  if (buckets < 0) return { kind: 'ahead', buckets: -buckets, offsetMs: -buckets * size };
  const offsetMs = buckets * size;
  // Rounded up to 5 minutes (or the bucket): a request that crosses a bucket boundary reads one bucket less, and the advice must not depend on that.
  const step = Math.max(5 * MINUTE_MS, size);
  const delayMs = Math.ceil((offsetMs + input.delayMs) / step) * step;
  return { kind: 'behind', buckets, offsetMs, delayMs: Math.min(delayMs, MAX_LAG_MS), beyondDelay: delayMs > MAX_LAG_MS };
}

/** The run-time finding: a clock more than a bucket behind (ahead cannot show in answers that end at our now). */
export function clockMismatch(offset: ClockOffset, field: string): Mismatch | undefined {
  if (offset.kind !== 'behind') return undefined;
  return {
    check: 'clock_offset', field,
    assumed: 'the newest point of an answer ending now is our current bucket (to within one)',
    seen: `the newest point is ${offset.buckets} bucket(s) (${seconds(offset.offsetMs)}) behind it: the upstream's clock or ingest runs behind ours ` +
      '(or it reads beginTime/endTime in another zone: edge-exporter doctor tells which); buckets are counted once settled by its clock, ' +
      'and the data lag shows the difference',
    configKey: 'delay', suggest: seconds(offset.delayMs),
  };
}
