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
// - all of it in one Float64Array per answer (a null value as NaN; -0 and
//   every time exact). A series that holds a NaN value is kept as it came, so
//   the round trip is exact whatever an answer holds. One array, not one per
//   part: each typed array is ~200 bytes of objects besides its data, and a
//   trimmed answer's data is a few hundred bytes.
// An audit's answer keeps every point (no plan trims it): it reads older
// buckets. Expanded back to points one target at a time. Pure.
import type { Plan, RawPoint } from '../buckets.js';
import { viewSeries } from '../contract/series-view.js';
import { answerBounds, pieceSpan, type CounterSpec, type Piece } from './answer.js';
import { countView, type CountView } from './read-buckets.js';

/** One answer's counter series, in its specs' order. */
export interface CompactAnswer {
  /**
   * Where each series' points begin (-1: the answer does not carry it; one
   * more entry ends the last), then, when trimmed, each series' view summary
   * (VIEW_FIELDS numbers, NaN for none), then every time, then every value.
   */
  readonly data: Float64Array;
  /** Series (specs) the answer was kept for. */
  readonly series: number;
  /** True when only the points from each series' first uncounted bucket on are kept, with its view summary. */
  readonly trimmed: boolean;
  /** Series holding a NaN value, kept as they came (none in practice). */
  readonly kept?: ReadonlyMap<number, readonly RawPoint[]>;
}

/** What a trimmed answer keeps of each series' view: width, outside, holes, first, last. */
const VIEW_FIELDS = 5;

/** How to trim an answer: its request's span, the bucket size, and from where each series (by spec index) may still be counted (undefined: nothing to count). */
export interface Trim {
  readonly span: { readonly begin: number; readonly end: number };
  readonly size: number;
  readonly from: ReadonlyArray<number | undefined>;
}

const hasNaN = (points: readonly RawPoint[]): boolean => points.some(([, v]) => v !== null && Number.isNaN(v));

/** Where an answer's times begin in its data. */
const timesAt = (answer: Pick<CompactAnswer, 'series' | 'trimmed'>): number => answer.series + 1 + (answer.trimmed ? answer.series * VIEW_FIELDS : 0);

/** One answer's counter series, every spec's `points` read once; with `trim`, only what the count reads of them. */
export function compactAnswer<R>(specs: readonly CounterSpec<R>[], response: R, trim?: Trim): CompactAnswer {
  const series = specs.length;
  const views = trim === undefined ? undefined : new Float64Array(series * VIEW_FIELDS).fill(Number.NaN);
  let kept: Map<number, readonly RawPoint[]> | undefined;
  let size = 0;
  const all = specs.map((s, i) => {
    const points = s.points(response);
    if (points === undefined) return undefined;
    if (hasNaN(points)) {
      (kept ??= new Map()).set(i, points);
      return [];
    }
    if (trim === undefined || views === undefined) {
      size += points.length;
      return points;
    }
    const view = countView(viewSeries(points, trim.span, trim.size, s.finerBuckets === true), trim.from[i] ?? Infinity);
    views.set([view.width, view.outside, view.holes, view.first ?? Number.NaN, view.last ?? Number.NaN], i * VIEW_FIELDS);
    size += view.points.length;
    return view.points;
  });
  const shape = { series, trimmed: views !== undefined };
  const times = timesAt(shape);
  const data = new Float64Array(times + 2 * size);
  if (views !== undefined) data.set(views, series + 1);
  let at = 0;
  all.forEach((points, i) => {
    data[i] = points === undefined ? -1 : at;
    for (const [t, v] of points ?? []) {
      data[times + at] = t;
      data[times + size + at++] = v ?? Number.NaN;
    }
  });
  data[series] = at;
  return kept === undefined ? { data, ...shape } : { data, ...shape, kept };
}

/** The i-th series' points, as the answer carried them (as kept, for a trimmed answer). */
export function expandSeries(answer: CompactAnswer, i: number): readonly RawPoint[] | undefined {
  const kept = answer.kept?.get(i);
  if (kept !== undefined) return kept;
  const { data, series } = answer;
  const begin = data[i] ?? -1;
  if (begin < 0) return undefined;
  let end = 0;
  for (let j = i + 1; j <= series; j++) {
    end = data[j] ?? -1;
    if (end >= 0) break;
  }
  const times = timesAt(answer);
  const size = (data.length - times) / 2;
  const out: RawPoint[] = [];
  for (let k = begin; k < end; k++) {
    const v = data[times + size + k] ?? Number.NaN;
    out.push([data[times + k] ?? Number.NaN, Number.isNaN(v) ? null : v]);
  }
  return out;
}

/** The i-th series as the count reads it, where the answer kept its view (`expanded`: its points, where the caller has them already); undefined otherwise (read its points). */
export function seriesViewOf(answer: CompactAnswer, i: number, expanded?: readonly RawPoint[]): CountView | undefined {
  if (!answer.trimmed) return undefined;
  const at = answer.series + 1 + i * VIEW_FIELDS;
  const field = (k: number): number | undefined => {
    const n = answer.data[at + k] ?? Number.NaN;
    return Number.isNaN(n) ? undefined : n;
  };
  const width = field(0);
  if (width === undefined) return undefined;
  const points = expanded ?? expandSeries(answer, i);
  if (points === undefined) return undefined;
  return { width, outside: field(1) ?? 0, holes: field(2) ?? 0, first: field(3), last: field(4), points };
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
          return points === undefined ? undefined : { points, view: seriesViewOf(answer, i, points) };
        }),
      };
    }),
  };
}
