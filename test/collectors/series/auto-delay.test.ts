// delay: auto in the audit record: the delay in force starts at the configured
// one, follows the suggestion within its bounds, and the watermark rule
// (planCount) counts every bucket once across a change either way.
import { describe, expect, it } from 'vitest';
import { planCount } from '../../../src/collectors/buckets.js';
import { AuditRecord } from '../../../src/collectors/series/audit.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const AUTO = { floorMs: 5 * MIN, ceilingMs: HOUR };
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const record = () => new AuditRecord({ everyMs: MIN, lookbackMs: HOUR, correct: true });

describe('AuditRecord: the delay in force', () => {
  it('a fixed delay is never changed', () => {
    const b = record();
    expect(b.adopt(7 * MIN, 3 * MIN, undefined)).toBeUndefined();
    expect(b.delayInForce(3 * MIN, undefined)).toBe(3 * MIN);
  });

  it.each([
    { name: 'starts at the configured delay', suggestions: [], want: 5 * MIN, changes: [] },
    { name: 'follows a longer suggestion', suggestions: [7 * MIN], want: 7 * MIN, changes: [7 * MIN] },
    { name: 'an unchanged suggestion is no change', suggestions: [7 * MIN, 7 * MIN], want: 7 * MIN, changes: [7 * MIN, undefined] },
    { name: 'follows a shorter one back', suggestions: [9 * MIN, 6 * MIN], want: 6 * MIN, changes: [9 * MIN, 6 * MIN] },
    { name: 'never below the floor', suggestions: [2 * MIN], want: 5 * MIN, changes: [undefined] },
    { name: 'never above the ceiling', suggestions: [3 * HOUR], want: HOUR, changes: [HOUR] },
  ])('$name', ({ suggestions, want, changes }) => {
    const b = record();
    const seen = suggestions.map((s) => b.adopt(s, b.delayInForce(5 * MIN, AUTO), AUTO));
    expect(seen).toEqual(changes);
    expect(b.delayInForce(5 * MIN, AUTO)).toBe(want);
  });
});

describe('the watermark across a change of the delay in force', () => {
  /** Buckets counted by cycles a minute apart, each with its delay; every bucket start, in order. */
  function counted(delays: readonly number[]): number[] {
    let watermark: number | undefined;
    const out: number[] = [];
    delays.forEach((delayMs, k) => {
      const plan = planCount({ watermark, now: T0 + k * MIN, interval: '1m', delayMs, maxBackfillMs: 6 * HOUR, offsetMinutes: 480 });
      if (plan.kind === 'initial') watermark = plan.lastSettled;
      if (plan.kind !== 'count') return;
      for (let b = plan.from; b <= plan.lastSettled; b += MIN) out.push(b);
      watermark = plan.lastSettled;
    });
    return out;
  }
  const consecutive = (starts: readonly number[]) => starts.every((s, i) => i === 0 || s === (starts[i - 1] ?? 0) + MIN);

  it.each([
    { name: 'growing 5m -> 7m: two idle cycles, nothing twice', delays: [5, 5, 5, 7, 7, 7, 7, 7], count: 5 },
    { name: 'shrinking 9m -> 5m: the gap counted at once, nothing skipped', delays: [9, 9, 9, 5, 5, 5], count: 9 },
    { name: 'growing then shrinking', delays: [5, 5, 12, 12, 12, 5, 5], count: 6 },
  ])('$name', ({ delays, count }) => {
    const starts = counted(delays.map((d) => d * MIN));
    expect(new Set(starts).size).toBe(starts.length);
    expect(consecutive(starts)).toBe(true);
    expect(starts.length).toBe(count);
    // Ends where the last delay in force puts the newest settled bucket.
    const last = (delays.at(-1) ?? 0) * MIN;
    expect((starts.at(-1) ?? 0) + MIN + last).toBe(T0 + (delays.length - 1) * MIN);
  });
});
