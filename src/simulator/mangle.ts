// Body-shape faults: the real answer, rewritten the way a broken upstream
// might send it. Only the payload (`data`, or `rows` where there is no data)
// changes; the envelope stays valid, so a client has to look inside to notice.
// Pure: the same input, seed and time give the same output, and the input is
// never modified.
//
// A "point" is the document's time-series point, [epoch ms, number or null];
// an array of points is a non-empty array whose every element is one (an
// empty series cannot be told apart from any other empty list). The
// statistics operations (4-8) and the WAF logTread all answer points in this
// one shape, so the point faults need no per-operation knowledge.
import { hash32, Rng } from './rng.js';

interface Mangling {
  /** Every leaf of the payload replaced by a value of another type. */
  readonly wrongTypes: boolean;
  /** Pad the payload's longest array to this many entries (0: off). */
  readonly hugeArray: number;
  /** Every point appears twice, each copy right after its original. */
  readonly duplicatePoints: boolean;
  /** Shuffle every array of points with this seed (undefined: off). */
  readonly shuffleSeed: number | undefined;
  /** Append this many points after `now` to every array of points (0: off). */
  readonly futurePoints: number;
  /** Every point of the arrays of points under this key (e.g. `requestCounter`) made negative: -(value + 1) (undefined: off). */
  readonly negativeSeries?: string | undefined;
  /** Simulator time of the answer, for futurePoints. */
  readonly now: number;
}

/** Value of the i-th future point: far above any real bucket, so counting one cannot go unnoticed. */
export const FUTURE_POINT_VALUE = 1_000_000_000_000;
/** Bucket step of the future points when a series has fewer than two points to show its own. */
const DEFAULT_STEP_MS = 60_000;

export function payloadKey(body: Record<string, unknown>): 'data' | 'rows' | undefined {
  return 'data' in body ? 'data' : 'rows' in body ? 'rows' : undefined;
}

/** The body with its payload rewritten; any other body (no payload, not an object) as it was. */
export function mangleBody(body: unknown, m: Mangling): unknown {
  const any = m.wrongTypes || m.hugeArray > 0 || m.duplicatePoints || m.shuffleSeed !== undefined || m.futurePoints > 0 || m.negativeSeries !== undefined;
  if (!any || !isRecord(body)) return body;
  const key = payloadKey(body);
  if (key === undefined) return body;
  // Point faults first (on the real points), then padding, then types over all of it.
  let payload = body[key];
  if (m.negativeSeries !== undefined) payload = mapNamedPointArrays(payload, m.negativeSeries, negated);
  if (m.futurePoints > 0) payload = mapPointArrays(payload, (points) => withFuturePoints(points, m.futurePoints, m.now));
  if (m.duplicatePoints) payload = mapPointArrays(payload, (points) => points.flatMap((p) => [p, [...p] as Point]));
  if (m.shuffleSeed !== undefined) {
    let n = 0;
    const seed = m.shuffleSeed;
    payload = mapPointArrays(payload, (points) => shuffled(points, hash32(seed, n++)));
  }
  if (m.hugeArray > 0) payload = padLongestArray(payload, m.hugeArray);
  if (m.wrongTypes) payload = wrongTypes(payload);
  return { ...body, [key]: payload };
}

type Point = [number, number | null];

/** The body with every zero point left out of every series (the omitZeroBuckets reading); other bodies as they were. */
export function withoutZeroPoints(body: unknown): unknown {
  if (!isRecord(body)) return body;
  const key = payloadKey(body);
  if (key === undefined) return body;
  return { ...body, [key]: mapPointArrays(body[key], (points) => points.filter(([, v]) => v !== 0)) };
}

function isPoint(v: unknown): v is Point {
  return Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && Number.isFinite(v[0]) && (typeof v[1] === 'number' || v[1] === null);
}

function isPointArray(v: unknown): v is Point[] {
  return Array.isArray(v) && v.length > 0 && v.every(isPoint);
}

