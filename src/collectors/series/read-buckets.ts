// One series of one answer read into configured buckets, and what it says
// about the assumptions. Pure; shared by counting (count.ts) and the audit
// (audit.ts), so a bucket is read the same way when it is counted and when it
// is checked again.
import { alignDown, type RawPoint } from '../buckets.js';
import { seconds, type Mismatch } from '../contract/checks.js';
import { viewSeries, type SeriesView } from '../contract/series-view.js';
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

/**
 * One series of one answer as the count reads it: the summary of its view
 * (series-view.ts) and the points in range that a count may add. A compact
 * answer takes it on arrival and keeps only the points from the series' first
 * uncounted bucket on (compact.ts): the older points of a summary window
 * shape the view but are never counted.
 */
export interface CountView {
  readonly width: number;
  readonly outside: number;
  readonly holes: number;
  /** Start of the oldest point in range; undefined when no point is. */
  readonly first: number | undefined;
  /** Start of the newest point in range. */
  readonly last: number | undefined;
  /** Points in range, one per start, oldest first: all of them, or those from some start on. */
  readonly points: readonly RawPoint[];
}

/** The view's summary, with its points in range from `from` on (all of them by default). */
export function countView(view: SeriesView, from = -Infinity): CountView {
  const { inRange } = view;
  let at = 0;
  while (at < inRange.length && (inRange[at]?.[0] ?? Infinity) < from) at++;
  return {
    width: view.width, outside: view.outside, holes: view.holes,
    first: inRange[0]?.[0], last: inRange.at(-1)?.[0], points: at === 0 ? inRange : inRange.slice(at),
  };
}

/** A series of an answer as the count reads it: the view its spec kept on arrival, or one read from its points; undefined when the answer does not carry it. */
export function seriesView<R>(spec: CounterSpec<R>, response: R, span: TimeSpan, size: number): CountView | undefined {
  const kept = spec.view?.(response);
  if (kept !== undefined) return kept;
  const points = spec.points(response);
  return points === undefined ? undefined : countView(viewSeries(points, span, size, spec.finerBuckets === true));
}

export interface BucketRead {
  /** Start of the last bucket the answer lets the watermark pass; below `pos` when it passes none. */
  readonly reach: number;
  /** Configured bucket start -> value, for the buckets from `pos` to `reach` that carried a value. */
  readonly values: Map<number, number>;
  /** Points refused, by reason (negative, not finite), among the buckets read. */
  readonly rejected: RejectTally;
  readonly view: CountView;
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
  view: CountView, span: TimeSpan, grid: Grid,
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
  const { width } = view;
  // The configured bucket holding a point's last instant: a coarse bucket counts once all of it is in.
  const lastBucketOf = (t: number): number => alignDown(grid.interval, t + Math.max(width, 1) - 1, grid.offsetMinutes);
  let reach = to;
  let coarseWait = false;
  const anchor = view.first;
  if (anchor !== undefined && width > size) {
    const coarse = anchor + Math.floor((to - anchor) / width) * width;
    if (lastBucketOf(coarse) > to) {
      reach = alignDown(grid.interval, coarse, grid.offsetMinutes) - size;
      coarseWait = reach < pos;
    }
  }
  const newestPoint = view.last;
  const own = newestPoint === undefined ? -Infinity : lastBucketOf(newestPoint);
  const other = at.evidence === undefined ? -Infinity : alignDown(grid.interval, at.evidence, grid.offsetMinutes);
  const reported = Math.max(own, other);
  reach = Math.min(reach, reported);
  // An answer that begins after the first bucket due (the range read in another zone) says nothing of the buckets before it.
  const oldest = Math.min(view.first ?? Infinity, at.answerFrom ?? Infinity);
  const begunLater = Number.isFinite(oldest) && alignDown(grid.interval, oldest, grid.offsetMinutes) > pos && oldest >= span.begin;
  // Unless it begins with the first coarse bucket that begins inside the range: an upstream that lists only those (not the one
  // holding `begin`) answers so. Its buckets wait for a range that begins on its grid (waf-trend asks one once it has seen it).
  const strictCoarse = begunLater && width > size && view.first === oldest && oldest - width < span.begin;
  const lateStart = begunLater && !strictCoarse;
  if (begunLater) reach = pos - size;
  if (strictCoarse) coarseWait = true;
  const values = new Map<number, number>();
  const rejected = emptyTally();
  for (const [t, v] of view.points) {
    const bucket = alignDown(grid.interval, t, grid.offsetMinutes);
    if (bucket < pos || lastBucketOf(t) > reach || v === null) continue;
    const reason = rejectReason(v);
    if (reason !== undefined) {
      rejected[reason]++;
      continue;
    }
    values.set(bucket, (values.get(bucket) ?? 0) + v);
  }
  return { reach, values, rejected, view, unreported: reported < pos, lateStart, coarseWait: coarseWait && !lateStart && reported >= pos };
}

/** What one series of one answer contradicts; `finerBuckets` for trends whose request names no interval (logTread). */
export function seriesFindings(
  series: { readonly metric: string; readonly finerBuckets?: boolean }, read: BucketRead, span: TimeSpan, size: number,
): Mismatch[] {
  const { view } = read;
  const out: Mismatch[] = [];
  const range = `[${iso(span.begin)}, ${iso(span.end)})`;
  if (view.width !== size && (view.width > size || series.finerBuckets !== true)) {
    out.push({
      check: 'bucket_width', field: series.metric, assumed: `${seconds(size)} buckets (the interval asked for)`, seen: `${seconds(view.width)} buckets`,
      configKey: 'interval', suggest: seconds(view.width),
    });
  }
  if (view.outside > 0) {
    out.push({
      check: 'out_of_range', field: series.metric, assumed: `points inside the range asked for, ${range}`,
      seen: `${view.outside} point(s) outside it (not counted)`, configKey: 'upstream.timezone',
    });
  }
  if (read.lateStart) {
    out.push({
      check: 'out_of_range', field: series.metric, assumed: `points from the start of the range asked for, ${range}`,
      seen: `the first point is at ${iso(view.first ?? span.begin)}: the buckets before it wait (the range read in another zone?)`,
      configKey: 'upstream.timezone',
    });
  }
  if (view.first === undefined && read.unreported) {
    out.push({
      check: 'out_of_range', field: series.metric, assumed: `points inside the range asked for, ${range}`,
      seen: 'no point inside it: the buckets wait (a clock behind ours, or the range read in another zone)', configKey: 'upstream.timezone',
    });
  } else if (view.first === undefined) {
    out.push({ check: 'missing_buckets', field: series.metric, assumed: 'every bucket listed, zeros included', seen: 'an empty series while other answers reach its range' });
  } else if (view.holes > 0) {
    out.push({ check: 'missing_buckets', field: series.metric, assumed: 'every bucket listed, zeros included', seen: `${view.holes} bucket(s) left out between points` });
  }
  return out;
}

const iso = (ms: number): string => new Date(ms).toISOString();
