// Test doubles for the WAF event forwarder: a LogSink that records what it
// confirmed and can be told to fail, a SampleSink keeping the last counters,
// a logger keeping every line, a forwarder run as the daemon runs it (the one
// job of an engine), and a rig building those on a simulator with a state
// directory that survives "restarts".
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { platformClock, type EdgeClient } from '../../src/api/index.js';
import type { JobLogger } from '../../src/engine/job.js';
import { Scheduler } from '../../src/engine/scheduler.js';
import type { Sample, SampleSink } from '../../src/collectors/collector.js';
import { DeliveryError, type LogBatch, type LogEvent, type LogSink } from '../../src/forwarder/log-sink.js';
import { WafEventForwarder, type PollReport } from '../../src/forwarder/index.js';
import { CHECKPOINT_NAME } from '../../src/forwarder/checkpoint.js';
import { type WafEventForwarderOptions } from '../../src/forwarder/options.js';
import { type WafEventsStats } from '../../src/forwarder/metrics.js';
import { SEVERITY_LABEL } from '../../src/collectors/waf-trend/metrics.js';
import { StateStore, type StateStoreOptions } from '../../src/state/store.js';
import type { Simulator } from '../../src/simulator/index.js';
import { useSim } from '../collectors/series/sim-driver.js';
import { type SimulatorOptions } from '../../src/simulator/simulator.js';

export const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
export const S = 1000;
export const MIN = 60 * S;
export const DENY = 417;

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly msg: string | undefined;
}

export function recordingLogger(lines: LogLine[], bindings: Record<string, unknown> = {}): JobLogger {
  const at = (level: LogLine['level']) => (obj: object, msg?: string): void => {
    lines.push({ level, fields: { ...bindings, ...obj }, msg });
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (b) => recordingLogger(lines, { ...bindings, ...b }) };
}

/** The forwarder under the engine: start and stop are the engine's, pollOnce one engine run of the job. */
export interface Forwarding {
  readonly job: WafEventForwarder;
  start(): Promise<void>;
  stop(): Promise<void>;
  pollOnce(): Promise<PollReport>;
  stats(): WafEventsStats;
}

/** A forwarder as the one job of an engine; `signal` stops the engine when it aborts. */
export function forwarding(options: WafEventForwarderOptions, signal?: AbortSignal): Forwarding {
  const job = new WafEventForwarder(options);
  const engine = new Scheduler({
    jobs: [job],
    tz: options.tz,
    logger: options.log,
    jitterMs: 0,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(signal ? { signal } : {}),
  });
  return {
    job,
    start: () => engine.start(),
    stop: () => engine.stop(),
    async pollOnce() {
      const report = await engine.runJob(job);
      if (!report) throw new Error('the engine does not hold the job');
      return report;
    },
    stats: () => job.stats(),
  };
}

/** A batch of FakeSink's: the events whole, as added. */
export class EventBatch implements LogBatch {
  readonly events: LogEvent[] = [];
  get size(): number {
    return this.events.length;
  }
  add(event: LogEvent): void {
    this.events.push(event);
  }
}

/** A receiver: keeps every batch it confirmed; fails the next `failures` attempts as told. */
export class FakeSink implements LogSink {
  readonly batches: LogEvent[][] = [];
  attempts = 0;
  /** Attempts still to fail. */
  failures = 0;
  /** How a failure looks: all of the batch unconfirmed by default (the OTLP sink confirms a batch whole or not at all). */
  failure: (batch: readonly LogEvent[]) => Error = (batch) => new DeliveryError('receiver down', batch.map((e) => e.uid));
  /** Called on every attempt (e.g. to note how many upstream requests were made so far). */
  onAttempt: (batch: readonly LogEvent[]) => void = () => undefined;

  constructor(readonly maxBatch: number) {}

  batch(): EventBatch {
    return new EventBatch();
  }

  async deliver(batch: LogBatch): Promise<void> {
    if (!(batch instanceof EventBatch)) throw new Error('not a batch of this sink');
    const events = batch.events;
    this.attempts++;
    this.onAttempt(events);
    if (this.failures > 0) {
      this.failures--;
      throw this.failure(events);
    }
    this.batches.push([...events]);
  }

  events(): LogEvent[] {
    return this.batches.flat();
  }

  uids(): string[] {
    return this.events().map((e) => e.uid);
  }
}

export class LastSamples implements SampleSink {
  counters: readonly Sample[] = [];
  /** The last series of each gauge family published. */
  readonly gauges = new Map<string, readonly Sample[]>();
  publish(_collector: string, update: { counters: Iterable<Sample>; gauges: ReadonlyMap<string, readonly Sample[]> }): void {
    this.counters = [...update.counters];
    for (const [name, samples] of update.gauges) this.gauges.set(name, [...samples]);
  }
}

interface Rig {
  readonly sim: Simulator;
  readonly client: EdgeClient;
  /** A fresh state directory per test. */
  readonly dir: string;
  readonly logs: LogLine[];
  forwarder(sink: LogSink, samples: SampleSink, options?: Partial<WafEventForwarderOptions>, store?: StateStoreOptions): Forwarding;
}

