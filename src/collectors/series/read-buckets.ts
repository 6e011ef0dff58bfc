// One series of one answer read into configured buckets, and what it says
// about the assumptions. Pure; shared by counting (count.ts) and the audit
// (audit.ts), so a bucket is read the same way when it is counted and when it
// is checked again.
import { alignDown } from '../buckets.js';
import { seconds, type Mismatch } from '../contract/checks.js';
import { layoutOf, type SeriesLayout } from '../contract/series-layout.js';
import type { CounterSpec } from './answer.js';
import { emptyTally, rejectReason, type RejectTally } from '../rejects.js';
import { bucketMs, type Grid } from './options.js';
import type { TimeSpan } from './window.js';

/** Buckets counted for one series in one cycle: every bucket from `from` to `to` passed; those not in `values` held no point (zero). */
export interface CountedRange {
  readonly from: number;
  readonly to: number;
  readonly values: ReadonlyArray<readonly [number, number]>;
}

/** A series of an answer laid out against the range asked for; undefined when the answer does not carry it. */
export function layoutIn<R>(spec: CounterSpec<R>, answer: R, span: TimeSpan, size: number): SeriesLayout | undefined {
  const points = spec.points(answer);
  return points === undefined ? undefined : layoutOf(points, span, size, spec.finerBuckets === true);
}

interface BucketRead {
  /** Start of the last bucket the answer lets the watermark pass; below `pos` when it passes none. */
  readonly reach: number;
  /** Configured bucket start -> value, for the buckets from `pos` to `reach` that carried a value. */
  readonly values: Map<number, number>;
  /** Points refused, by reason (negative, not finite), among the buckets read. */
  readonly rejected: RejectTally;
  readonly layout: SeriesLayout;
  /** True when no answer of the cycle has reached `pos` yet (the range was answered with nothing). */
  readonly unreported: boolean;
  /** True when the answer's points begin after `pos` (the range read later than asked): the buckets wait. */
  readonly lateStart: boolean;
  /**
   * True when nothing is due yet from this answer (idle, not uncovered): it covers `pos` with a coarse bucket that has not
   * wholly settled, or it lists only the coarse buckets beginning inside the range and the one holding `pos` began before it.
   */
  readonly coarseWait: boolean;
}

/**
 * Reads buckets `pos`..`to` (on the grid). A bucket coarser than the interval
 * counts whole, attributed to its start, once all of it is inside `to`; the
 * reach stops before a coarse bucket that is not. Nothing past the newest
 * point of the series, or of any answer of the cycle (`evidence`), is passed:
 * the upstream has not reported it yet.
 */
export function readBuckets(
  layout: SeriesLayout, span: TimeSpan, grid: Grid,
  at: {
    readonly pos: number;
    readonly to: number;
    /** Start of the newest point of any answer of the cycle. */
    readonly evidence?: number | undefined;
    /** Start of the oldest point inside the range of any series of this answer. */
    readonly answerFrom?: number | undefined;
  },
): BucketRead {
  const size = bucketMs(grid);
  const { pos, to } = at;
  const { width, inRange } = layout;
  const first = inRange[0]?.[0];
  // The configured bucket holding a point's last instant: a coarse bucket counts once all of it is in.
  const lastBucketOf = (t: number): number => alignDown(grid.interval, t + Math.max(width, 1) - 1, grid.offsetMinutes);
  let reach = to;
  let coarseWait = false;
  const anchor = first;
  if (anchor !== undefined && width > size) {
    const coarse = anchor + Math.floor((to - anchor) / width) * width;
    if (lastBucketOf(coarse) > to) {
      reach = alignDown(grid.interval, coarse, grid.offsetMinutes) - size;
      coarseWait = reach < pos;
    }
  }
  const newestPoint = inRange.at(-1)?.[0];
  const own = newestPoint === undefined ? -Infinity : lastBucketOf(newestPoint);
  const other = at.evidence === undefined ? -Infinity : alignDown(grid.interval, at.evidence, grid.offsetMinutes);
  const reported = Math.max(own, other);
  reach = Math.min(reach, reported);
  // An answer that begins after the first bucket due (the range read in another zone) says nothing of the buckets before it.
  const oldest = Math.min(first ?? Infinity, at.answerFrom ?? Infinity);
  const begunLater = Number.isFinite(oldest) && alignDown(grid.interval, oldest, grid.offsetMinutes) > pos && oldest >= span.begin;
  // Unless it begins with the first coarse bucket that begins inside the range: an upstream that lists only those (not the one
  // holding `begin`) answers so. Its buckets wait for a range that begins on its grid (waf-trend asks one once it has seen it).
  const strictCoarse = begunLater && width > size && first === oldest && oldest - width < span.begin;
  const lateStart = begunLater && !strictCoarse;
  if (begunLater) reach = pos - size;
  if (strictCoarse) coarseWait = true;
  const values = new Map<number, number>();
  const rejected = emptyTally();
  for (const [t, v] of inRange) {
    const bucket = alignDown(grid.interval, t, grid.offsetMinutes);
    if (bucket < pos || lastBucketOf(t) > reach || v === null) continue;
    const reason = rejectReason(v);
    if (reason !== undefined) {
      rejected[reason]++;
      continue;
    }
    values.set(bucket, (values.get(bucket) ?? 0) + v);
  }
  return { reach, values, rejected, layout, unreported: reported < pos, lateStart, coarseWait: coarseWait && !lateStart && reported >= pos };
}

/** What one series of one answer contradicts; `finerBuckets` for trends whose request names no interval (logTread). */
export function seriesFindings(
  series: { readonly metric: string; readonly finerBuckets?: boolean }, read: BucketRead, span: TimeSpan, size: number,
): Mismatch[] {
  const { layout } = read;
  const first = layout.inRange[0]?.[0];
  const out: Mismatch[] = [];
  const range = `[${iso(span.begin)}, ${iso(span.end)})`;
  if (layout.width !== size && (layout.width > size || series.finerBuckets !== true)) {
    out.push({
      check: 'bucket_width', field: series.metric, assumed: `${seconds(size)} buckets (the interval asked for)`, seen: `${seconds(layout.width)} buckets`,
      configKey: 'interval', suggest: seconds(layout.width),
    });
  }
  if (layout.outside > 0) {
    out.push({
      check: 'out_of_range', field: series.metric, assumed: `points inside the range asked for, ${range}`,
      seen: `${layout.outside} point(s) outside it (not counted)`, configKey: 'upstream.timezone',
    });
  }
  if (read.lateStart) {
    out.push({
      check: 'out_of_range', field: series.metric, assumed: `points from the start of the range asked for, ${range}`,
      seen: `the first point is at ${iso(first ?? span.begin)}: the buckets before it wait (the range read in another zone?)`,
      configKey: 'upstream.timezone',
    });
  }
  if (first === undefined && read.unreported) {
    out.push({
      check: 'out_of_range', field: series.metric, assumed: `points inside the range asked for, ${range}`,
      seen: 'no point inside it: the buckets wait (a clock behind ours, or the range read in another zone)', configKey: 'upstream.timezone',
    });
  } else if (first === undefined) {
    out.push({ check: 'missing_buckets', field: series.metric, assumed: 'every bucket listed, zeros included', seen: 'an empty series while other answers reach its range' });
  } else if (layout.holes > 0) {
    out.push({ check: 'missing_buckets', field: series.metric, assumed: 'every bucket listed, zeros included', seen: `${layout.holes} bucket(s) left out between points` });
  }
  return out;
}

const iso = (ms: number): string => new Date(ms).toISOString();
