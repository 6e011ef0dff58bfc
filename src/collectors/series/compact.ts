// What a target's answers leave for the count while the cycle waits for its
// other targets. The count needs the upstream's clock, read over every
// answer of the cycle (answer.ts), so it cannot run as a target's answers
// arrive; holding the parsed answers until then cost ~13 KB per series at
// 100k series (issue 12: a 1.8 GB daemon), most of it points the count never
// reads. So, per answer, only what the count reads is kept:
// - where its points lie (answerBounds), taken over every series on arrival;
// - per counter series, the summary of its view (width, points outside the
//   range, holes, first and last point in range: read-buckets.ts), also taken
//   on arrival, and its points in range from its first uncounted bucket on.
//   A main request spans the summary window of the gauges (an hour of minutes
//   by default) while a counter has a bucket or two to count, so most points
//   shape the view and are never added;
// - those points, one series after another, in the narrowest typed array
//   that holds them exactly (times as int32 offsets from the first when every
//   one is a safe integer within 24 days of it, values as int32 when every
//   one is an integer in range, else float64; a null value as a sentinel, or
//   NaN in float64). A series that holds a NaN value is kept as it came, so
//   the round trip is exact whatever an answer holds.
// An audit's answer keeps every point (no plan trims it): it reads older
// buckets. Expanded back to points one target at a time. Pure.
import type { Plan, RawPoint } from '../buckets.js';
import { viewSeries } from '../contract/series-view.js';
import { answerBounds, pieceSpan, type CounterSpec, type Piece } from './answer.js';
import { countView, type CountView } from './read-buckets.js';

/** One answer's counter series, in its specs' order. */
export interface CompactAnswer {
  /** Every series' point times, one after another: offsets from `base` (Int32Array), or the times themselves (Float64Array). */
  readonly times: Int32Array | Float64Array;
  /** What an Int32Array of times is offset from. */
  readonly base: number;
  /** Every series' values, in the order of `times`: null as INT_NULL (Int32Array) or NaN (Float64Array). */
  readonly values: Int32Array | Float64Array;
  /** Where each series' points begin (in points); -1: the answer does not carry it. One more entry ends the last. */
  readonly starts: Int32Array;
  /** Series holding a NaN value, kept as they came (none in practice). */
  readonly kept?: ReadonlyMap<number, readonly RawPoint[]>;
  /** Per series, its view's summary (VIEW_FIELDS numbers each; NaN for none), where only its points from its first uncounted bucket on are kept. */
  readonly views?: Float64Array;
}

/** What a trimmed answer keeps of each series' view: width, outside, holes, first, last. */
const VIEW_FIELDS = 5;

/** How to trim an answer: its request's span, the bucket size, and from where each series (by spec index) may still be counted (undefined: nothing to count). */
export interface Trim {
  readonly span: { readonly begin: number; readonly end: number };
  readonly size: number;
  readonly from: ReadonlyArray<number | undefined>;
}

/** A null value in an Int32Array of values (no value stored there is this). */
const INT_NULL = -2147483648;
const INT_MAX = 2147483647;

const fitsInt = (n: number): boolean => Number.isInteger(n) && n > INT_NULL && n <= INT_MAX && !Object.is(n, -0);

/** One answer's counter series, every spec's `points` read once; with `trim`, only what the count reads of them. */
export function compactAnswer<R>(specs: readonly CounterSpec<R>[], response: R, trim?: Trim): CompactAnswer {
  let views: Float64Array | undefined;
  const all = specs.map((s, i) => {
    const points = s.points(response);
    if (trim === undefined || points === undefined || points.some(([, v]) => v !== null && Number.isNaN(v))) return points;
    const view = countView(viewSeries(points, trim.span, trim.size, s.finerBuckets === true), trim.from[i] ?? Infinity);
    (views ??= new Float64Array(specs.length * VIEW_FIELDS).fill(Number.NaN)).set(
      [view.width, view.outside, view.holes, view.first ?? Number.NaN, view.last ?? Number.NaN], i * VIEW_FIELDS,
    );
    return view.points;
  });
  const starts = new Int32Array(specs.length + 1);
  let size = 0;
  let base: number | undefined;
  let intTimes = true;
  let intValues = true;
  let kept: Map<number, readonly RawPoint[]> | undefined;
  all.forEach((points, i) => {
    if (points === undefined) return;
    if (points.some(([, v]) => v !== null && Number.isNaN(v))) {
      (kept ??= new Map()).set(i, points);
      return;
    }
    size += points.length;
    for (const [t, v] of points) {
      base ??= t;
      if (intTimes && !(Number.isSafeInteger(t) && !Object.is(t, -0) && fitsInt(t - base))) intTimes = false;
      if (intValues && v !== null && !fitsInt(v)) intValues = false;
    }
  });
  const offset = intTimes ? (base ?? 0) : 0;
  const times = intTimes ? new Int32Array(size) : new Float64Array(size);
  const values = intValues ? new Int32Array(size) : new Float64Array(size);
  const none = intValues ? INT_NULL : Number.NaN;
  let at = 0;
  all.forEach((points, i) => {
    if (points === undefined) {
      starts[i] = -1;
      return;
    }
    starts[i] = at;
    if (kept?.has(i) === true) return;
    for (const [t, v] of points) {
      times[at] = t - offset;
      values[at++] = v ?? none;
    }
  });
  starts[specs.length] = at;
  return { times, base: offset, values, starts, ...(kept === undefined ? {} : { kept }), ...(views === undefined ? {} : { views }) };
}

