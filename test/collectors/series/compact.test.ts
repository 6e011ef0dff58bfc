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
