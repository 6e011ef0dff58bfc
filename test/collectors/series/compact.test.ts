import { describe, expect, it } from 'vitest';
import type { RawPoint } from '../../../src/collectors/buckets.js';
import { compactAnswer, compactPieces, compactSpecs, expandPieces, expandSeries } from '../../../src/collectors/series/compact.js';
import type { CounterSpec } from '../../../src/collectors/series/index.js';

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

  it('gives back integer answers exactly through the narrow form, and falls back per answer when a time or value does not fit', () => {
    const t0 = 1_700_000_000_000;
    const ints: Answer = { a: [[t0, 0], [t0 + 60_000, null], [t0 + 120_000, 2_147_483_647]], c: [[t0 - 60_000, -2_147_483_647], [t0, 5]], d: [] };
    const wide: Answer = { a: [[t0, 2_147_483_648]], c: [[t0, null], [t0 + 1, -0]] };
    const spread: Answer = { a: [[t0, 1]], c: [[t0 + 2 ** 31, 2], [0.5, null]] };
    const negZeroTime: Answer = { a: [[-0, 1], [1, null]] };
    for (const answer of [ints, wide, spread, negZeroTime]) {
      const compact = compactAnswer(specs, answer);
      specs.forEach((s, i) => expect(expandSeries(compact, i)).toStrictEqual(s.points(answer)));
    }
    expect(compactAnswer(specs, ints).values).toBeInstanceOf(Int32Array);
    expect(compactAnswer(specs, ints).times).toBeInstanceOf(Int32Array);
    expect(compactAnswer(specs, wide).values).toBeInstanceOf(Float64Array);
    expect(compactAnswer(specs, spread).times).toBeInstanceOf(Float64Array);
    expect(Object.is(expandSeries(compactAnswer(specs, wide), 2)?.[1]?.[1], -0)).toBe(true);
    expect(Object.is(expandSeries(compactAnswer(specs, negZeroTime), 0)?.[0]?.[0], -0)).toBe(true);
  });

  it('keeps pieces without answers, and the specs read the compact form', () => {
    const answer: Answer = { a: [[1, 2]] };
    const pieces = compactPieces(specs, [{ range: { first: 0, last: 0 }, response: answer }, { range: { first: 1, last: 1 }, response: undefined }]);
    const cspecs = compactSpecs(specs);
    expect(cspecs[0]?.points(pieces[0]!.response!)).toStrictEqual([[1, 2]]);
    expect(pieces[1]?.response).toBeUndefined();
    const expanded = expandPieces(cspecs, pieces);
    expect(expanded.specs[0]?.points(expanded.pieces[0]!.response!)).toStrictEqual([[1, 2]]);
    expect(expanded.specs[1]?.points(expanded.pieces[0]!.response!)).toBeUndefined();
  });
});
