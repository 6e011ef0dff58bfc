// The delivery audit's decisions, pure: the grid read off a logTread answer,
// the whole settled buckets compared, and each bucket's way from short to a
// final outcome (audit.ts).
import { describe, expect, it } from 'vitest';
import { AuditedBuckets, gridWidth, HOLD_MS, settledBuckets, type AuditContext } from '../../src/forwarder/audit.js';

const MIN = 60_000;
const T = Date.UTC(2026, 2, 2, 4, 0, 0);
const LOOKBACK = 60 * MIN;

describe('gridWidth', () => {
  it.each<[string, Array<[number, number | null]>, number | undefined]>([
    ['one-minute points', [[T, 1], [T + MIN, 2], [T + 2 * MIN, 0]], MIN],
    ['five-minute points', [[T, 1], [T + 5 * MIN, 2]], 5 * MIN],
    ['empty buckets left out: the common divisor of the gaps', [[T, 1], [T + 2 * MIN, 2], [T + 5 * MIN, 1]], MIN],
    ['out of order', [[T + 10 * MIN, 1], [T, 2], [T + 5 * MIN, 0]], 5 * MIN],
    ['a lone point says nothing', [[T, 1]], undefined],
    ['none', [], undefined],
    ['not whole minutes', [[T, 1], [T + 30_000, 1]], undefined],
    ['not on minute boundaries', [[T + 1000, 1], [T + 61_000, 1]], undefined],
  ])('%s', (_name, points, width) => {
    expect(gridWidth(points)).toBe(width);
  });
});

describe('settledBuckets', () => {
  it.each<[string, Array<[number, number | null]>, number, number, Array<[number, number, number]>]>([
    ['whole buckets inside the range', [[T, 3], [T + MIN, 4], [T + 2 * MIN, 5]], T, T + 3 * MIN, [[T, T + MIN, 3], [T + MIN, T + 2 * MIN, 4], [T + 2 * MIN, T + 3 * MIN, 5]]],
    ['a bucket begun before the range (counted whole, records before it too) is left out', [[T - 5 * MIN, 9], [T, 3], [T + 5 * MIN, 4]], T - 2 * MIN, T + 10 * MIN, [[T, T + 5 * MIN, 3], [T + 5 * MIN, T + 10 * MIN, 4]]],
    ['a bucket reaching past the final pass (still filling) is left out', [[T, 3], [T + 5 * MIN, 4]], T, T + 7 * MIN, [[T, T + 5 * MIN, 3]]],
    ['a null count is not compared', [[T, null], [T + MIN, 2]], T, T + 2 * MIN, [[T + MIN, T + 2 * MIN, 2]]],
  ])('%s', (_name, points, from, to, expected) => {
    expect(settledBuckets(points, from, to).map((b) => [b.startMs, b.endMs, b.counted])).toEqual(expected);
  });
});

/** Audited buckets over one-minute buckets with `delivered` events per bucket start; checks a minute apart (the horizon a minute past twice the look-back). */
function rig(delivered: Map<number, number>) {
  const buckets = new AuditedBuckets();
  const ctx = (nowMs: number): AuditContext => ({ nowMs, lookbackMs: LOOKBACK, horizonMs: nowMs - 2 * LOOKBACK - MIN, delivered: (from) => delivered.get(from) ?? 0 });
  const check = (nowMs: number, counts: Array<[number, number]>) => buckets.check(counts.map(([start, counted]) => ({ startMs: start, endMs: start + MIN, counted })), ctx(nowMs));
  return { buckets, ctx, check };
}

