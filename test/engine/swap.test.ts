// swap(): what a reload that changes some collectors does to the running
// engine. The replaced job's run is aborted and it is flushed before its
// successor restores and runs; a removed job stops for good; every other job
// keeps its schedule and run state, and its runs go on undisturbed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { platformClock } from '../../src/api/index.js';
import type { SampleJob } from '../../src/engine/job.js';
import { Scheduler } from '../../src/engine/scheduler.js';
import { MIN, T0, recordingLogger, sleep } from './fakes.js';

const HOUR = 60 * MIN;
/** The minute boundary T0 lies in (T0 is 20 s past it). */
const B0 = T0 - 20_000;

type Fake = SampleJob & { starts: number[]; aborted: number; order: string[] };

/** A sample job on `everyMs` whose runs last `runMs` (on fake time); `order` collects its restore, run and flush. */
function job(name: string, everyMs: number, runMs: number, order: string[]): Fake {
  const fake: Fake = {
    kind: 'samples', name, schedule: { kind: 'interval', everyMs }, starts: [], aborted: 0, order,
    restore: async () => void order.push(`${name} restore`),
    async run(signal: AbortSignal) {
      fake.starts.push(Date.now());
      order.push(`${name} run`);
      await sleep(runMs, signal).catch(() => fake.aborted++);
      return { collector: name, now: Date.now(), ok: true, durationMs: 0, partialErrors: 0 };
    },
    flush: async () => void order.push(`${name} flush`),
  };
  return fake;
}

let engines: Scheduler[] = [];
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(async () => {
  await Promise.all(engines.map((e) => e.stop()));
  engines = [];
  vi.useRealTimers();
});

function engineOf(jobs: SampleJob[]): Scheduler {
  const engine = new Scheduler({ jobs, tz: platformClock('+08:00'), logger: recordingLogger(), jitterMs: 0, observer: { onRun: () => undefined } });
  engines.push(engine);
  return engine;
}

describe('Scheduler.swap', () => {
  it('restarts the replaced job alone: aborted and flushed, then its successor restores and runs on its own schedule', async () => {
    const order: string[] = [];
    const a = job('a', MIN, 1_000, order);
    const b = job('b', MIN, 30_000, order);
    const engine = engineOf([a, b]);
    await engine.start();
    await vi.advanceTimersByTimeAsync(5_000);
    const aBefore = engine.status().find((s) => s.name === 'a');
    order.length = 0;

    const b2 = job('b', HOUR, 1_000, order);
    await engine.swap([b2], []);
    expect(b.aborted).toBe(1);
    expect(order).toEqual(['b flush', 'b restore', 'b run']);
    // a: untouched (same last run, no run at the swap).
    expect(engine.status().find((s) => s.name === 'a')).toEqual(aBefore);
    expect(a.starts).toEqual([T0]);

    // Two minute boundaries: a runs on its 1m schedule; b's old job never again, b2 (1h) not before the hour.
    await vi.advanceTimersByTimeAsync(2 * MIN);
    expect(a.starts).toEqual([T0, B0 + MIN, B0 + 2 * MIN]);
    expect(b.starts).toEqual([T0]);
    expect(b2.starts).toEqual([T0 + 5_000]);
    expect(engine.status().map((s) => s.name)).toEqual(['a', 'b']);
  });

  it('removes a job for good and adds a new one', async () => {
    const order: string[] = [];
    const a = job('a', MIN, 1_000, order);
    const engine = engineOf([a]);
    await engine.start();
    await vi.advanceTimersByTimeAsync(2_000);
    const c = job('c', MIN, 1_000, order);
    await engine.swap([c], ['a']);
    await vi.advanceTimersByTimeAsync(2 * MIN);
    expect(a.starts).toEqual([T0]);
    expect(c.starts).toEqual([T0 + 2_000, B0 + MIN, B0 + 2 * MIN]);
    expect(engine.status().map((s) => s.name)).toEqual(['c']);
    expect(order.filter((o) => o.startsWith('a'))).toEqual(['a restore', 'a run', 'a flush']);
  });
});
