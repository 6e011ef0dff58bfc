import { describe, expect, it } from 'vitest';
import { SimClock } from '../../src/simulator/clock.js';
import { ArgumentError } from '../../src/shared/errors.js';

function fakeWall(start = 1_000_000): { wall: () => number; tick(ms: number): void } {
  let t = start;
  return { wall: () => t, tick: (ms) => void (t += ms) };
}

describe('SimClock', () => {
  it('fixed mode moves only by set and advance', () => {
    const w = fakeWall();
    const clock = new SimClock({ mode: 'fixed', start: 5_000, wall: w.wall });
    w.tick(10_000);
    expect(clock.now()).toBe(5_000);
    clock.advance(250);
    expect(clock.now()).toBe(5_250);
    clock.set(42);
    expect(clock.state()).toEqual({ now: 42, mode: 'fixed', speed: 0 });
  });

  it('real mode follows the wall clock from its start', () => {
    const w = fakeWall();
    const clock = new SimClock({ mode: 'real', start: 0, wall: w.wall });
    w.tick(1_500);
    expect(clock.now()).toBe(1_500);
    clock.advance(500);
    w.tick(100);
    expect(clock.now()).toBe(2_100);
  });

  it('defaults to the wall clock itself', () => {
    const w = fakeWall(123_456);
    expect(new SimClock({ wall: w.wall }).now()).toBe(123_456);
  });

  it.each([
    [2, 1_000, 2_000],
    [60, 1_000, 60_000],
    [0.5, 1_000, 500],
  ])('speed %d turns %d wall ms into %d simulated ms', (speed, wallMs, simMs) => {
    const w = fakeWall();
    const clock = new SimClock({ start: 0, speed, wall: w.wall });
    w.tick(wallMs);
    expect(clock.now()).toBe(simMs);
  });

  it('setSpeed re-anchors without a jump, and 0 freezes', () => {
    const w = fakeWall();
    const clock = new SimClock({ start: 0, wall: w.wall });
    w.tick(1_000);
    clock.setSpeed(10);
    expect(clock.now()).toBe(1_000);
    w.tick(1_000);
    expect(clock.now()).toBe(11_000);
    clock.setSpeed(0);
    w.tick(5_000);
    expect(clock.state()).toEqual({ now: 11_000, mode: 'fixed', speed: 0 });
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('rejects speed %d', (speed) => {
    expect(() => new SimClock({ start: 0 }).setSpeed(speed)).toThrow(ArgumentError);
  });
});
