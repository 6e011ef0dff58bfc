import { describe, expect, it } from 'vitest';
import type { RawPoint } from '../../../src/collectors/buckets.js';
import { compactAnswer, compactPieces, compactSpecs, expandPieces, expandSeries } from '../../../src/collectors/series/compact.js';
import type { CounterSpec, Piece } from '../../../src/collectors/series/index.js';
import { countBothWays, MIN, plan, T0, UTC8 } from './fixtures.js';

type Answer = Readonly<Record<string, readonly RawPoint[] | undefined>>;
const spec = (name: string): CounterSpec<Answer> => ({ family: 'f', labels: { s: name }, key: name, metric: 'm', points: (r) => r[name] });
const specs = ['a', 'b', 'c', 'd', 'e'].map(spec);

describe('compact answers', () => {
  it('gives back every series exactly as the answer carried it: missing, empty, null values, kept NaN', () => {
    const answer: Answer = {
      a: [[1_700_000_000_000, 1.5], [1_700_000_060_000, null], [1_700_000_120_000, -0]],
      // b missing
      c: [],
      d: [[5, Number.NaN], [6, 2]],
      e: [[7, Number.MAX_VALUE], [8, 0]],
    };
    const compact = compactAnswer(specs, answer);
    specs.forEach((s, i) => expect(expandSeries(compact, i)).toStrictEqual(s.points(answer)));
    expect(Object.is(expandSeries(compact, 0)?.[2]?.[1], -0)).toBe(true);
  });

  it('gives back large, negative, fractional and signed-zero times and values exactly', () => {
    const t0 = 1_700_000_000_000;
    const ints: Answer = { a: [[t0, 0], [t0 + 60_000, null], [t0 + 120_000, 2_147_483_647]], c: [[t0 - 60_000, -2_147_483_647], [t0, 5]], d: [] };
    const wide: Answer = { a: [[t0, 2_147_483_648]], c: [[t0, null], [t0 + 1, -0]] };
    const spread: Answer = { a: [[t0, 1]], c: [[t0 + 2 ** 31, 2], [0.5, null]] };
    const negZeroTime: Answer = { a: [[-0, 1], [1, null]] };
    for (const answer of [ints, wide, spread, negZeroTime]) {
      const compact = compactAnswer(specs, answer);
      specs.forEach((s, i) => expect(expandSeries(compact, i)).toStrictEqual(s.points(answer)));
    }
    expect(Object.is(expandSeries(compactAnswer(specs, wide), 2)?.[1]?.[1], -0)).toBe(true);
    expect(Object.is(expandSeries(compactAnswer(specs, negZeroTime), 0)?.[0]?.[0], -0)).toBe(true);
  });

  it('keeps pieces without answers, and the specs read the compact form', () => {
    const answer: Answer = { a: [[0, 2], [-1, 5]] };
    const plans = new Map(specs.map((s) => [s.key, { kind: 'count' as const, from: 0, lastSettled: 0, skipped: 0 }]));
    const pieces = compactPieces(specs, [{ range: { first: 0, last: 0 }, response: answer }, { range: { first: 1, last: 1 }, response: undefined }], plans, 1);
    const cspecs = compactSpecs(specs);
    expect(cspecs[0]?.points(pieces[0]!.response!)).toStrictEqual([[0, 2]]);
    expect(pieces[1]?.response).toBeUndefined();
    const expanded = expandPieces(cspecs, pieces);
    expect(expanded.specs[0]?.points(expanded.pieces[0]!.response!)).toStrictEqual([[0, 2]]);
    expect(expanded.specs[0]?.view?.(expanded.pieces[0]!.response!)).toStrictEqual({ width: 1, outside: 1, holes: 0, first: 0, last: 0, points: [[0, 2]] });
    expect(expanded.specs[1]?.points(expanded.pieces[0]!.response!)).toBeUndefined();
  });

  // The points a count reads from its series' first uncounted bucket on, and
  // the view taken of all of them on arrival: the count over the kept answers
  // must be the count over the answers as they came, whatever they hold.
  it('a count over trimmed answers is the count over the answers as they came (500 generated targets)', () => {
    const random = seeded(12);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const grid = { interval: '1m' as const, offsetMinutes: UTC8 };
    type A = Readonly<Record<string, readonly RawPoint[] | undefined>>;
    const names = ['a', 'b', 'c', 'd'];
    const targetSpecs: CounterSpec<A>[] = names.map((n) => ({
      family: 'f_total', labels: { s: n }, key: n, metric: n, points: (r) => r[n], ...(n === 'c' ? { finerBuckets: true } : {}),
    }));
    const series = (begin: number, end: number): RawPoint[] | undefined => {
      const shape = random();
      if (shape < 0.08) return undefined;
      if (shape < 0.14) return [];
      const width = random() < 0.2 ? 5 * MIN : MIN;
      const shift = random() < 0.1 ? 30_000 : 0;
      const out: RawPoint[] = [];
      const start = begin - (random() < 0.2 ? 3 * MIN : 0);
      const stop = end + (random() < 0.2 ? 2 * MIN : 0) - (random() < 0.2 ? 6 * MIN : 0);
      const floats = random() < 0.3;
      for (let t = start + shift; t < stop; t += width) {
        const r = random();
        if (r < 0.05) continue;
        const value = r < 0.08 ? null : r < 0.1 ? -1 : r < 0.101 ? Number.NaN : floats ? random() * 1e6 : Math.floor(random() * 1e4);
        out.push([t, value]);
        if (random() < 0.03) out.push([t, value === null ? 1 : value + 1]);
      }
      return random() < 0.1 ? out.reverse() : out;
    };
    for (let round = 0; round < 500; round++) {
      const plans = new Map(names.map((n) => {
        const r = random();
        const watermark = r < 0.15 ? undefined : r < 0.25 ? T0 - 4 * MIN : T0 - Math.floor(2 + random() * 80) * MIN;
        return [n, plan(watermark, T0, '1m', 3 * MIN)];
      }));
      const mainFirst = T0 - 60 * MIN;
      const pieces: Array<Piece<A>> = [];
      if (random() < 0.4) {
        const first = mainFirst - 30 * MIN;
        pieces.push({ range: { first, last: mainFirst - MIN }, response: random() < 0.1 ? undefined : Object.fromEntries(names.map((n) => [n, series(first, mainFirst)])) });
      }
      const response = random() < 0.05 ? undefined : Object.fromEntries(names.map((n) => [n, series(mainFirst, T0)]));
      pieces.push({ range: { first: mainFirst, last: T0 }, span: { begin: mainFirst, end: T0 }, response });
      countBothWays(targetSpecs, plans, pieces, grid, pick([false, true]), pick([false, true]));
    }
  });
});

/** A small deterministic generator (mulberry32), so a failing round can be replayed. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
