// The budget on a fake clock: what is admitted when, in which order, and what
// every one-second window holds. No sleeps: vi's timers move the clock.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateGate, type Permit } from '../../src/api/rate-gate.js';
import { ArgumentError } from '../../src/shared/errors.js';

const A = 'http://api.test';
const B = 'http://login.test';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Admission times of `count` requests to `host`, each settled `latencyMs` after it was admitted. */
function load(gate: RateGate, count: number, latencyMs: number, host = A): number[] {
  const admitted: number[] = [];
  for (let i = 0; i < count; i++) {
    void gate.acquire(host).then((permit) => {
      admitted.push(Date.now());
      if (latencyMs === 0) permit?.release();
      else setTimeout(() => permit?.release(), latencyMs);
    });
  }
  return admitted;
}

function mostInWindow(times: readonly number[], windowMs: number): number {
  return Math.max(0, ...times.map((t) => times.filter((u) => u >= t && u < t + windowMs).length));
}

describe('RateGate', () => {
  it('admits a burst of N at once, then holds each slot one second after its request settled', async () => {
    const gate = new RateGate(3);
    const admitted = load(gate, 7, 200);
    await vi.advanceTimersByTimeAsync(5000);
    // Each slot is held 1 ms past the second (rate-gate.ts says why).
    expect(admitted).toEqual([0, 0, 0, 1201, 1201, 1201, 2402]);
  });

  it.each([[1, 0], [5, 0], [5, 350], [10, 40], [2.5, 10]])('never lets more than the rate through in any 1 s window, nor 10× in any 10 s (rate %s, latency %s ms)', async (rate, latency) => {
    const gate = new RateGate(rate);
    const admitted = load(gate, 120, latency);
    await vi.advanceTimersByTimeAsync(200_000);
    expect(admitted).toHaveLength(120);
    expect(mostInWindow(admitted, 1000)).toBeLessThanOrEqual(Math.max(1, Math.floor(rate)));
    expect(mostInWindow(admitted, 10_000)).toBeLessThanOrEqual(Math.ceil(rate * 10));
  });

  it('spaces a fractional rate: 0.5 per second is one request every 2 s', async () => {
    const gate = new RateGate(0.5);
    const admitted = load(gate, 3, 0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(admitted).toEqual([0, 2001, 4002]);
  });

  it('serves waiters in the order they came', async () => {
    const gate = new RateGate(1);
    const order: string[] = [];
    for (const name of ['a', 'b', 'c', 'd']) {
      void gate.acquire(A).then((p) => {
        order.push(`${name}@${Date.now()}`);
        p?.release();
      });
    }
    await vi.advanceTimersByTimeAsync(5000);
    expect(order).toEqual(['a@0', 'b@1001', 'c@2002', 'd@3003']);
  });

  it('removes an aborted waiter from the queue; the ones behind it move up, nothing is dropped', async () => {
    const gate = new RateGate(1);
    const first = await gate.acquire(A);
    const abort = new AbortController();
    const waits = { aborted: gate.acquire(A, abort.signal), next: gate.acquire(A) };
    abort.abort();
    await expect(waits.aborted).resolves.toBeUndefined();
    first?.release();
    await vi.advanceTimersByTimeAsync(1000);
    let next: Permit | undefined;
    void waits.next.then((p) => (next = p));
    await vi.advanceTimersByTimeAsync(0);
    expect(next).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(next?.sentAt).toBe(1001);
  });

  it('answers an already aborted signal without queueing', async () => {
    const gate = new RateGate(1);
    await expect(gate.acquire(A, AbortSignal.abort())).resolves.toBeUndefined();
    await expect(gate.acquire(A)).resolves.toMatchObject({ sentAt: 0 });
  });

  it('reports a wait only when the request cannot go at once', async () => {
    const gate = new RateGate(1);
    const onWait = vi.fn();
    await gate.acquire(A, undefined, onWait);
    void gate.acquire(A, undefined, onWait);
    expect(onWait).toHaveBeenCalledTimes(1);
  });

  it('holds every request to a paused host until the pause ends, while the other host goes on', async () => {
    const gate = new RateGate(Number.POSITIVE_INFINITY);
    gate.pause(A, 3000);
    const times: string[] = [];
    for (const host of [A, A, B]) void gate.acquire(host).then((p) => {
      times.push(`${host === A ? 'api' : 'login'}@${Date.now()}`);
      p?.release();
    });
    await vi.advanceTimersByTimeAsync(5000);
    expect(times).toEqual(['login@0', 'api@3000', 'api@3000']);
  });

  it('keeps the later of two pauses', async () => {
    const gate = new RateGate(Number.POSITIVE_INFINITY);
    gate.pause(A, 4000);
    gate.pause(A, 1000);
    let at: number | undefined;
    void gate.acquire(A).then(() => (at = Date.now()));
    await vi.advanceTimersByTimeAsync(5000);
    expect(at).toBe(4000);
  });

  it('applies a lowered rate to the requests still waiting', async () => {
    const gate = new RateGate(4);
    const admitted = load(gate, 8, 0);
    await vi.advanceTimersByTimeAsync(0);
    expect(admitted).toEqual([0, 0, 0, 0]);
    gate.setRate(1);
    await vi.advanceTimersByTimeAsync(10_000);
    // The four slots held from the burst free at 1001; the new rate admits one per 1001 ms from then.
    expect(admitted).toEqual([0, 0, 0, 0, 1001, 2002, 3003, 4004]);
  });

  it('counts what it admitted in the last second', async () => {
    const gate = new RateGate(Number.POSITIVE_INFINITY);
    load(gate, 6, 0);
    await vi.advanceTimersByTimeAsync(0);
    expect(gate.recentlySent()).toBe(6);
    await vi.advanceTimersByTimeAsync(1000);
    expect(gate.recentlySent()).toBe(0);
  });

  it('refuses a rate that is not positive', () => {
    expect(() => new RateGate(0)).toThrow(ArgumentError);
  });
});
