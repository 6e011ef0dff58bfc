// The clock look-back: a cycle whose answers held no point at all cannot say
// where the upstream's clock stands (answer.ts reads it off the newest point),
// and an upstream hours behind answers every range a cycle asks with nothing.
// Then, at most once an hour per collector, one target's series are asked
// once more over the day before (CLOCK_SEARCH_BACK_MS, the widest range
// `doctor` searches, within a request's bucket cap), and the newest point of
// that answer is judged as doctor judges it. The look-back only judges: it
// never counts a bucket (count.ts keeps counting each bucket once).
import { HOUR_MS } from '../../api/index.js';
import { alignDown } from '../buckets.js';
import { CLOCK_SEARCH_BACK_MS } from '../contract/clock.js';
import { bucketMs, type Grid } from './options.js';
import { MAX_BUCKETS_PER_REQUEST, type BucketRange, type TimeSpan } from './window.js';

/** At most one look-back per collector in this long: a few extra requests, never one a cycle. */
const LOOK_BACK_EVERY_MS = HOUR_MS;

/** Of a cycle whose answers held no point (with one, answer.ts reads the clock). */
interface LookBackInput {
  /** True when at least one target with counter series got an answer (all failed: the failure is reported, not the clock). */
  readonly answered: boolean;
  /** When the collector last looked back; undefined: never. */
  readonly lastMs: number | undefined;
  readonly now: number;
}

/** Whether this cycle looks back. Pure. */
export function lookBackDue(input: LookBackInput): boolean {
  if (!input.answered) return false;
  return input.lastMs === undefined || input.now - input.lastMs >= LOOK_BACK_EVERY_MS;
}

/** The look-back's request: the day before up to now, at most a request's bucket cap. */
export function lookBackRange(now: number, grid: Grid): { readonly range: BucketRange; readonly span: TimeSpan } {
  const size = bucketMs(grid);
  const current = alignDown(grid.interval, now, grid.offsetMinutes);
  const first = Math.max(current - CLOCK_SEARCH_BACK_MS, current - (MAX_BUCKETS_PER_REQUEST - 1) * size);
  return { range: { first, last: current }, span: { begin: first, end: now } };
}
