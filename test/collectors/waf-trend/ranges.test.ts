// The ranges the WAF trend asks for: on the configured grid until the
// upstream has shown coarser buckets, then from the start of the coarse
// bucket holding the first bucket due, in whole coarse buckets.
import { describe, expect, it } from 'vitest';
import type { BucketRange } from '../../../src/collectors/series/index.js';
import type { Grain } from '../../../src/collectors/waf-trend/convert.js';
import { GrainMemory, wafAuditSpan, wafRanges } from '../../../src/collectors/waf-trend/ranges.js';
import { MIN, T0, UTC8 } from '../series/fixtures.js';

const grid = { interval: '1m' as const, offsetMinutes: UTC8 };
const five: Grain = { width: 5 * MIN, anchor: T0 - 60 * MIN };
const r = (first: number, last: number): BucketRange => ({ first, last });

describe('wafRanges', () => {
  it.each<[string, { from: number; lastSettled: number }, number, Grain | undefined, BucketRange[]]>([
    ['no grain seen: the buckets due', { from: T0 - 3 * MIN, lastSettled: T0 + 2 * MIN }, 360, undefined, [r(T0 - 3 * MIN, T0 + 2 * MIN)]],
    ['a grain no coarser than the interval: the same', { from: T0 - 3 * MIN, lastSettled: T0 + 2 * MIN }, 360, { width: MIN, anchor: T0 }, [r(T0 - 3 * MIN, T0 + 2 * MIN)]],
    ['5m seen: from the start of the 5m bucket holding the first due', { from: T0 - 3 * MIN, lastSettled: T0 + 2 * MIN }, 360, five, [r(T0 - 5 * MIN, T0 + 2 * MIN)]],
    ['already on their grid: unchanged', { from: T0, lastSettled: T0 + 2 * MIN }, 360, five, [r(T0, T0 + 2 * MIN)]],
    ['already on their grid: chunks of whole coarse buckets still', { from: T0, lastSettled: T0 + 20 * MIN }, 12, five,
      [r(T0, T0 + 9 * MIN), r(T0 + 10 * MIN, T0 + 19 * MIN), r(T0 + 20 * MIN, T0 + 20 * MIN)]],
    ['the last bucket of a coarse one: back to its start', { from: T0 + 4 * MIN, lastSettled: T0 + 4 * MIN }, 360, five, [r(T0, T0 + 4 * MIN)]],
    ['chunks of whole coarse buckets (12 minutes: two 5m buckets)', { from: T0 - 3 * MIN, lastSettled: T0 + 20 * MIN }, 12, five,
      [r(T0 - 5 * MIN, T0 + 4 * MIN), r(T0 + 5 * MIN, T0 + 14 * MIN), r(T0 + 15 * MIN, T0 + 20 * MIN)]],
    ['a chunk shorter than a coarse bucket: one coarse bucket each', { from: T0 + MIN, lastSettled: T0 + 7 * MIN }, 2, five,
      [r(T0, T0 + 4 * MIN), r(T0 + 5 * MIN, T0 + 7 * MIN)]],
    ['a grain that is not whole intervals: asked on ours', { from: T0 - 3 * MIN, lastSettled: T0 }, 360, { width: 90_000, anchor: T0 }, [r(T0 - 3 * MIN, T0)]],
    ['a grain off our grid: asked on ours', { from: T0 - 3 * MIN, lastSettled: T0 }, 360, { width: 5 * MIN, anchor: T0 + 30_000 }, [r(T0 - 3 * MIN, T0)]],
  ])('%s', (_name, plan, perChunk, grain, expected) => {
    expect(wafRanges(plan, grid, perChunk, grain)).toEqual(expected);
  });
});

describe('wafAuditSpan', () => {
  it.each<[string, Grain | undefined, number]>([
    ['no grain: as asked', undefined, T0 - 3 * MIN],
    ['5m seen: from the start of the 5m bucket holding its begin', five, T0 - 5 * MIN],
    ['a grain off our grid: as asked', { width: 5 * MIN, anchor: T0 + 30_000 }, T0 - 3 * MIN],
  ])('%s', (_name, grain, begin) => {
    expect(wafAuditSpan({ begin: T0 - 3 * MIN, end: T0 + 7 * MIN }, grid, grain)).toEqual({ begin, end: T0 + 7 * MIN });
  });
});

describe('GrainMemory', () => {
  it('keeps the last grain an answer showed; a cycle without points leaves it', () => {
    const memory = new GrainMemory();
    expect(memory.get()).toBeUndefined();
    memory.see(undefined);
    expect(memory.get()).toBeUndefined();
    memory.see(five);
    memory.see(undefined);
    expect(memory.get()).toEqual(five);
    memory.see({ width: MIN, anchor: T0 });
    expect(memory.get()).toEqual({ width: MIN, anchor: T0 });
  });
});
