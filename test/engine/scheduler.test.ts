// The engine's schedule and lifecycle, with fake collectors and fake timers.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { jitterOffsetMs } from '../../src/engine/schedule.js';
import type { Schedule } from '../../src/engine/schedule.js';
import {
  MIN, T0, every, fakeCollector, idleClient, output, rig, sleep, trackRigs, MemoryStore,
} from './fakes.js';

const client = idleClient();
afterAll(() => client.close());

/** The minute boundary T0 lies in (T0 is 20 s past it). */
const B0 = T0 - 20_000;
const HOUR = 60 * MIN;

const track = trackRigs();

describe('Engine: schedule', () => {
  it('runs every collector once at start-up, with the targets and empty watermarks', async () => {
    const a = fakeCollector('a');
    const b = fakeCollector('b');
    const r = track(rig({ client, collectors: [{ collector: a, schedule: every(MIN) }, { collector: b, schedule: every(HOUR) }] }));
    await r.engine.start();
    await vi.advanceTimersByTimeAsync(0);
    for (const c of [a, b]) {
      expect(c.calls.map((ctx) => ctx.now)).toEqual([T0]);
      expect(c.calls[0]?.targets).toEqual({ domains: ['a.example.com'], packages: ['pkg-1'] });
      expect(c.calls[0]?.watermarks).toEqual({});
    }
    expect(r.targets.refreshes).toEqual([T0, T0]);
  });

  it.each<[string, Schedule, number, number, number[]]>([
    ['1m, no jitter', every(MIN), 0, 3 * MIN, [T0, B0 + MIN, B0 + 2 * MIN, B0 + 3 * MIN]],
    ['1m with jitter', every(MIN), 5000, 3 * MIN, [T0, B0 + MIN, B0 + 2 * MIN, B0 + 3 * MIN]],
    ['5m with jitter', every(5 * MIN), 5000, 11 * MIN, [T0, B0 + 5 * MIN, B0 + 10 * MIN]],
    ['1h', every(HOUR), 5000, 2 * HOUR, [T0, Date.UTC(2026, 2, 2, 5, 0), Date.UTC(2026, 2, 2, 6, 0)]],
    ['1d at platform midnight', every(24 * HOUR), 5000, 24 * HOUR, [T0, Date.UTC(2026, 2, 2, 16, 0)]],
    ['cron every 2 minutes', { kind: 'cron', expression: '*/2 * * * *' }, 0, 5 * MIN, [T0, B0 + 2 * MIN, B0 + 4 * MIN]],
    ['cron at platform midnight', { kind: 'cron', expression: '0 0 * * *' }, 3000, 24 * HOUR, [T0, Date.UTC(2026, 2, 2, 16, 0)]],
  ])('%s: runs at start-up, then on boundaries plus the fixed offset', async (_name, schedule, jitterMs, span, boundaries) => {
    const c = fakeCollector('access');
    const r = track(rig({ client, jitterMs, collectors: [{ collector: c, schedule }] }));
    await r.engine.start();
    await vi.advanceTimersByTimeAsync(span);
    const offset = jitterOffsetMs('access', jitterMs);
    expect(c.calls.map((ctx) => ctx.now)).toEqual(boundaries.map((b, i) => (i === 0 ? b : b + offset)));
  });

  it('never runs a collector twice at once: a tick during a slow run is skipped and counted', async () => {
    const slow = fakeCollector('slow', async (ctx) => {
      await sleep(90_000, ctx.signal);
      return output();
    });
    const r = track(rig({ client, collectors: [{ collector: slow, schedule: every(MIN) }] }));
    await r.engine.start();
    await vi.advanceTimersByTimeAsync(3 * MIN + 45_000); // to B0 + 4m05s
    expect(slow.calls.map((ctx) => ctx.now)).toEqual([T0, B0 + 2 * MIN, B0 + 4 * MIN]);
    expect(slow.inFlight.max).toBe(1);
    expect(r.observer.skipped).toEqual(['slow', 'slow']);
    expect(r.engine.status()[0]).toMatchObject({ name: 'slow', running: true, skippedTicks: 2 });
    expect(r.logger.entries.filter((e) => e.msg?.includes('tick skipped'))).toHaveLength(2);
  });

  it('is idempotent: start twice runs once; stop twice stops once', async () => {
    const c = fakeCollector('a');
    const r = track(rig({ client, collectors: [{ collector: c, schedule: every(MIN) }] }));
    await Promise.all([r.engine.start(), r.engine.start()]);
    await vi.advanceTimersByTimeAsync(0);
    expect(c.calls).toHaveLength(1);
    expect(r.engine.stop()).toBe(r.engine.stop());
  });

  it('reports each collector\'s run state for the landing page', async () => {
    const c = fakeCollector('a');
    const r = track(rig({ client, jitterMs: 5000, collectors: [{ collector: c, schedule: every(MIN) }] }));
    expect(r.engine.status()).toEqual([{ name: 'a', running: false, skippedTicks: 0 }]);
    await r.engine.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(r.engine.status()).toEqual([
      {
        name: 'a', running: false, skippedTicks: 0, lastRunAt: T0, lastSuccessAt: T0, lastOutcome: 'success',
        nextRunAt: B0 + MIN + jitterOffsetMs('a', 5000),
      },
    ]);
  });
});

