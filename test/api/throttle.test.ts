// AIMD on a fake clock: how far a 429 lowers the rate, how it recovers, and
// when a throttled period starts and ends.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateGate } from '../../src/api/rate-gate.js';
import { MIN_RATE, RECOVERY_SECONDS, Throttle, lowered, raised } from '../../src/api/throttle.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 10_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('lowered', () => {
  it.each([
    [10, 0, 5],
    [1, 0, 0.5],
    [0.15, 0, MIN_RATE],
    [Number.POSITIVE_INFINITY, 40, 20],
    [Number.POSITIVE_INFINITY, 0, 0.5],
  ])('rate %s, %s sent in the last second -> %s', (rate, sent, expected) => {
    expect(lowered(rate, sent)).toBe(expected);
  });
});

describe('raised', () => {
  it.each([
    // One success at rate 5 after a 429 at 10: a fifth of the level/RECOVERY_SECONDS step per second.
    [5, 10, 10, 5 + 10 / RECOVERY_SECONDS / 5],
    [9.999, 10, 10, 10],
    [0.1, 0.2, 0.2, 0.2],
  ])('rate %s, level %s, target %s -> %s', (rate, level, target, expected) => {
    expect(raised(rate, level, target)).toBeCloseTo(expected, 9);
  });

  it('takes about RECOVERY_SECONDS of answers at full demand to climb from half back to the level', () => {
    let rate = 5;
    let answers = 0;
    // At full demand `rate` answers arrive per second.
    for (let second = 0; rate < 10; second++) {
      const perSecond = Math.floor(rate);
      for (let i = 0; i < perSecond && rate < 10; i++) {
        rate = raised(rate, 10, 10);
        answers += 1;
      }
      expect(second).toBeLessThan(RECOVERY_SECONDS);
    }
    expect(answers).toBeGreaterThan(RECOVERY_SECONDS * 5 / 2);
  });
});

describe('Throttle', () => {
  it('halves a configured budget on a 429, once per round, and ends when recovered', () => {
    const gate = new RateGate(10);
    const throttle = new Throttle(gate, 10);
    const sentBefore = gate.clock();
    vi.advanceTimersByTime(1);
    expect(throttle.onThrottled(gate.clock(), true)).toBe('start');
    expect(gate.ratePerSecond).toBe(5);
    // Another answer to a request sent before the decrease: already accounted for.
    expect(throttle.onThrottled(sentBefore, true)).toBeUndefined();
    expect(gate.ratePerSecond).toBe(5);
    vi.advanceTimersByTime(1);
    throttle.onThrottled(gate.clock(), true);
    expect(gate.ratePerSecond).toBe(2.5);
    let successes = 0;
    while (throttle.onSuccess() !== 'end') successes += 1;
    expect(gate.ratePerSecond).toBe(10);
    expect(throttle.active).toBe(false);
    expect(successes).toBeGreaterThan(100);
  });

  it('with no budget, lowers to half of what was sent and lifts its limit once back there', async () => {
    const gate = new RateGate(Number.POSITIVE_INFINITY);
    for (let i = 0; i < 40; i++) (await gate.acquire('h'))?.release();
    const throttle = new Throttle(gate, Number.POSITIVE_INFINITY);
    vi.advanceTimersByTime(1);
    throttle.onThrottled(gate.clock(), true);
    expect(gate.ratePerSecond).toBe(20);
    let end;
    for (let i = 0; i < 10_000 && end === undefined; i++) end = throttle.onSuccess();
    expect(end).toBe('end');
    expect(gate.ratePerSecond).toBe(Number.POSITIVE_INFINITY);
  });

  it('a 503 with Retry-After starts a throttled period without lowering the rate', () => {
    const gate = new RateGate(10);
    const throttle = new Throttle(gate, 10);
    expect(throttle.onThrottled(gate.clock(), false)).toBe('start');
    expect(gate.ratePerSecond).toBe(10);
    expect(throttle.onSuccess()).toBe('end');
  });

  it('does nothing on success while not throttled', () => {
    const gate = new RateGate(3);
    expect(new Throttle(gate, 3).onSuccess()).toBeUndefined();
    expect(gate.ratePerSecond).toBe(3);
  });
});
