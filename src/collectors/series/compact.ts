// What a target's answers leave for the count while the cycle waits for its
// other targets. The count needs the upstream's clock, read over every
// answer of the cycle (answer.ts), so it cannot run as a target's answers
// arrive; holding the parsed answers until then cost ~13 KB per series at
// 100k series (issue 12: a 1.8 GB daemon), most of it points the count never
// reads (series no counter uses, [t, v] arrays of 60+ bytes each). The count
// reads an answer only through its counter specs' `points`, so that is all
// that is kept: per answer, every counter series' times and values, one
// after another, in the narrowest typed array that holds them exactly (times
// as int32 offsets from the first when every one is a safe integer within
// 24 days of it, values as int32 when every one is an integer in range, else
// float64; a null value as a sentinel, or NaN in float64). A series that
// holds a NaN value is kept as it came, so the round trip is exact whatever
// an answer holds. Expanded back to points one target at a time. Pure.
//
// At 6,667 domains an access answer is 15 series of ~60 points: 14 KB as
// float64 pairs, 7 KB as int32 (each answer's arrays are malloc'd outside
// V8's heap, and a cycle holds all of them until it closes).
import type { RawPoint } from '../buckets.js';
import type { CounterSpec, Piece } from './answer.js';

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
}

/** A null value in an Int32Array of values (no value stored there is this). */
const INT_NULL = -2147483648;
const INT_MAX = 2147483647;

const fitsInt = (n: number): boolean => Number.isInteger(n) && n > INT_NULL && n <= INT_MAX && !Object.is(n, -0);

/** One answer's counter series, every spec's `points` read once. */
export function compactAnswer<R>(specs: readonly CounterSpec<R>[], response: R): CompactAnswer {
  const all = specs.map((s) => s.points(response));
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
  const answer = { times, base: offset, values, starts };
  return kept === undefined ? answer : { ...answer, kept };
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
}

export function compactSpecs<R>(specs: readonly CounterSpec<R>[]): CounterSpec<CompactAnswer>[] {
  return specs.map((s, i) => new CompactSpec(s as CounterSpec<unknown>, i));
}

export function compactPieces<R>(specs: readonly CounterSpec<R>[], pieces: readonly Piece<R>[]): Piece<CompactAnswer>[] {
  return pieces.map((p) => ({ ...p, response: p.response === undefined ? undefined : compactAnswer(specs, p.response) }));
}

/** Every series of one target's answers expanded once, for a count that reads each several times. */
export type Expanded = ReadonlyArray<readonly RawPoint[] | undefined>;

export function expandPieces(specs: readonly CounterSpec<CompactAnswer>[], pieces: readonly Piece<CompactAnswer>[]): {
  specs: CounterSpec<Expanded>[]; pieces: Piece<Expanded>[];
} {
  return {
    specs: specs.map((s, i) => ({ ...s, points: (answer: Expanded) => answer[i] })),
    pieces: pieces.map((p) => {
      const answer = p.response;
      return { ...p, response: answer === undefined ? undefined : specs.map((_, i) => expandSeries(answer, i)) };
    }),
  };
}
