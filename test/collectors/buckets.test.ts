import { describe, expect, it } from 'vitest';
import {
  INTERVAL_MS, alignDown, latestSettled, lastSettledStart, planCount,
  type BucketInterval, type RawPoint,
} from '../../src/collectors/buckets.js';
import { layoutOf } from '../../src/collectors/contract/series-layout.js';
import { readBuckets } from '../../src/collectors/series/index.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const UTC8 = 480;
// 2026-03-02 12:00:00 UTC+8
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);

describe('alignDown', () => {
  it.each<[BucketInterval, number, number]>([
    ['1m', T0 + 59_999, T0],
    ['5m', T0 + 7 * MIN, T0 + 5 * MIN],
    ['1h', T0 + 59 * MIN, T0],
    // Daily buckets start at 00:00 UTC+8 = 16:00 UTC the day before.
    ['1d', T0, Date.UTC(2026, 2, 1, 16, 0)],
    ['1d', Date.UTC(2026, 2, 1, 15, 59), Date.UTC(2026, 1, 28, 16, 0)],
  ])('%s bucket of %i starts at %i', (interval, t, start) => {
    expect(alignDown(interval, t, UTC8)).toBe(start);
  });
});

describe('lastSettledStart', () => {
  it.each<[BucketInterval, number, number, number]>([
    // now, delay -> newest bucket with end + delay <= now
    ['1m', T0, 3 * MIN, T0 - 4 * MIN],
    ['1m', T0 + 30_000, 3 * MIN, T0 - 4 * MIN],
    ['5m', T0, 3 * MIN, T0 - 10 * MIN],
    ['5m', T0 + 2 * MIN, 3 * MIN, T0 - 10 * MIN],
    ['5m', T0 + 3 * MIN, 3 * MIN, T0 - 5 * MIN],
    ['1h', T0, 10 * MIN, T0 - 2 * HOUR],
    ['1h', T0 + 10 * MIN, 10 * MIN, T0 - HOUR],
    ['1d', T0, HOUR, Date.UTC(2026, 1, 28, 16, 0)],
    ['1d', Date.UTC(2026, 2, 1, 17, 0), HOUR, Date.UTC(2026, 1, 28, 16, 0)],
  ])('%s at now=%i with delay %i -> %i', (interval, now, delay, expected) => {
    expect(lastSettledStart(now, interval, delay, UTC8)).toBe(expected);
  });
});

describe('planCount', () => {
  const base = { now: T0, interval: '1m' as const, delayMs: 3 * MIN, maxBackfillMs: 6 * HOUR, offsetMinutes: UTC8 };
  const lastSettled = T0 - 4 * MIN;

  it('starts a new series after the last settled bucket, counting nothing', () => {
    expect(planCount({ ...base, watermark: undefined })).toEqual({ kind: 'initial', lastSettled });
  });
  it('is idle when nothing settled since the watermark', () => {
    expect(planCount({ ...base, watermark: lastSettled })).toEqual({ kind: 'idle', lastSettled });
  });
  it('counts from the bucket after the watermark to the last settled one', () => {
    expect(planCount({ ...base, watermark: lastSettled - 3 * MIN })).toEqual({ kind: 'count', from: lastSettled - 2 * MIN, lastSettled, skipped: 0 });
  });
  it('caps a back-fill at max_backfill and says how many buckets it gave up', () => {
    const watermark = lastSettled - 10 * HOUR;
    expect(planCount({ ...base, watermark })).toEqual({
      kind: 'count', from: lastSettled - 6 * HOUR, lastSettled, skipped: 10 * 60 - 6 * 60 - 1,
    });
  });
  it('snaps a watermark left by another interval onto the grid', () => {
    const plan = planCount({ ...base, interval: '5m', watermark: T0 - 33 * MIN });
    expect(plan).toEqual({ kind: 'count', from: T0 - 30 * MIN, lastSettled: T0 - 10 * MIN, skipped: 0 });
  });
});

describe('latestSettled', () => {
  it('picks the newest settled, non-null bucket', () => {
    expect(latestSettled([[T0, 1], [T0 + MIN, 2], [T0 + 2 * MIN, null], [T0 + 9 * MIN, 9]], T0 + 5 * MIN)).toEqual({ start: T0 + MIN, value: 2 });
  });
  it('is undefined when nothing settled', () => {
    expect(latestSettled([[T0 + 9 * MIN, 9]], T0)).toBeUndefined();
  });
});

// A source that revises its newest buckets, like the upstream: a bucket's
// reported value grows until `delay` after its end, then stays final.
function revisingSource(interval: BucketInterval, delay: number) {
  const size = INTERVAL_MS[interval];
  const final = (start: number): number => (Math.floor(start / size) % 97) * 10 + 5;
  const reported = (start: number, now: number): number | undefined => {
    if (start > now) return undefined;
    const fraction = Math.min(1, (now - start) / (size + delay));
    return Math.floor(final(start) * fraction);
  };
  const points = (from: number, to: number, now: number): RawPoint[] => {
    const out: RawPoint[] = [];
    for (let t = alignDown(interval, from, UTC8); t < to; t += size) {
      const v = reported(t, now);
      if (v !== undefined) out.push([t, v]);
    }
    return out;
  };
  return { final, points };
}

describe('exactly once over many cycles', () => {
  it.each<[BucketInterval, number, number[]]>([
    // interval, delay, the offsets (from T0) at which cycles run; gaps are downtime
    ['1m', 3 * MIN, [0, 1, 2, 3, 4, 5, 20, 21, 22, 40, 41].map((m) => m * MIN + 7_000)],
    ['5m', 3 * MIN, [0, 5, 10, 12, 13, 60, 65, 70].map((m) => m * MIN + 1_000)],
    ['1h', 10 * MIN, [0, 1, 2, 5, 6, 30].map((h) => h * HOUR + 11 * MIN)],
    ['1d', HOUR, [0, 1, 2, 5, 6].map((d) => d * DAY + 2 * HOUR)],
  ])('%s buckets with delay %i: counted total equals the final values, revisions and downtime included', (interval, delay, offsets) => {
    const source = revisingSource(interval, delay);
    const size = INTERVAL_MS[interval];
    let watermark: number | undefined;
    let counter = 0;
    let firstCounted: number | undefined;
    for (const offset of offsets) {
      const now = T0 + offset;
      const plan = planCount({ watermark, now, interval, delayMs: delay, maxBackfillMs: 30 * DAY, offsetMinutes: UTC8 });
      if (plan.kind === 'initial') {
        watermark = plan.lastSettled;
        continue;
      }
      if (plan.kind === 'idle') continue;
      // The request also covers recent, still-revising buckets, as a real cycle's would.
      const points = source.points(plan.from - 2 * size, now, now);
      const span = { begin: plan.from - 2 * size, end: now };
      const read = readBuckets(layoutOf(points, span, size), span, { interval, offsetMinutes: UTC8 }, { pos: plan.from, to: plan.lastSettled });
      for (const v of read.values.values()) counter += v;
      expect(read.reach).toBe(plan.lastSettled);
      firstCounted ??= plan.from;
      watermark = plan.lastSettled;
    }
    expect(firstCounted).toBeDefined();
    let expected = 0;
    for (let t = firstCounted!; t <= watermark!; t += size) expected += source.final(t);
    expect(counter).toBe(expected);
    expect(counter).toBeGreaterThan(0);
  });
});
