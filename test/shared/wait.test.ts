// pause() chains a wait longer than setTimeout runs instead of firing after 1 ms.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, pause } from '../../src/shared/wait.js';

afterEach(() => vi.useRealTimers());

describe('pause', () => {
  it('waits the whole of a 30-day pause, no single timer over the limit', async () => {
    vi.useFakeTimers({ now: 0 });
    const spy = vi.spyOn(globalThis, 'setTimeout');
    let done = false;
    void pause(30 * 86_400_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(30 * 86_400_000 - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    expect(Math.max(...spy.mock.calls.map((call) => call[1] ?? 0))).toBe(MAX_TIMER_MS);
    spy.mockRestore();
  });

  it('still ends at once on abort during a chained wait', async () => {
    vi.useFakeTimers({ now: 0 });
    const stop = new AbortController();
    let done = false;
    void pause(30 * 86_400_000, stop.signal).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS + 5);
    stop.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
