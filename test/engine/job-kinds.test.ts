// The engine's two kinds of job side by side: a collector's skipped tick is
// counted and warned; an event stream's (a backlog outlasting the interval)
// is quiet, uncounted, and followed by a run as soon as the current one ends.
// Every run is reported with its kind.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { platformClock } from '../../src/api/index.js';
import type { EventJob, JobRun } from '../../src/engine/job.js';
import { Scheduler } from '../../src/engine/scheduler.js';
import { MIN, T0, recordingLogger, sleep } from './fakes.js';

/** An event job whose runs take `runMs` each (on fake time) and report ok. */
function slowEvents(runMs: number): EventJob & { starts: number[]; flushed: number } {
  const job = {
    kind: 'events' as const,
    name: 'events',
    schedule: { kind: 'interval', everyMs: MIN } as const,
    starts: [] as number[],
    flushed: 0,
    restore: () => Promise.resolve(),
    async run(signal: AbortSignal) {
      job.starts.push(Date.now());
      await sleep(runMs, signal).catch(() => undefined);
      return { ok: true };
    },
    async flush() {
      job.flushed++;
    },
  };
  return job;
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

describe('Scheduler with an event-stream job', () => {
  it('runs again right after a run that outlasted its ticks; no warning, no skipped-tick count', async () => {
    const job = slowEvents(150_000);
    const logger = recordingLogger();
    const runs: JobRun[] = [];
    const skipped: string[] = [];
    const engine = new Scheduler({
      jobs: [job], tz: platformClock('+08:00'), logger, jitterMs: 0,
      observer: { onRun: (run) => runs.push(run), onSkippedTick: ({ job: name }) => skipped.push(name) },
    });
    engines.push(engine);
    await engine.start();
    // T0 is 20 s past a boundary: ticks at +40 s and +100 s fall inside the first run (150 s).
    await vi.advanceTimersByTimeAsync(150_000);
    expect(job.starts).toEqual([T0, T0 + 150_000]);
    expect(skipped).toEqual([]);
    expect(engine.status('events')[0]).toMatchObject({ name: 'events', skippedTicks: 0, running: true });
    expect(logger.entries.filter((e) => e.level === 'warn')).toEqual([]);
    expect(logger.entries.some((e) => e.level === 'debug' && e.msg?.includes('running again when it ends'))).toBe(true);
    expect(runs).toEqual([{ job: 'events', kind: 'events', report: { ok: true } }]);
    // Not a collector: the collectors' status (the landing page, /readyz) does not list it.
    expect(engine.status('samples')).toEqual([]);
  });

  it('stop aborts the run in flight, flushes the job once and arms nothing more', async () => {
    const job = slowEvents(10 * MIN);
    const engine = new Scheduler({ jobs: [job], tz: platformClock('+08:00'), logger: recordingLogger(), jitterMs: 0 });
    engines.push(engine);
    await engine.start();
    await vi.advanceTimersByTimeAsync(2 * MIN);
    await engine.stop();
    expect(job.flushed).toBe(1);
    await vi.advanceTimersByTimeAsync(30 * MIN);
    expect(job.starts).toEqual([T0]);
    expect(engine.status('events')[0]?.nextRunAt).toBeUndefined();
  });
});
