import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { point, series } from '../../src/api/schemas/common.js';

// `series` hands a list of already-numeric points on as parsed; everything else must read exactly as z.array(point) reads it.
const plain = z.array(point);
const inAnswer = (s: z.ZodType) => z.looseObject({ data: z.array(z.looseObject({ m: z.looseObject({ a: s.optional() }).nullish() })) });
const outcome = (s: z.ZodType, list: unknown) => {
  const r = inAnswer(s).safeParse({ data: [{ m: { a: list } }] });
  return r.success ? { data: r.data } : { issues: r.error.issues, message: r.error.message };
};

describe('series fast path', () => {
  it.each([
    [[[1, 2], [3, null]]], [[[1, '2'], ['3', 4.5]]], [[[1.5, 2]]], [[[1, 2, 3]]], [[[1]]], ['x'], [null], [[[1, 'abc']]],
    [[[2 ** 60, 1]]], [[]], [[[1, 2], [1, -0]]], [[['1', null]]], [[[1, Number.NaN]]], [[[1, Number.POSITIVE_INFINITY]]], [undefined],
  ])('reads %j as z.array(point) does', (list) => {
    expect(outcome(series, list)).toStrictEqual(outcome(plain, list));
  });

  it('keeps the parsed arrays of a numeric list instead of copying them', () => {
    const list = [[1_700_000_000_000, 5], [1_700_000_060_000, null]];
    expect(series.parse(list)).toBe(list);
  });
});
