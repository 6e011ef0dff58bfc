import { describe, expect, it } from 'vitest';
import type { BucketInterval } from '../../../src/collectors/buckets.js';
import { lookBackDue, lookBackRange } from '../../../src/collectors/series/lookback.js';
import { DAY, HOUR, MIN, T0, UTC8 } from './fixtures.js';

describe('lookBackDue: a cycle whose answers held no point', () => {
  it.each<[string, { answered: boolean; lastMs: number | undefined }, boolean]>([
    ['never looked back, an answer came: looks back', { answered: true, lastMs: undefined }, true],
    ['every request failed: the failure is reported, not the clock', { answered: false, lastMs: undefined }, false],
    ['looked back a minute ago: not again', { answered: true, lastMs: T0 - MIN }, false],
    ['looked back a second short of an hour ago: not again', { answered: true, lastMs: T0 - HOUR + 1000 }, false],
    ['looked back an hour ago: again', { answered: true, lastMs: T0 - HOUR }, true],
    ['looked back a day ago: again', { answered: true, lastMs: T0 - DAY }, true],
    ['an hour since, but every request failed: not', { answered: false, lastMs: T0 - HOUR }, false],
  ])('%s', (_name, input, due) => {
    expect(lookBackDue({ ...input, now: T0 })).toBe(due);
  });
});

describe('lookBackRange: the day before up to now, within a request\'s bucket cap', () => {
  // T0 is on every grid in UTC+8 (12:00 local); now 30 s into its bucket.
  const now = T0 + 30_000;
  it.each<[BucketInterval, number]>([
    // 1441 one-minute buckets in a day and the current one: capped at 1440.
    ['1m', T0 - 1439 * MIN],
    ['5m', T0 - DAY],
    ['1h', T0 - DAY],
  ])('%s', (interval, first) => {
    expect(lookBackRange(now, { interval, offsetMinutes: UTC8 })).toEqual({ range: { first, last: T0 }, span: { begin: first, end: now } });
  });
});