/** The i-th series as the count reads it, where the answer kept its view; undefined otherwise (read its points). */
export function seriesViewOf(answer: CompactAnswer, i: number): CountView | undefined {
  const { views } = answer;
  const width = views?.[i * VIEW_FIELDS];
  if (views === undefined || width === undefined || Number.isNaN(width)) return undefined;
  const points = expandSeries(answer, i);
  if (points === undefined) return undefined;
  const at = (k: number): number | undefined => {
    const n = views[i * VIEW_FIELDS + k] ?? Number.NaN;
    return Number.isNaN(n) ? undefined : n;
  };
  return { width, outside: at(1) ?? 0, holes: at(2) ?? 0, first: at(3), last: at(4), points };
}

/** The i-th series' points, as the answer carried them. */
export function expandSeries(answer: CompactAnswer, i: number): readonly RawPoint[] | undefined {
  const kept = answer.kept?.get(i);
  if (kept !== undefined) return kept;
  const begin = answer.starts[i] ?? -1;
  if (begin < 0) return undefined;
  let end = answer.times.length;
  for (let j = i + 1; j < answer.starts.length; j++) {
    const next = answer.starts[j] ?? -1;
    if (next >= 0) {
      end = next;
      break;
    }
  }
  const { times, values, base } = answer;
  const none = values instanceof Int32Array ? INT_NULL : Number.NaN;
  // Float64 times are the times themselves (adding a base of 0 would turn a -0 into 0).
  const offset = times instanceof Int32Array;
  const out: RawPoint[] = [];
  for (let k = begin; k < end; k++) {
    const t = times[k] ?? Number.NaN;
    const v = values[k] ?? none;
    out.push([offset ? t + base : t, Object.is(v, none) ? null : v]);
  }
  return out;
}

/**
 * A spec over compact answers: it reads its own series back (a fresh array
 * per call). A class, not a copy with a new `points` closure: a cycle holds
 * one per counter series until it closes, and a closure (with the name
 * property a build may give it) costs several times the object.
 */
class CompactSpec implements CounterSpec<CompactAnswer> {
  readonly family: string;
  readonly labels: CounterSpec<CompactAnswer>['labels'];
  readonly key: string;
  readonly metric: string;
  readonly finerBuckets?: boolean;

  constructor(spec: CounterSpec<unknown>, private readonly index: number) {
    this.family = spec.family;
    this.labels = spec.labels;
    this.key = spec.key;
    this.metric = spec.metric;
    if (spec.finerBuckets !== undefined) this.finerBuckets = spec.finerBuckets;
  }

  points(answer: CompactAnswer): readonly RawPoint[] | undefined {
    return expandSeries(answer, this.index);
  }

  view(answer: CompactAnswer): CountView | undefined {
    return seriesViewOf(answer, this.index);
  }
}

export function compactSpecs<R>(specs: readonly CounterSpec<R>[]): CounterSpec<CompactAnswer>[] {
  return specs.map((s, i) => new CompactSpec(s as CounterSpec<unknown>, i));
}

/**
 * A target's answers for its count, each trimmed by its series' plans: the
 * answer's bounds and each series' view are taken first, over every point.
 */
export function compactPieces<R>(
  specs: readonly CounterSpec<R>[], pieces: readonly Piece<R>[], plans: ReadonlyMap<string, Plan>, size: number,
): Piece<CompactAnswer>[] {
  const from = specs.map((s) => {
    const plan = plans.get(s.key);
    return plan?.kind === 'count' ? plan.from : undefined;
  });
  return pieces.map((p) => {
    if (p.response === undefined) return { ...p, response: undefined };
    const bounds = answerBounds(p, specs, size);
    return { ...p, bounds, response: compactAnswer(specs, p.response, { span: pieceSpan(p, size), size, from }) };
  });
}

/** Every series of one target's answers expanded once, for a count that reads each several times. */
export type Expanded = ReadonlyArray<{ readonly points: readonly RawPoint[]; readonly view: CountView | undefined } | undefined>;

export function expandPieces(specs: readonly CounterSpec<CompactAnswer>[], pieces: readonly Piece<CompactAnswer>[]): {
  specs: CounterSpec<Expanded>[]; pieces: Piece<Expanded>[];
} {
  return {
    specs: specs.map((s, i): CounterSpec<Expanded> => ({
      family: s.family, labels: s.labels, key: s.key, metric: s.metric, ...(s.finerBuckets === undefined ? {} : { finerBuckets: s.finerBuckets }),
      points: (answer) => answer[i]?.points,
      view: (answer) => answer[i]?.view,
    })),
    pieces: pieces.map((p) => {
      const answer = p.response;
      return {
        ...p,
        response: answer === undefined ? undefined : specs.map((_, i) => {
          const points = expandSeries(answer, i);
          return points === undefined ? undefined : { points, view: seriesViewOf(answer, i) };
        }),
      };
    }),
  };
}