describe('AuditedBuckets', () => {
  it('an even bucket is final once older than the look-back and held still: match', () => {
    const { buckets, check } = rig(new Map([[T, 4]]));
    expect(check(T + 10 * MIN, [[T, 4]])).toEqual({ recover: [], foundShort: 0, finals: [] });
    // Inside the look-back: not final, however long it held.
    expect(check(T + 50 * MIN, [[T, 4]]).finals).toEqual([]);
    const done = check(T + 62 * MIN, [[T, 4]]);
    expect(done.finals).toEqual([{ bucket: { startMs: T, endMs: T + MIN }, outcome: 'match', counted: 4, delivered: 4, again: false }]);
    expect(buckets.missing()).toBe(0);
  });

  it('a short bucket is recovered while its count moves, then final as recovered', () => {
    const delivered = new Map([[T, 2]]);
    const { buckets, ctx, check } = rig(delivered);
    const first = check(T + 10 * MIN, [[T, 5]]);
    expect(first).toEqual({ recover: [{ startMs: T, endMs: T + MIN }], foundShort: 1, finals: [] });
    expect(buckets.missing()).toBe(3);
    delivered.set(T, 5);
    buckets.recovered({ startMs: T, endMs: T + MIN }, 3, ctx(T + 10 * MIN));
    expect(buckets.missing()).toBe(0);
    expect(buckets.shortNow()).toBe(0);
    // Two more ingested later: short again, read again.
    expect(check(T + 20 * MIN, [[T, 7]]).recover).toEqual([{ startMs: T, endMs: T + MIN }]);
    delivered.set(T, 7);
    buckets.recovered({ startMs: T, endMs: T + MIN }, 2, ctx(T + 20 * MIN));
    expect(check(T + 70 * MIN, [[T, 7]]).finals.map((f) => f.outcome)).toEqual(['recovered']);
  });

  it('a short bucket whose recovery found nothing is not read again until its count moves', () => {
    const { buckets, ctx, check } = rig(new Map([[T, 2]]));
    expect(check(T + 10 * MIN, [[T, 3]]).recover).toHaveLength(1);
    buckets.recovered({ startMs: T, endMs: T + MIN }, 0, ctx(T + 10 * MIN));
    expect(check(T + 11 * MIN, [[T, 3]]).recover).toEqual([]);
    expect(check(T + 30 * MIN, [[T, 3]]).recover).toEqual([]);
    expect(check(T + 31 * MIN, [[T, 4]]).recover).toHaveLength(1);
    buckets.recovered({ startMs: T, endMs: T + MIN }, 0, ctx(T + 31 * MIN));
    // Older than the look-back and held 10 minutes (since T + 31m): unreconciled, with both numbers.
    expect(check(T + 60 * MIN, [[T, 4]]).finals).toEqual([]);
    const done = check(T + 61 * MIN + 1, [[T, 4]]);
    expect(done.finals).toEqual([{ bucket: { startMs: T, endMs: T + MIN }, outcome: 'unreconciled', counted: 4, delivered: 2, again: false }]);
    expect(buckets.missing()).toBe(0);
  });

  it('past the look-back a short bucket is not read, and stays missing while its count moves', () => {
    const { buckets, check } = rig(new Map([[T, 2]]));
    check(T + 61 * MIN, [[T, 2]]);
    expect(check(T + 65 * MIN, [[T, 3]])).toEqual({ recover: [], foundShort: 1, finals: [] });
    expect(buckets.missing()).toBe(1);
    expect(check(T + 65 * MIN + HOLD_MS - 1, [[T, 3]]).finals).toEqual([]);
    expect(check(T + 65 * MIN + HOLD_MS, [[T, 3]]).finals.map((f) => f.outcome)).toEqual(['unreconciled']);
  });

  it('a final bucket whose count moves again is checked again, and counted again only under another outcome', () => {
    const delivered = new Map([[T, 2]]);
    const { check } = rig(delivered);
    expect(check(T + 62 * MIN, [[T, 3]]).finals).toEqual([]);
    expect(check(T + 72 * MIN, [[T, 3]]).finals.map((f) => [f.outcome, f.again])).toEqual([['unreconciled', false]]);
    expect(check(T + 80 * MIN, [[T, 4]]).finals).toEqual([]);
    expect(check(T + 90 * MIN, [[T, 4]]).finals.map((f) => [f.outcome, f.counted, f.again])).toEqual([['unreconciled', 4, true]]);
  });

  it('more delivered than counted is surplus, never taken back', () => {
    const { check } = rig(new Map([[T, 5]]));
    expect(check(T + 10 * MIN, [[T, 4]])).toEqual({ recover: [], foundShort: 0, finals: [] });
    expect(check(T + 62 * MIN, [[T, 4]]).finals.map((f) => [f.outcome, f.counted, f.delivered])).toEqual([['surplus', 4, 5]]);
  });

  it('a bucket older than the horizon (twice the look-back and a check) leaves the buckets, final at its last outcome', () => {
    const { buckets, check } = rig(new Map([[T, 1]]));
    check(T + 10 * MIN, [[T, 3]]);
    // Its count never holds still long enough; then it is out of the range asked.
    for (let m = 62; m < 120; m += 5) check(T + m * MIN, [[T, 3 + m]]);
    expect(buckets.missing()).toBeGreaterThan(0);
    // Its end (T + 1m) is less than two hours and a minute old at T + 121m: still compared; at T + 122m it is gone.
    expect(check(T + 121 * MIN, []).finals).toEqual([]);
    const out = check(T + 122 * MIN, []);
    expect(out.finals.map((f) => f.outcome)).toEqual(['unreconciled']);
    expect(buckets.missing()).toBe(0);
    expect(buckets.shortNow()).toBe(0);
    // Listed again (a range begun a coarse bucket early): it stays out, not final a second time.
    expect(check(T + 123 * MIN, [[T, 70]])).toEqual({ recover: [], foundShort: 0, finals: [] });
    expect(buckets.missing()).toBe(0);
  });
});
