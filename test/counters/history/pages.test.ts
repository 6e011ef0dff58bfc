import { describe, expect, it } from 'vitest';
import { paginate } from '../../../src/counters/history/pages.js';
import { type KeyedSample } from '../../../src/counters/history/samples.js';

/** A sample of series `key` at minute `t`. */
const s = (key: string, t: number): KeyedSample => ({ key, name: `m_${key}`, labels: {}, timestampMs: t * 60_000, value: t });
/** Each page as `key@minute` strings. */
const shape = (pages: KeyedSample[][]): string[][] => pages.map((p) => p.map((x) => `${x.key}@${x.timestampMs / 60_000}`));

describe('paginate', () => {
  it.each([
    { what: 'one sample per series: one page', max: 10, input: [s('a', 1), s('b', 1), s('c', 1)], pages: [['a@1', 'b@1', 'c@1']] },
    { what: 'split at max', max: 2, input: [s('a', 1), s('b', 1), s('c', 1)], pages: [['a@1', 'b@1'], ['c@1']] },
    {
      what: 'a back-filled series spreads over pages, in time order',
      max: 10,
      input: [s('a', 1), s('a', 2), s('a', 3), s('b', 3)],
      pages: [['a@1', 'b@3'], ['a@2'], ['a@3']],
    },
    {
      what: 'other series fill the pages a back-fill opened',
      max: 2,
      input: [s('a', 1), s('a', 2), s('b', 1), s('b', 2), s('c', 1)],
      pages: [['a@1', 'b@1'], ['a@2', 'b@2'], ['c@1']],
    },
    {
      what: 'a series never goes before an earlier page of its own, even when a page before has room',
      max: 3,
      input: [s('a', 1), s('b', 1), s('b', 2), s('b', 3), s('a', 2)],
      pages: [['a@1', 'b@1'], ['b@2', 'a@2'], ['b@3']],
    },
    { what: 'nothing', max: 5, input: [], pages: [] },
  ])('$what', ({ max, input, pages }) => {
    const out = paginate(input, max);
    expect(shape(out)).toEqual(pages);
    for (const page of out) {
      expect(page.length).toBeLessThanOrEqual(max);
      expect(new Set(page.map((x) => x.key)).size).toBe(page.length);
    }
  });
});
