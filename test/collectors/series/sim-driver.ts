// Drives a collector against the simulator the way the engine would: a real
// EdgeClient on a loopback simulator with a pinned clock, watermarks carried
// from cycle to cycle, increments summed into counters per series, gauge
// families replaced, and every log record kept for assertions.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { EdgeClient, platformClock, type ReadClient } from '../../../src/api/index.js';
import type { Collector, CollectContext, CollectOutput, CollectorLogger, Sample, Targets } from '../../../src/collectors/collector.js';
import type { Mismatch } from '../../../src/collectors/contract/checks.js';
import { seriesKey } from '../../../src/collectors/series/index.js';
import { createSimulator, type Simulator } from '../../../src/simulator/index.js';
import { type SimulatorOptions } from '../../../src/simulator/simulator.js';

/** 2026-03-02 12:00:00 in the platform zone (UTC+8). */
export const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
export const MIN = 60_000;
export const HOUR = 3_600_000;

export interface LogRecord {
  readonly level: 'debug' | 'info' | 'warn';
  readonly fields: Record<string, unknown>;
  readonly msg: string | undefined;
}

/**
 * A logger keeping its records. A key given again, by a child's bindings or a line's fields, fails at once: pino
 * writes it twice in the line, which most JSON readers take as its last value and some refuse.
 */
export function logStub(records: LogRecord[], bindings: Record<string, unknown> = {}): CollectorLogger {
  const once = (fields: object, what: string): void => {
    const again = Object.keys(fields).filter((k) => Object.hasOwn(bindings, k));
    if (again.length > 0) throw new Error(`${what} repeats the logger's bound ${again.join(', ')}`);
  };
  const at = (level: LogRecord['level']) => (obj: object, msg?: string): void => {
    once(obj, `the ${level} line "${msg ?? ''}"`);
    records.push({ level, fields: { ...bindings, ...obj }, msg });
  };
  return {
    debug: at('debug'), info: at('info'), warn: at('warn'),
    child: (b) => {
      once(b, 'a child logger');
      return logStub(records, { ...bindings, ...b });
    },
  };
}

interface SimRig {
  readonly sim: Simulator;
  readonly client: EdgeClient;
}

/** Starts one simulator for the file; each test gets a fresh world, counts and the clock back at T0. */
export function useSim(options: SimulatorOptions = {}): SimRig {
  let sim: Simulator | undefined;
  let client: EdgeClient | undefined;
  const started = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('simulator not started');
    return v;
  };
  beforeAll(async () => {
    sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, domains: 6, ...options });
    const { url } = await sim.listen('127.0.0.1', 0);
    client = new EdgeClient({ apiUrl: url, token: 'sim-token', retry: { attempts: 1 }, timeoutMs: 5000 });
  });
  beforeEach(() => {
    const s = started(sim);
    s.reset();
    s.clock.set(T0);
  });
  afterAll(async () => {
    await client?.close();
    await sim?.close();
  });
  return {
    get sim() {
      return started(sim);
    },
    get client() {
      return started(client);
    },
  };
}

/** What the engine and ledger would keep between cycles. */
export class Driver {
  watermarks: Record<string, number> = {};
  readonly counters = new Map<string, number>();
  readonly gauges = new Map<string, readonly Sample[]>();
  readonly logs: LogRecord[] = [];
  readonly requests: Array<Partial<Record<string, number>>> = [];
  /** Every cycle's contract findings, in order. */
  readonly mismatches: Mismatch[] = [];
  /** Audit outcomes summed over the cycles. */
  readonly audit = { match: 0, revised: 0 };
  /** End of the newest bucket counted, from the last cycle that reported one. */
  newestBucketEndMs: number | undefined;
  /** The delay the last audit suggested. */
  suggestedDelayMs: number | undefined;

  constructor(
    private readonly rig: SimRig,
    private readonly collector: Collector,
    private readonly targets: Targets,
    private readonly options: { enabled?: (family: string) => boolean; client?: ReadClient } = {},
  ) {}

  async cycle(): Promise<CollectOutput> {
    const before = this.rig.sim.requestCounts();
    const ctx: CollectContext = {
      client: this.options.client ?? this.rig.client,
      now: this.rig.sim.clock.now(),
      signal: new AbortController().signal,
      tz: platformClock('+08:00'),
      // Bound to the collector, as the engine gives it.
      log: logStub(this.logs, { collector: this.collector.name }),
      targets: this.targets,
      watermarks: this.watermarks,
      enabled: this.options.enabled ?? (() => true),
    };
    const out = await this.collector.collect(ctx);
    const after = this.rig.sim.requestCounts();
    const made = Object.entries(after).map(([op, n]): [string, number] => [op, (n ?? 0) - (before[op as keyof typeof before] ?? 0)]);
    this.requests.push(Object.fromEntries(made.filter(([, n]) => n > 0)));
    this.watermarks = { ...out.watermarks };
    this.mismatches.push(...(out.mismatches ?? []));
    if (out.audit) {
      this.audit.match += out.audit.match;
      this.audit.revised += out.audit.revised;
      this.suggestedDelayMs = out.audit.suggestedDelayMs;
    }
    if (out.newestBucketEndMs !== undefined) this.newestBucketEndMs = out.newestBucketEndMs;
    for (const s of out.increments) {
      const key = seriesKey(s.name, s.labels);
      this.counters.set(key, (this.counters.get(key) ?? 0) + s.value);
    }
    for (const [family, samples] of out.gauges) this.gauges.set(family, samples);
    return out;
  }

  /** A driver for another collector instance continuing from this one's persisted state (a restart). */
  restart(collector: Collector): Driver {
    const next = new Driver(this.rig, collector, this.targets, this.options);
    next.watermarks = JSON.parse(JSON.stringify(this.watermarks)) as Record<string, number>;
    for (const [k, v] of this.counters) next.counters.set(k, v);
    return next;
  }

  /** Runs a cycle, then moves the simulator clock on. */
  async cycles(n: number, stepMs: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      await this.cycle();
      this.rig.sim.clock.advance(stepMs);
    }
  }

  /** How many findings of each check the cycles produced. */
  checks(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const m of this.mismatches) out[m.check] = (out[m.check] ?? 0) + 1;
    return out;
  }

  counter(family: string, labels: Record<string, string>): number | undefined {
    return this.counters.get(seriesKey(family, labels));
  }

  gauge(family: string, labels: Record<string, string>): Sample | undefined {
    const key = seriesKey(family, labels);
    return this.gauges.get(family)?.find((s) => seriesKey(s.name, s.labels) === key);
  }
}
