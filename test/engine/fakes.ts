// Small fakes for the engine's sample-job tests: collectors that record their calls, a
// sink and an in-memory store that log into one shared event list (so tests
// can check that state is saved before it is published), a recording logger.
import { afterEach, beforeEach, vi } from 'vitest';
import type { z } from 'zod';
import { EdgeClient, platformClock } from '../../src/api/index.js';
import { MetricFilter } from '../../src/collectors/filter.js';
import { CounterLedger } from '../../src/counters/ledger.js';
import type { LedgerStorage } from '../../src/counters/ledger-file.js';
import type { JobLogger } from '../../src/engine/job.js';
import { Scheduler } from '../../src/engine/scheduler.js';
import { sampleJobs, type PolledCollector } from '../../src/engine/sample-job/job.js';
import type { TargetSource } from '../../src/collectors/targets/discovery.js';
import type { CollectContext, CollectOutput, Collector, MetricDef, Sample, SampleSink } from '../../src/collectors/collector.js';
import type { CollectorStatus, RunReport } from '../../src/engine/reports.js';
import { StateError } from '../../src/state/store.js';

export const MIN = 60_000;
/** 2026-03-02 12:00:20 UTC+8: 20 s past a minute boundary. */
export const T0 = Date.UTC(2026, 2, 2, 4, 0, 20);

export const COUNTER = 'edge_fake_requests_total';
export const GAUGE = 'edge_fake_level';

export function family(name: string, type: 'counter' | 'gauge' = 'counter'): MetricDef {
  return { name, type, help: 'fake', unit: 'requests', labels: ['collector'], source: { operation: 'listDomains', field: 'x' } };
}

export function output(parts: Partial<CollectOutput> = {}): CollectOutput {
  return { gauges: new Map(), increments: [], watermarks: {}, errors: [], ...parts };
}

interface FakeCollector extends Collector {
  readonly calls: CollectContext[];
  /** Runs in flight right now, and the most ever seen at once. */
  readonly inFlight: { now: number; max: number };
}

/** A collector whose behaviour per call is `behave` (default: one counter increment of 1). */
export function fakeCollector(
  name: string,
  behave: (ctx: CollectContext, call: number) => Promise<CollectOutput> = async () => output({ increments: [{ name: COUNTER, labels: { collector: name }, value: 1 }] }),
  families: readonly MetricDef[] = [family(COUNTER)],
): FakeCollector {
  const calls: CollectContext[] = [];
  const inFlight = { now: 0, max: 0 };
  return {
    name,
    operations: [],
    families,
    calls,
    inFlight,
    async collect(ctx) {
      calls.push(ctx);
      inFlight.now++;
      inFlight.max = Math.max(inFlight.max, inFlight.now);
      try {
        return await behave(ctx, calls.length);
      } finally {
        inFlight.now--;
      }
    },
  };
}

/** Resolves after `ms` of (fake) time, or rejects when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(Object.assign(new Error('aborted'), { code: 'EDGE_ABORTED' }));
    });
  });
}

export type Event = { kind: 'save'; name: string } | { kind: 'publish'; collector: string; counters: Sample[]; gauges: ReadonlyMap<string, readonly Sample[]> };

export class RecordingSink implements SampleSink {
  constructor(readonly events: Event[] = []) {}
  publish(collector: string, update: { counters: readonly Sample[]; gauges: ReadonlyMap<string, readonly Sample[]> }): void {
    this.events.push({ kind: 'publish', collector, counters: [...update.counters], gauges: update.gauges });
  }
  /** The counter values last published for `collector`, by series label `collector`. */
  lastCounters(collector: string): Sample[] | undefined {
    const last = this.events.filter((e) => e.kind === 'publish' && e.collector === collector).at(-1);
    return last?.kind === 'publish' ? last.counters : undefined;
  }
}

/** Files as JSON text in a map; `failSaves` makes the next N saves fail like a full disk. */
export class MemoryStore implements LedgerStorage {
  readonly files = new Map<string, string>();
  failSaves = 0;
  constructor(readonly events: Event[] = []) {}
  init(): Promise<void> {
    return Promise.resolve();
  }
  pathOf(name: string): string {
    return `/mem/${name}.json`;
  }
  async load<T>(name: string, schema: z.ZodType<T>): Promise<T | undefined> {
    const text = this.files.get(name);
    if (text === undefined) return undefined;
    const parsed = schema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new StateError(this.pathOf(name), 'does not hold what it should');
    return parsed.data;
  }
  async save(name: string, value: unknown): Promise<void> {
    if (this.failSaves > 0) {
      this.failSaves--;
      throw new StateError(this.pathOf(name), 'cannot be written: no space left on device (ENOSPC)');
    }
    this.files.set(name, JSON.stringify(value));
    this.events.push({ kind: 'save', name });
  }
}

