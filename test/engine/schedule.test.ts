import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cronTimezone, jitterOffsetMs, scheduleOf, slotStart, startTicker, type Ticker } from '../../src/engine/schedule.js';
import { MIN, T0, recordingLogger } from './fakes.js';
import { MAX_TIMER_MS } from '../../src/config/duration.js';

const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const UTC8 = 480;
/** The minute boundary T0 lies in (T0 is 20 s past it). */
const B0 = T0 - 20_000;

describe('scheduleOf', () => {
  it.each([
    [{ interval: '1m' as const }, { kind: 'interval', everyMs: MIN }],
    [{ interval: '1d' as const }, { kind: 'interval', everyMs: DAY }],
    [{ interval: 7 * MIN }, { kind: 'interval', everyMs: 7 * MIN }],
    [{ interval: '5m' as const, schedule: '*/10 * * * *' }, { kind: 'cron', expression: '*/10 * * * *' }],
  ])('%j -> %j', (options, expected) => {
    expect(scheduleOf(options)).toEqual(expected);
  });
});

describe('slotStart', () => {
  it.each([
    [MIN, T0, B0],
    [5 * MIN, T0 + 7 * MIN, B0 + 5 * MIN],
    [HOUR, T0, Date.UTC(2026, 2, 2, 4, 0)],
    // Whole days start at platform midnight: 00:00 UTC+8 = 16:00 UTC.
    [DAY, T0, Date.UTC(2026, 2, 1, 16, 0)],
    [DAY, Date.UTC(2026, 2, 2, 16, 0), Date.UTC(2026, 2, 2, 16, 0)],
  ])('every %i ms, t=%i -> %i', (every, t, expected) => {
    expect(slotStart(every, t, UTC8)).toBe(expected);
  });
});

describe('jitterOffsetMs', () => {
  it.each(['access', 'usage', 'topn', 'cc_attack', 'waf_trend', 'inventory'])('%s: fixed and within [0, jitter)', (name) => {
    const offset = jitterOffsetMs(name, 5000);
    expect(offset).toBe(jitterOffsetMs(name, 5000));
    expect(offset).toBeGreaterThanOrEqual(0);
    expect(offset).toBeLessThan(5000);
    expect(jitterOffsetMs(name, 0)).toBe(0);
  });

  it('spreads the collectors', () => {
    const offsets = new Set(['access', 'usage', 'topn', 'cc_attack', 'waf_trend', 'inventory'].map((n) => jitterOffsetMs(n, 5000)));
    expect(offsets.size).toBe(6);
  });
});

describe('cronTimezone', () => {
  it.each([
    [480, 'Etc/GMT-8'],
    [-300, 'Etc/GMT+5'],
    [0, 'UTC'],
    [330, 'UTC'],
    [14 * 60, 'Etc/GMT-14'],
  ])('%i min -> %s', (offset, zone) => {
    expect(cronTimezone(offset)).toBe(zone);
  });
});

describe('interval ticker', () => {
  let skew = 0;
  const clock = { now: () => Date.now() + skew };
  let ticker: Ticker | undefined;
  const ticks: number[] = [];
  const missed: number[] = [];
  const start = (everyMs: number, offsetMs = 0): Ticker => {
    ticker = startTicker({
      name: 't',
      schedule: { kind: 'interval', everyMs },
      offsetMs,
      tzOffsetMinutes: UTC8,
      clock,
      log: recordingLogger(),
      onTick: (slot) => ticks.push(slot),
      onMissed: (n) => missed.push(n),
    });
    return ticker;
  };

  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
    skew = 0;
    ticks.length = 0;
    missed.length = 0;
  });
  afterEach(() => {
    ticker?.stop();
    vi.useRealTimers();
  });

  it('fires on every boundary after start-up, plus the offset', async () => {
    const t = start(MIN, 1234);
    expect(t.nextRunAt()).toBe(B0 + MIN + 1234);
    await vi.advanceTimersByTimeAsync(3 * MIN + 30_000); // to B0 + 3m50s
    expect(ticks).toEqual([B0 + MIN, B0 + 2 * MIN, B0 + 3 * MIN]);
    expect(missed).toEqual([]);
  });

  it('neither skips nor repeats a slot when the clock drifts or steps under half an interval', async () => {
    start(MIN);
    const steps = [25_000, -20_000, 10_000, 29_000, -29_000, 0, 15_000, -5_000];
    for (const s of steps) {
      skew = s;
      await vi.advanceTimersByTimeAsync(37_000);
    }
    expect(ticks.length).toBeGreaterThan(3);
    ticks.forEach((slot, i) => expect(slot).toBe(B0 + (i + 1) * MIN));
    expect(missed).toEqual([]);
  });

  it('waits again on an early wake-up instead of repeating the slot', async () => {
    start(MIN);
    skew = -30_000; // the clock steps back after the timer was armed
    await vi.advanceTimersByTimeAsync(40_000);
    expect(ticks).toEqual([]);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(ticks).toEqual([B0 + MIN]);
  });

  it('reports whole slots missed while the process was suspended, then resumes on the grid', async () => {
    start(MIN);
    skew = 3 * MIN + 10_000; // suspended for three minutes
    await vi.advanceTimersByTimeAsync(40_000);
    expect(missed).toEqual([3]);
    expect(ticks).toEqual([B0 + 4 * MIN]);
    await vi.advanceTimersByTimeAsync(MIN);
    expect(ticks).toEqual([B0 + 4 * MIN, B0 + 5 * MIN]);
  });

  it('never hands setTimeout more than it runs, even when the clock steps back a month', async () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    start(MIN);
    skew = -30 * DAY; // after arming: the wake-up at the boundary is early by 30 days
    await vi.advanceTimersByTimeAsync(30 * DAY + MIN);
    const delays = spy.mock.calls.map((call) => call[1] ?? 0);
    spy.mockRestore();
    expect(Math.max(...delays)).toBe(MAX_TIMER_MS); // the 30-day wait was cut to the limit, then chained
    expect(ticks).toEqual([B0 + MIN]);
    expect(missed).toEqual([]);
  });

  it('aligns whole days to platform midnight', async () => {
    start(DAY, 500);
    await vi.advanceTimersByTimeAsync(DAY);
    expect(ticks).toEqual([Date.UTC(2026, 2, 2, 16, 0)]);
  });

  it('keeps the offset inside the interval', async () => {
    start(MIN, MIN + 5_000);
    await vi.advanceTimersByTimeAsync(45_000);
    expect(ticks).toEqual([B0 + MIN]);
  });

  it('stops', async () => {
    const t = start(MIN);
    t.stop();
    expect(t.nextRunAt()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(5 * MIN);
    expect(ticks).toEqual([]);
  });
});
