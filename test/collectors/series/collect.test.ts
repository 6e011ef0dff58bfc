import { describe, expect, it } from 'vitest';
import { assemble, NoDataError, type TargetResult } from '../../../src/collectors/series/index.js';
import { T0 } from './fixtures.js';

describe('assemble', () => {
  const result = { increments: [], watermarks: { b: 2 }, gauges: [{ name: 'g', labels: {}, value: 1 }], newestBucketEndMs: 5 };
  it('keeps untouched watermarks, replaces gauge families (empty ones too) and reports partial failures', () => {
    const out = assemble({
      collector: 'c', previous: { a: 1, b: 1 }, results: [result], gaugeFamilies: ['g', 'h'],
      tallies: [{ requests: 2, errors: [new Error('one failed')] }],
    });
    expect(out.watermarks).toEqual({ a: 1, b: 2 });
    expect(Object.fromEntries(out.gauges)).toEqual({ g: [{ name: 'g', labels: {}, value: 1 }], h: [] });
    expect(out.errors.map((e) => e.message)).toEqual(['one failed']);
    expect(out.newestBucketEndMs).toBe(5);
  });
  it('keeps no per-target newest end for account-wide results', () => {
    const out = assemble({ collector: 'c', previous: {}, results: [result], gaugeFamilies: [], tallies: [{ requests: 1, errors: [] }] });
    expect(out.targetNewestBucketEndMs).toBeUndefined();
  });
  it('throws when every request failed', () => {
    const boom = new Error('down');
    expect(() => assemble({ collector: 'c', previous: {}, results: [], gaugeFamilies: [], tallies: [{ requests: 1, errors: [boom] }] })).toThrow(boom);
    expect(() => assemble({
      collector: 'c', previous: {}, results: [], gaugeFamilies: [], tallies: [{ requests: 2, errors: [boom, boom] }],
    })).toThrow(AggregateError);
  });
  describe('answers that all said nothing (data: null, no item)', () => {
    const stalled: TargetResult = { increments: [], watermarks: {}, gauges: [], newestBucketEndMs: undefined, uncovered: ['s'] };
    const idle: TargetResult = { increments: [], watermarks: {}, gauges: [], newestBucketEndMs: undefined, uncovered: [] };
    const moved: TargetResult = { ...idle, watermarks: { t: T0 } };
    const run = (results: TargetResult[], errors: Error[] = []) => () => assemble({
      collector: 'c', previous: { s: 1 }, results, gaugeFamilies: ['g'], tallies: [{ requests: results.length, errors }],
    });
    it('throw EDGE_NO_DATA when no target advanced or produced a gauge', () => {
      expect(run([stalled, stalled, idle])).toThrow(NoDataError);
      expect(run([stalled, idle])).toThrow(expect.objectContaining({ code: 'EDGE_NO_DATA' }) as Error);
    });
    it('throw the request error when the other answers said nothing', () => {
      const boom = new Error('down');
      expect(run([stalled, stalled], [boom])).toThrow(boom);
    });
    it('do not fail the cycle when another target advanced, produced a gauge, or nothing was due', () => {
      expect(run([stalled, moved])().watermarks).toEqual({ s: 1, t: T0 });
      expect(run([stalled, { ...idle, gauges: [{ name: 'g', labels: {}, value: 1 }] }])().gauges.get('g')).toHaveLength(1);
      expect(run([idle, idle])().errors).toEqual([]);
    });
  });
  it('is fine with no requests at all', () => {
    expect(assemble({ collector: 'c', previous: { a: 1 }, results: [], gaugeFamilies: [], tallies: [] }).watermarks).toEqual({ a: 1 });
  });
});