export interface LogEntry {
  level: string;
  bindings: Record<string, unknown>;
  obj: object;
  msg: string | undefined;
}

export function recordingLogger(entries: LogEntry[] = [], bindings: Record<string, unknown> = {}): JobLogger & { entries: LogEntry[] } {
  const at = (level: string) => (obj: object, msg?: string) => void entries.push({ level, bindings, obj, msg });
  return {
    entries,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => recordingLogger(entries, { ...bindings, ...more }),
  };
}

function fixedTargets(): TargetSource & { refreshes: number[] } {
  const refreshes: number[] = [];
  return {
    refreshes,
    current: () => ({ domains: ['a.example.com'], packages: ['pkg-1'] }),
    unavailable: () => undefined,
    refreshIfDue: (now) => {
      refreshes.push(now);
      return Promise.resolve([]);
    },
  };
}

/** A client that is never called (fake collectors do not use it); nothing connects until a request. */
export function idleClient(): EdgeClient {
  return new EdgeClient({ apiUrl: 'http://127.0.0.1:9', token: 'unused-token' });
}

export class ReportLog {
  readonly reports: RunReport[] = [];
  readonly skipped: string[] = [];
  onRun(report: RunReport): void {
    this.reports.push(report);
  }
  onSkippedTick(event: { collector: string }): void {
    this.skipped.push(event.collector);
  }
  of(collector: string): RunReport[] {
    return this.reports.filter((r) => r.collector === collector);
  }
}

/** The engine as the daemon drives it with only collectors: start, stop, `run --once`, the status page. */
export interface SampleEngine {
  start(): Promise<void>;
  stop(): Promise<void>;
  runOnce(): Promise<RunReport[]>;
  status(): CollectorStatus[];
}

export interface PollerRig {
  readonly engine: SampleEngine;
  readonly events: Event[];
  readonly sink: RecordingSink;
  readonly store: LedgerStorage & { init(): Promise<void> };
  readonly observer: ReportLog;
  readonly logger: JobLogger & { entries: LogEntry[] };
  readonly targets: TargetSource & { refreshes: number[] };
  readonly ledger: CounterLedger;
}

interface RigOptions {
  readonly collectors: readonly PolledCollector[];
  readonly client: EdgeClient;
  readonly deny?: readonly string[];
  readonly jitterMs?: number;
  readonly stopTimeoutMs?: number;
  readonly store?: LedgerStorage & { init(): Promise<void> };
  readonly events?: Event[];
}

/** An engine over fakes; `every(ms)` is the usual schedule. */
export function rig(options: RigOptions): PollerRig {
  const events = options.events ?? [];
  const sink = new RecordingSink(events);
  const store = options.store ?? new MemoryStore(events);
  const observer = new ReportLog();
  const logger = recordingLogger();
  const targets = fixedTargets();
  const ledger = new CounterLedger();
  const tz = platformClock('+08:00');
  const jobs = sampleJobs(options.collectors, {
    client: options.client,
    tz,
    sink,
    ledger,
    store,
    targets,
    filter: new MetricFilter({ deny: options.deny ?? [] }),
    logger,
  });
  const scheduler = new Scheduler({
    jobs,
    tz,
    // As the daemon wires it: collector runs only, to the collector observer.
    observer: {
      onRun: (run) => {
        if (run.kind === 'samples') observer.onRun(run.report);
      },
      onSkippedTick: ({ job }) => observer.onSkippedTick({ collector: job }),
    },
    logger,
    jitterMs: options.jitterMs ?? 0,
    ...(options.stopTimeoutMs === undefined ? {} : { stopTimeoutMs: options.stopTimeoutMs }),
  });
  const engine: SampleEngine = {
    start: () => scheduler.start(),
    stop: () => scheduler.stop(),
    runOnce: () => scheduler.runSamples(),
    status: () => scheduler.status('samples'),
  };
  return { engine, events, sink, store, observer, logger, targets, ledger };
}

export const every = (everyMs: number) => ({ kind: 'interval', everyMs }) as const;

/**
 * Fake timers at T0 around each test, and a `track` that stops every engine
 * it was given after the test (a running engine keeps timers alive).
 */
export function trackRigs(): (r: PollerRig) => PollerRig {
  let rigs: PollerRig[] = [];
  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
  });
  afterEach(async () => {
    await Promise.all(rigs.map((r) => r.engine.stop()));
    rigs = [];
    vi.useRealTimers();
  });
  return (r) => {
    rigs.push(r);
    return r;
  };
}
