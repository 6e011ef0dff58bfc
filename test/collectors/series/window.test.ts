import { describe, expect, it } from 'vitest';
import { platformClock } from '../../../src/api/index.js';
import type { BucketInterval } from '../../../src/collectors/buckets.js';
import { chunkRange, paramsOf, planSeries, requestWindow, seriesKey, spanOf } from '../../../src/collectors/series/index.js';
import { logStub, type LogRecord } from './sim-driver.js';
import { DAY, HOUR, MIN, T0, UTC8, plan } from './fixtures.js';

const grid = (interval: BucketInterval) => ({ interval, offsetMinutes: UTC8 });

describe('requestWindow', () => {
  // now = T0 + 30 s, delay 3 min: last settled 1m bucket = T0 - 4 min, current = T0.
  const now = T0 + 30_000;
  it.each<[string, Parameters<typeof requestWindow>[0], { first: number; backfill: Array<[number, number]> }]>([
    ['steady state: one main request over the summary window', {
      plans: [plan(T0 - 6 * MIN, now, '1m', 3 * MIN)], now, grid: grid('1m'), delayMs: 3 * MIN, gaugeWindowMs: 30 * MIN,
    }, { first: T0 - 30 * MIN, backfill: [] }],
    ['a window shorter than delay + interval still reaches the last settled bucket', {
      plans: [], now, grid: grid('1m'), delayMs: 3 * MIN, gaugeWindowMs: MIN,
    }, { first: T0 - 4 * MIN, backfill: [] }],
    ['back-fill older than the gauge window goes into chunks of at most maxBuckets, oldest first', {
      plans: [plan(T0 - 100 * MIN, now, '1m', 3 * MIN)], now, grid: grid('1m'), delayMs: 3 * MIN, gaugeWindowMs: 30 * MIN, maxBuckets: 30,
    }, { first: T0 - 30 * MIN, backfill: [[T0 - 99 * MIN, T0 - 70 * MIN], [T0 - 69 * MIN, T0 - 40 * MIN], [T0 - 39 * MIN, T0 - 31 * MIN]] }],
    ['the oldest plan of the target decides', {
      plans: [plan(T0 - 10 * MIN, now, '1m', 3 * MIN), plan(T0 - 40 * MIN, now, '1m', 3 * MIN), plan(undefined, now, '1m', 3 * MIN)],
      now, grid: grid('1m'), delayMs: 3 * MIN, gaugeWindowMs: 30 * MIN,
    }, { first: T0 - 30 * MIN, backfill: [[T0 - 39 * MIN, T0 - 31 * MIN]] }],
    ['without window gauges the main request stretches over the back-fill', {
      plans: [plan(T0 - 100 * MIN, now, '1m', 3 * MIN)], now, grid: grid('1m'), delayMs: 3 * MIN, gaugeWindowMs: undefined,
    }, { first: T0 - 99 * MIN, backfill: [] }],
    ['... up to maxBuckets, the rest in chunks', {
      plans: [plan(T0 - 100 * MIN, now, '1m', 3 * MIN)], now, grid: grid('1m'), delayMs: 3 * MIN, gaugeWindowMs: undefined, maxBuckets: 60,
    }, { first: T0 - 59 * MIN, backfill: [[T0 - 99 * MIN, T0 - 60 * MIN]] }],
    ['without anything to count or a window: just the last settled bucket onwards', {
      plans: [plan(undefined, now, '1m', 3 * MIN)], now, grid: grid('1m'), delayMs: 3 * MIN, gaugeWindowMs: undefined,
    }, { first: T0 - 4 * MIN, backfill: [] }],
    ['5m buckets: the window is rounded down to a bucket', {
      plans: [], now: T0 + 7 * MIN, grid: grid('5m'), delayMs: 3 * MIN, gaugeWindowMs: 13 * MIN,
    }, { first: T0 - 10 * MIN, backfill: [] }],
    ['1h buckets', {
      plans: [plan(T0 - 5 * HOUR, T0 + 20 * MIN, '1h', 10 * MIN)], now: T0 + 20 * MIN, grid: grid('1h'), delayMs: 10 * MIN, gaugeWindowMs: HOUR,
    }, { first: T0 - HOUR, backfill: [[T0 - 4 * HOUR, T0 - 2 * HOUR]] }],
    ['1d buckets start at platform midnight', {
      plans: [plan(T0 - 4 * DAY, T0, '1d', HOUR)], now: T0, grid: grid('1d'), delayMs: HOUR, gaugeWindowMs: DAY,
    }, { first: T0 - 12 * HOUR - DAY, backfill: [[T0 - 12 * HOUR - 3 * DAY, T0 - 12 * HOUR - 2 * DAY]] }],
  ])('%s', (_name, input, expected) => {
    const w = requestWindow(input);
    expect(w.main.first).toBe(expected.first);
    expect(w.main.begin).toBe(expected.first);
    expect(w.main.end).toBe(input.now);
    expect(w.backfill.map((r) => [r.first, r.last])).toEqual(expected.backfill);
  });
});

describe('chunkRange and spans', () => {
  it('splits into consecutive chunks', () => {
    expect(chunkRange({ first: T0, last: T0 + 4 * MIN }, grid('1m'), 2)).toEqual([
      { first: T0, last: T0 + MIN }, { first: T0 + 2 * MIN, last: T0 + 3 * MIN }, { first: T0 + 4 * MIN, last: T0 + 4 * MIN },
    ]);
  });
  it('asks for whole buckets, end exclusive, in the platform zone', () => {
    const span = spanOf({ first: T0, last: T0 + 5 * MIN }, grid('5m'));
    expect(paramsOf(platformClock('+08:00'), span)).toEqual({ beginTime: '2026-03-02 12:00:00', endTime: '2026-03-02 12:10:00' });
  });
});

describe('planSeries', () => {
  it('warns once per target with the largest number of buckets given up to max_backfill', () => {
    const logs: LogRecord[] = [];
    const ctx = { now: T0, watermarks: { a: T0 - 10 * HOUR, b: T0 - 5 * HOUR }, tz: platformClock('+08:00'), log: logStub(logs, { collector: 'x', domain: 'd' }) };
    const plans = planSeries(['a', 'b', 'c'], ctx, { interval: '1m', delayMs: 3 * MIN, maxBackfillMs: 6 * HOUR, timestamps: false });
    expect([...plans.values()].map((p) => p.kind)).toEqual(['count', 'count', 'initial']);
    expect(logs).toEqual([{
      level: 'warn', msg: 'buckets older than max_backfill are not counted',
      fields: { collector: 'x', domain: 'd', skipped: 4 * 60 - 5, resumeFrom: '2026-03-02T05:56:00+08:00' },
    }]);
  });
});

describe('seriesKey', () => {
  it.each<[string, Record<string, string>, string]>([
    ['sorts labels', { source: 'edge', domain: 'a.com' }, 'f{domain="a.com",source="edge"}'],
    ['quotes and escapes values', { key: 'a"b\\c' }, 'f{key="a\\"b\\\\c"}'],
    ['no labels', {}, 'f{}'],
  ])('%s', (_n, labels, key) => {
    expect(seriesKey('f', labels)).toBe(key);
  });
});
