// Shared set-up of the client ↔ simulator contract tests: one simulator on a
// loopback ephemeral port with a pinned clock, and EdgeClients pointed at it.
// Expected values come from the simulator's ground truth (sim.truth,
// sim.world) and from the helpers below, never from the client under test.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { EdgeClient, type ApiError, type OperationName } from '../../src/api/index.js';
import { type ClientOptions } from '../../src/api/client.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { type SimToken } from '../../src/simulator/router.js';
import { type SimulatorOptions } from '../../src/simulator/simulator.js';

/** 2026-03-02 12:00:00 in the platform zone (UTC+8), as in test/simulator/helpers.ts. */
export const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
export const MIN = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

export const TOKEN = 'sim-token';
/** A valid token without any permission label. */
export const LIMITED_TOKEN = 'limited-token';
const TOKENS: readonly SimToken[] = [
  { token: TOKEN, permissions: '*' },
  { token: LIMITED_TOKEN, permissions: [] },
];

export const RETRY = { attempts: 3, minDelayMs: 1, maxDelayMs: 5 } as const;
const TIMEOUT_MS = 1000;

interface Contract {
  readonly sim: Simulator;
  readonly url: string;
  /** A client with the token 'sim-token' and the harness defaults. */
  readonly client: EdgeClient;
  /** Another client (harness defaults overridden by `extra`), closed in afterAll. */
  clientWith(extra: Partial<ClientOptions>): EdgeClient;
}

interface ContractOptions {
  /** Simulator options over the harness defaults (fixed clock at T0, the two tokens). */
  sim?: SimulatorOptions;
  /** Rebuild the world, clear faults, counts and rate-limit windows, and pin the clock back to T0 before each test (default true). */
  resetEach?: boolean;
}

/**
 * Registers beforeAll/afterAll (and beforeEach) hooks in the calling file and
 * returns accessors that are valid inside its tests.
 */
export function useContract(options: ContractOptions = {}): Contract {
  let sim: Simulator | undefined;
  let url: string | undefined;
  let client: EdgeClient | undefined;
  const extra: EdgeClient[] = [];
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('contract harness used outside a test (the simulator is not started)');
    return value;
  };
  const make = (opts: Partial<ClientOptions>): EdgeClient =>
    new EdgeClient({ apiUrl: started(url), token: TOKEN, retry: RETRY, timeoutMs: TIMEOUT_MS, ...opts });

  beforeAll(async () => {
    sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, tokens: TOKENS, ...options.sim });
    ({ url } = await sim.listen('127.0.0.1', 0));
    client = make({});
  });
  if (options.resetEach ?? true) {
    beforeEach(() => {
      const s = started(sim);
      s.reset();
      if (s.clock.mode === 'fixed') s.clock.set(T0);
    });
  }
  afterAll(async () => {
    await Promise.all([client, ...extra].map((c) => c?.close()));
    await sim?.close();
  });

  return {
    get sim() {
      return started(sim);
    },
    get url() {
      return started(url);
    },
    get client() {
      return started(client);
    },
    clientWith(opts) {
      const c = make(opts);
      extra.push(c);
      return c;
    },
  };
}

/** Platform time text (UTC+8) of an epoch ms, computed independently of src/api/time.ts. */
export function text(ms: number): string {
  return new Date(ms + 8 * HOUR).toISOString().slice(0, 19).replace('T', ' ');
}

export function params(from: number, to: number): { beginTime: string; endTime: string } {
  return { beginTime: text(from), endTime: text(to) };
}

export function sum(points: ReadonlyArray<readonly [number, number | null]>): number {
  return points.reduce((acc, [, v]) => acc + (v ?? 0), 0);
}

/** The rejection of `promise`, failing the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value).slice(0, 200)}`);
    },
    (err: unknown) => err,
  );
}

/** What every typed failure of the client carries. */
export function errorFields(err: ApiError): { name: string; code: string; operation: OperationName; status: number | undefined } {
  return { name: err.name, code: err.code, operation: err.operation, status: err.status };
}
