// The clock_offset judgement both the doctor and the run-time count use,
// table-driven: where "within a bucket" ends on either side, the delay it
// advises, and the run-time mismatch it makes (behind only).
import { describe, expect, it } from 'vitest';
import { clockMismatch, judgeClockOffset } from '../../../src/collectors/contract/clock.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('judgeClockOffset', () => {
  it.each([
    ['in step', 0, 5 * MIN, 5 * MIN, { kind: 'in_step', buckets: 0 }],
    ['one bucket behind', 5 * MIN, 5 * MIN, 5 * MIN, { kind: 'in_step', buckets: 1 }],
    ['one bucket ahead', -5 * MIN, 5 * MIN, 5 * MIN, { kind: 'in_step', buckets: -1 }],
    ['two buckets behind', 10 * MIN, 5 * MIN, 5 * MIN, { kind: 'behind', buckets: 2, offsetMs: 10 * MIN, delayMs: 15 * MIN, beyondDelay: false }],
    ['10 minutes behind in minutes, delay 3m', 10 * MIN, MIN, 3 * MIN, { kind: 'behind', buckets: 10, offsetMs: 10 * MIN, delayMs: 15 * MIN, beyondDelay: false }],
    ['3 hours behind', 3 * HOUR, 5 * MIN, 5 * MIN, { kind: 'behind', buckets: 36, offsetMs: 3 * HOUR, delayMs: 185 * MIN, beyondDelay: false }],
    ['a day behind in hours: the delay capped at its longest, 1d', DAY, HOUR, 5 * MIN, { kind: 'behind', buckets: 24, offsetMs: DAY, delayMs: DAY, beyondDelay: true }],
    ['23 hours behind, delay 5m: 1d covers it exactly', 23 * HOUR, HOUR, 5 * MIN, { kind: 'behind', buckets: 23, offsetMs: 23 * HOUR, delayMs: DAY, beyondDelay: false }],
    ['10 minutes ahead', -10 * MIN, MIN, 5 * MIN, { kind: 'ahead', buckets: 10, offsetMs: 10 * MIN }],
    ['a day ahead', -DAY, 5 * MIN, 5 * MIN, { kind: 'ahead', buckets: 288, offsetMs: DAY }],
  ] as const)('%s', (_name, behindMs, size, delayMs, expected) => {
    expect(judgeClockOffset({ behindMs, size, delayMs })).toEqual(expected);
  });
});

describe('clockMismatch', () => {
  it('behind: clock_offset, naming the delay key and the value to try', () => {
    const found = clockMismatch(judgeClockOffset({ behindMs: 10 * MIN, size: MIN, delayMs: 3 * MIN }), 'requestTrend');
    expect(found).toMatchObject({ check: 'clock_offset', field: 'requestTrend', configKey: 'delay', suggest: '15m' });
    expect(found?.seen).toContain('10 bucket(s) (10m) behind');
  });

  it.each([['in step', MIN], ['ahead', -10 * MIN]])('%s: nothing at run time', (_name, behindMs) => {
    expect(clockMismatch(judgeClockOffset({ behindMs, size: MIN, delayMs: 3 * MIN }), 'requestTrend')).toBeUndefined();
  });
});
