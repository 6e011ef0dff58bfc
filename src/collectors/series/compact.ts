// What a target's answers leave for the count while the cycle waits for its
// other targets. The count needs the upstream's clock, read over every
// answer of the cycle (answer.ts), so it cannot run as a target's answers
// arrive; holding the parsed answers until then cost ~13 KB per series at
// 100k series (issue 12: a 1.8 GB daemon), most of it points the count never
// reads (series no counter uses, [t, v] arrays of 60+ bytes each). The count
// reads an answer only through its counter specs' `points`, so that is all
// that is kept: per answer, one Float64Array of every counter series' [t, v]
// pairs, a null value as NaN (parsed values are finite numbers or null; a
// series that still holds a NaN is kept as it came, so the round trip is exact
// whatever it holds). Expanded back to points one target at a time. Pure.
import type { RawPoint } from '../buckets.js';
import type { CounterSpec, Piece } from './answer.js';

/** One answer's counter series, in its specs' order. */
export interface CompactAnswer {
  /** Every series' [t, v] pairs, one after another. */
  readonly pairs: Float64Array;
  /** Where each series' pairs begin in `pairs` (in numbers, not pairs); -1: the answer does not carry it. One more entry ends the last. */
  readonly starts: Int32Array;
  /** Series holding a NaN value, kept as they came (none in practice). */
  readonly kept?: ReadonlyMap<number, readonly RawPoint[]>;
}

/** One answer's counter series, every spec's `points` read once. */
export function compactAnswer<R>(specs: readonly CounterSpec<R>[], response: R): CompactAnswer {
  const all = specs.map((s) => s.points(response));
  const starts = new Int32Array(specs.length + 1);
  let size = 0;
  for (const points of all) size += points === undefined ? 0 : points.length * 2;
  const pairs = new Float64Array(size);
  let kept: Map<number, readonly RawPoint[]> | undefined;
  let at = 0;
  all.forEach((points, i) => {
    if (points === undefined) {
      starts[i] = -1;
      return;
    }
    starts[i] = at;
    if (points.some(([, v]) => v !== null && Number.isNaN(v))) {
      (kept ??= new Map()).set(i, points);
      return;
    }
    for (const [t, v] of points) {
      pairs[at++] = t;
      pairs[at++] = v ?? Number.NaN;
    }
  });
  starts[specs.length] = at;
  return kept === undefined ? { pairs, starts } : { pairs, starts, kept };
}

/** The i-th series' points, as the answer carried them. */
export function expandSeries(answer: CompactAnswer, i: number): readonly RawPoint[] | undefined {
  const kept = answer.kept?.get(i);
  if (kept !== undefined) return kept;
  const begin = answer.starts[i] ?? -1;
  if (begin < 0) return undefined;
  let end = answer.pairs.length;
  for (let j = i + 1; j < answer.starts.length; j++) {
    const next = answer.starts[j] ?? -1;
    if (next >= 0) {
      end = next;
      break;
    }
  }
  const out: RawPoint[] = [];
  for (let k = begin; k < end; k += 2) {
    const v = answer.pairs[k + 1] ?? Number.NaN;
    out.push([answer.pairs[k] ?? Number.NaN, Number.isNaN(v) ? null : v]);
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