describe('Engine: stop', () => {
  it('stops the schedules and aborts the runs in flight', async () => {
    const c = fakeCollector('a', async (ctx) => {
      await sleep(30_000, ctx.signal);
      return output();
    });
    const r = track(rig({ client, collectors: [{ collector: c, schedule: every(MIN) }] }));
    await r.engine.start();
    await vi.advanceTimersByTimeAsync(1000);
    await r.engine.stop();
    expect(c.calls[0]?.signal.aborted).toBe(true);
    expect(r.observer.reports).toMatchObject([{ collector: 'a', ok: false, error: { code: 'EDGE_ABORTED' } }]);
    await vi.advanceTimersByTimeAsync(10 * MIN);
    expect(c.calls).toHaveLength(1);
    expect(r.engine.status()[0]?.nextRunAt).toBeUndefined();
  });

  it('waits for a run that ignores the abort only up to the bound, then discards its result', async () => {
    const c = fakeCollector('stubborn', async () => {
      await new Promise((resolve) => setTimeout(resolve, 60_000));
      return output({ increments: [{ name: 'edge_fake_requests_total', labels: {}, value: 5 }] });
    });
    const r = track(rig({ client, stopTimeoutMs: 5000, collectors: [{ collector: c, schedule: every(MIN) }] }));
    await r.engine.start();
    const stopped = r.engine.stop();
    await vi.advanceTimersByTimeAsync(5000);
    await stopped;
    expect(r.logger.entries.some((e) => e.msg?.includes('still in flight at stop'))).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(r.events).toEqual([]);
    expect(r.observer.reports).toMatchObject([{ ok: false, error: { code: 'EDGE_ABORTED' } }]);
  });

  it('persists state that could not be saved during a cycle', async () => {
    const store = new MemoryStore();
    store.failSaves = 1;
    const c = fakeCollector('a');
    const r = track(rig({ client, store, collectors: [{ collector: c, schedule: every(MIN) }] }));
    await r.engine.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(r.observer.reports).toMatchObject([{ ok: false, error: { code: 'EDGE_STATE' } }]);
    expect(r.sink.lastCounters('a')).toBeUndefined(); // never published before it is on disk
    await r.engine.stop();
    expect(JSON.parse(store.files.get('ledger-a') ?? '{}')).toMatchObject({ counters: [{ value: 1 }] });
  });
});

describe('Engine: runOnce', () => {
  it('runs every collector once and reports, without arming any schedule', async () => {
    const a = fakeCollector('a');
    const b = fakeCollector('b', () => Promise.reject(new Error('boom')));
    const r = track(rig({ client, collectors: [{ collector: a, schedule: every(MIN) }, { collector: b, schedule: every(MIN) }] }));
    const reports = await r.engine.runOnce();
    expect(reports).toMatchObject([
      { collector: 'a', ok: true, now: T0 },
      { collector: 'b', ok: false, error: { code: 'EDGE_INTERNAL', message: 'boom' } },
    ]);
    await vi.advanceTimersByTimeAsync(10 * MIN);
    expect([a.calls.length, b.calls.length]).toEqual([1, 1]);
  });

  it('joins a run already in flight instead of starting a second one', async () => {
    const c = fakeCollector('a', async (ctx) => {
      await sleep(10_000, ctx.signal);
      return output();
    });
    const r = track(rig({ client, collectors: [{ collector: c, schedule: every(MIN) }] }));
    await r.engine.start();
    const once = r.engine.runOnce();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await once).toMatchObject([{ collector: 'a', ok: true, now: T0 }]);
    expect(c.calls).toHaveLength(1);
  });
});