export const BASE: Omit<WafEventForwarderOptions, 'client' | 'tz' | 'sink' | 'samples' | 'store' | 'log'> = {
  intervalMs: 30 * S,
  delayMs: 2 * MIN,
  overlapMs: 5 * MIN,
  maxWindowMs: 15 * MIN,
  startBackMs: 60 * MIN,
  query: { pageSize: 20 },
  // No backoff sleeps in the simulator tests: a failing sink is retried at once.
  retry: { minDelayMs: 0, maxDelayMs: 0 },
};

/** One simulator for the file (useSim); per test: clock back at T0, a fresh world and state directory; forwarders stopped after. */
export function useRig(options: SimulatorOptions = {}): Rig {
  const simulator = useSim(options);
  let dir: string | undefined;
  const logs: LogLine[] = [];
  const started: Forwarding[] = [];
  const need = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('rig not started');
    return v;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waf-events-'));
    logs.length = 0;
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((f) => f.stop()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get sim() {
      return simulator.sim;
    },
    get client() {
      return simulator.client;
    },
    get dir() {
      return need(dir);
    },
    logs,
    forwarder(sink, samples, extra = {}, store = {}) {
      const f = forwarding({
        ...BASE,
        client: simulator.client,
        tz: platformClock('+08:00'),
        sink,
        samples,
        store: new StateStore(need(dir), store),
        log: recordingLogger(logs),
        clock: simulator.sim.clock,
        ...extra,
      });
      started.push(f);
      return f;
    },
  };
}

/** Polls `n` times, moving the simulator clock `stepMs` after each. */
export async function polls(f: Forwarding, sim: Simulator, n: number, stepMs: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const report = await f.pollOnce();
    if (!report.ok) throw new Error(`poll failed: ${JSON.stringify(report.error)}`);
    sim.clock.advance(stepMs);
  }
}

/** requestIds of the simulator's deny events with time in [from, to) (visible at `visibleAt` if given, the wafLateIngest reading included). */
export function denyIds(sim: Simulator, from: number, to: number, visibleAt?: number): string[] {
  return sim.truth
    .wafEvents(from, to, visibleAt === undefined ? {} : { visibleAt })
    .filter((e) => e.record.response.httpCode === DENY)
    .map((e) => e.record.requestId);
}

/** Counter values by `domain|rule_id|severity`. */
export function counterMap(samples: readonly Sample[]): Map<string, number> {
  return new Map(samples.map((s) => [`${s.labels.domain}|${s.labels.rule_id}|${s.labels.severity}`, s.value]));
}

/** Expected counter values (`domain|rule_id|severity`) from the simulator's deny records with time in [from, to). */
export function expectedCounters(sim: Simulator, from: number, to: number): Map<string, number> {
  const levels: Record<string, string> = SEVERITY_LABEL;
  const out = new Map<string, number>();
  for (const e of sim.truth.wafEvents(from, to).filter((x) => x.record.response.httpCode === DENY)) {
    const key = `${e.record.request.headers.host}|${e.record.rules[0]?.ruleId}|${levels[e.record.severityLevel]}`;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

interface SavedCheckpoint {
  cursorMs: number;
  /** Where the final pass resumes (absent in files written before it). */
  finalMs?: number;
  originMs: number;
  delivered: Array<[string, number]>;
  counters: Array<{ labels: { domain: string; rule_id: string; severity: string }; value: number }>;
}

/**
 * The checkpoint as saved in `dir`: the snapshot with the complete journal
 * lines of its generation applied (a torn last line is not on disk).
 */
export function savedCheckpoint(dir: string): SavedCheckpoint {
  const file = JSON.parse(readFileSync(join(dir, `${CHECKPOINT_NAME}.json`), 'utf8')) as { data: SavedCheckpoint & { journal?: number } };
  const { journal: generation = 0, ...saved } = file.data;
  const journal = join(dir, `${CHECKPOINT_NAME}.journal`);
  const lines = existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').slice(0, -1) : [];
  const delivered = new Map(saved.delivered);
  const counters = saved.counters.map((c) => ({ labels: { ...c.labels }, value: c.value }));
  let { cursorMs, finalMs } = saved;
  for (const line of lines) {
    const entry = JSON.parse(line) as { g: number; d: Array<[string, number]>; c: Array<[string, string, string, number]>; a?: [number, number] };
    if (entry.g !== generation) continue;
    for (const [uid, keep] of entry.d) delivered.set(uid, Math.max(keep, delivered.get(uid) ?? keep));
    for (const [domain, rule_id, severity, n] of entry.c) {
      const known = counters.find((c) => c.labels.domain === domain && c.labels.rule_id === rule_id && c.labels.severity === severity);
      if (known) known.value += n;
      else counters.push({ labels: { domain, rule_id, severity }, value: n });
    }
    // A window done: the checkpoint moved after the line's ids, and ids kept until before the final pass went.
    if (entry.a !== undefined) {
      cursorMs = Math.max(cursorMs, entry.a[0]);
      finalMs = Math.min(cursorMs, Math.max(finalMs ?? saved.originMs, entry.a[1]));
      for (const [uid, keep] of delivered) if (keep < finalMs) delivered.delete(uid);
    }
  }
  return { ...saved, cursorMs, ...(finalMs === undefined ? {} : { finalMs }), delivered: [...delivered], counters };
}

export const cursorOf = (dir: string): number => savedCheckpoint(dir).cursorMs;
