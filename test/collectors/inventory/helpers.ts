// Shared set-up of the inventory collector tests: one simulator on a loopback
// ephemeral port with a pinned clock (reset before each test), real
// EdgeClients pointed at it, and a minimal CollectContext.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { EdgeClient, platformClock } from '../../../src/api/index.js';
import { type ClientOptions } from '../../../src/api/client.js';
import type { CollectContext, CollectOutput, CollectorLogger, Sample, Targets } from '../../../src/collectors/collector.js';
import { createSimulator, type Simulator } from '../../../src/simulator/index.js';

/** 2026-03-02 12:00:00 in the platform zone (UTC+8). */
export const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
export const DAY = 86_400_000;

interface SimHarness {
  readonly sim: Simulator;
  /** A client with one attempt per read (a fault fails at once), closed after the file. */
  client(extra?: Partial<ClientOptions>): EdgeClient;
}

/** Registers the hooks in the calling file; the accessors are valid inside its tests. */
export function useSimulator(): SimHarness {
  let sim: Simulator | undefined;
  let url = '';
  const clients: EdgeClient[] = [];
  const started = (): Simulator => {
    if (sim === undefined) throw new Error('simulator used outside a test');
    return sim;
  };
  beforeAll(async () => {
    sim = createSimulator({ clock: { mode: 'fixed', start: T0 } });
    ({ url } = await sim.listen('127.0.0.1', 0));
  });
  beforeEach(() => {
    started().reset();
    started().clock.set(T0);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await sim?.close();
  });
  return {
    get sim() {
      return started();
    },
    client(extra = {}) {
      const c = new EdgeClient({ apiUrl: url, token: 'sim-token', retry: { attempts: 1, minDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 2000, ...extra });
      clients.push(c);
      return c;
    },
  };
}

export interface LogRecord { level: string; bindings: Record<string, unknown>; obj: object; msg: string | undefined }

function recorder(records: LogRecord[], bindings: Record<string, unknown> = {}): CollectorLogger {
  const at = (level: string) => (obj: object, msg?: string): void => void records.push({ level, bindings, obj, msg });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), child: (b) => recorder(records, { ...bindings, ...b }) };
}

export function allTargets(sim: Simulator): Targets {
  return {
    domains: sim.world.domains.map((d) => d.domainName),
    packages: [...sim.world.l7Packages, ...sim.world.l4Packages].map((p) => p.alias),
  };
}

export function context(sim: Simulator, c: EdgeClient, over: { enabled?: (family: string) => boolean; targets?: Targets; logs?: LogRecord[] } = {}): CollectContext {
  return {
    client: c, now: sim.clock.now(), signal: new AbortController().signal, tz: platformClock('+08:00'),
    log: recorder(over.logs ?? []), targets: over.targets ?? allTargets(sim), watermarks: {},
    enabled: over.enabled ?? (() => true),
  };
}

export function family(out: CollectOutput, def: { name: string }): readonly Sample[] {
  const samples = out.gauges.get(def.name);
  if (samples === undefined) throw new Error(`${def.name} not returned`);
  return samples;
}

/** key label value -> sample value. */
export function byLabel(samples: readonly Sample[], key: string): Map<string | undefined, number> {
  return new Map(samples.map((s) => [s.labels[key], s.value]));
}

/** For a state set: key label value -> the states at 1. */
export function current(samples: readonly Sample[], key: string, stateLabel: string): Map<string | undefined, Array<string | undefined>> {
  const out = new Map<string | undefined, Array<string | undefined>>();
  for (const s of samples) {
    const list = out.get(s.labels[key]) ?? [];
    if (s.value === 1) list.push(s.labels[stateLabel]);
    out.set(s.labels[key], list);
  }
  return out;
}
