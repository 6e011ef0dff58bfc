// How one series of one answer lines up with the range it was asked for. Pure.
//
// The document fixes neither the bucket a trend answers in (logTread picks its
// own from the range) nor whether the upstream honours the range or lists zero
// buckets, so the answer is read as it is: the bucket width is the greatest
// common spacing of its points; a point belongs to the range when its bucket
// overlaps [begin, end) (a coarse bucket may start before `begin`); anything
// else is outside the range and never counted.
import { INTERVAL_MS, type RawPoint } from '../buckets.js';

/** Where a series' points lie against the range asked for. */
export interface SeriesLayout {
  /** Points whose bucket overlaps the range, one per start time (the last listed wins), oldest first. */
  readonly inRange: readonly RawPoint[];
  /** The upstream's bucket width in ms: the points' common spacing, or the asked size with fewer than two points. */
  readonly width: number;
  /** Points outside the range asked for (before it, or at or after its end). */
  readonly outside: number;
  /** Buckets of `width` missing between the first and the last point in range. */
  readonly holes: number;
}

/**
 * `ownWidth`: the request names no interval (logTread), so the upstream picks
 * the bucket and even a lone point's width is inferred; a statistics request
 * names its interval, and a lone point is taken to be of that size.
 */
export function layoutOf(points: readonly RawPoint[], span: { readonly begin: number; readonly end: number }, size: number, ownWidth = false): SeriesLayout {
  const byStart = new Map<number, number | null>();
  for (const [t, v] of points) if (Number.isFinite(t)) byStart.set(t, v);
  const times = [...byStart.keys()].filter((t) => t < span.end).sort((a, b) => a - b);
  const width = spacing(times) ?? (ownWidth ? loneWidth(times, span, size) : size);
  const inRange: RawPoint[] = [];
  for (const t of times) if (t + width > span.begin) inRange.push([t, byStart.get(t) ?? null]);
  const outside = byStart.size - inRange.length;
  const first = inRange[0]?.[0];
  const last = inRange.at(-1)?.[0];
  const holes = first === undefined || last === undefined ? 0 : Math.round((last - first) / width) + 1 - inRange.length;
  return { inRange, width, outside, holes };
}

/** The bucket sizes an upstream plausibly uses (the document's intervals). */
const WIDTHS: readonly number[] = Object.values(INTERVAL_MS);

/**
 * One point gives no spacing. Zero buckets are listed (the document's sample,
 * checked as missing_buckets), so the bucket after a lone point would be
 * listed if it had begun, or, from an upstream that lists a bucket only once
 * it is complete, if it had ended: it ends after the range (t + 2w > end); and
 * the bucket before it began before the range, or it would be listed too: its
 * width is the smallest plausible one that does both (and that reaches into
 * the range, for a point that starts before it). A later answer with two
 * points confirms it.
 */
function loneWidth(times: readonly number[], span: { readonly begin: number; readonly end: number }, size: number): number {
  const t = times[0];
  if (t === undefined) return size;
  return WIDTHS.find((w) => w >= size && t + 2 * w > span.end && t + w > span.begin && t - w < span.begin) ?? size;
}

/** Greatest common divisor of the gaps between sorted times; undefined with fewer than two (the WAF delivery audit reads its grid so too). */
export function spacing(sorted: readonly number[]): number | undefined {
  let g: number | undefined;
  for (let i = 1; i < sorted.length; i++) {
    const gap = (sorted[i] ?? 0) - (sorted[i - 1] ?? 0);
    g = g === undefined ? gap : gcd(g, gap);
  }
  return g;
}

function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y > 0) [x, y] = [y, x % y];
  return x;
}