/** Rebuilds `v` with every array of points replaced by `f` of it. */
function mapPointArrays(v: unknown, f: (points: Point[]) => Point[]): unknown {
  if (isPointArray(v)) return f(v);
  if (Array.isArray(v)) return v.map((x) => mapPointArrays(x, f));
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapPointArrays(x, f)]));
  return v;
}

/** Like mapPointArrays, for the arrays of points held under the key `name` only. */
function mapNamedPointArrays(v: unknown, name: string, f: (points: Point[]) => Point[]): unknown {
  if (Array.isArray(v)) return v.map((x) => mapNamedPointArrays(x, name, f));
  if (!isRecord(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === name && isPointArray(x) ? f(x) : mapNamedPointArrays(x, name, f)]));
}

/** Every value below zero, a zero too (-1), so each point served is one a counter must refuse; null stays a gap. */
function negated(points: Point[]): Point[] {
  return points.map(([t, v]): Point => [t, v === null ? null : -(v + 1)]);
}

/**
 * `count` more points on the series' own grid (its last step, or a minute),
 * every one starting after `now`: what an upstream with a skewed clock, or
 * one that pre-fills buckets, would send.
 */
function withFuturePoints(points: Point[], count: number, now: number): Point[] {
  const sorted = points.map((p) => p[0]).sort((a, b) => a - b);
  const newest = sorted.at(-1) ?? now;
  const step = stepOf(sorted);
  const first = newest + step * Math.max(1, Math.floor((now - newest) / step) + 1);
  const extra = Array.from({ length: count }, (_, i): Point => [first + i * step, FUTURE_POINT_VALUE * (i + 1)]);
  return [...points, ...extra];
}

function stepOf(sortedTimes: readonly number[]): number {
  const last = sortedTimes.at(-1);
  const before = sortedTimes.at(-2);
  return last !== undefined && before !== undefined && last > before ? last - before : DEFAULT_STEP_MS;
}

/** A seeded Fisher-Yates shuffle; an order that comes out unchanged is reversed instead, so the fault always shows. */
function shuffled(points: Point[], seed: number): Point[] {
  const out = [...points];
  const rng = new Rng(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j] as Point, out[i] as Point];
  }
  return out.every((p, i) => p === points[i]) ? [...points].reverse() : out;
}

/** The first longest array (depth first) padded to `n` entries by repeating its elements in order; shorter than n only if it is empty. */
function padLongestArray(v: unknown, n: number): unknown {
  const target = longestArray(v);
  if (target === undefined || target.length === 0 || target.length >= n) return v;
  const padded = Array.from({ length: n }, (_, i) => target[i % target.length]);
  return replace(v, target, padded);
}

function longestArray(v: unknown): unknown[] | undefined {
  let best: unknown[] | undefined;
  const visit = (x: unknown): void => {
    if (Array.isArray(x)) {
      if (best === undefined || x.length > best.length) best = x;
      x.forEach(visit);
    } else if (isRecord(x)) {
      Object.values(x).forEach(visit);
    }
  };
  visit(v);
  return best;
}

function replace(v: unknown, target: unknown[], by: unknown[]): unknown {
  if (v === target) return by;
  if (Array.isArray(v)) return v.map((x) => replace(x, target, by));
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replace(x, target, by)]));
  return v;
}

/**
 * Every leaf as another type: number -> a string that does not read as a
 * number (a numeric string is a legitimate spelling the client accepts),
 * string -> its length, boolean -> its text, null -> 0, [] <-> {}.
 * Non-empty arrays and objects keep their kind and keys so that every field
 * below them is reached.
 */
function wrongTypes(v: unknown): unknown {
  if (v === null) return 0;
  if (typeof v === 'number') return `#${v}`;
  if (typeof v === 'string') return v.length;
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.length === 0 ? {} : v.map(wrongTypes);
  if (isRecord(v)) {
    const entries = Object.entries(v);
    return entries.length === 0 ? [] : Object.fromEntries(entries.map(([k, x]) => [k, wrongTypes(x)]));
  }
  return v;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
