// Shared set-up for the simulator's HTTP tests: a simulator on a loopback
// ephemeral port with a pinned clock, and small request helpers.
import { OPERATIONS, type OperationName } from '../../src/api/operations.js';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { type SimulatorOptions } from '../../src/simulator/simulator.js';

/** 2026-03-02 12:00:00 in the platform zone (UTC+8). */
export const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
export const MIN = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

export interface Reply {
  status: number;
  // Envelope fields are read loosely in tests; every test checks what it uses.
  body: Envelope;
}

export interface Envelope {
  code: number;
  msg: string;
  data?: unknown;
  total?: number;
  rows?: unknown[];
}

export interface Harness {
  sim: Simulator;
  url: string;
  call(op: OperationName, body?: unknown, opts?: { auth?: string | null; pathParams?: Record<string, string> }): Promise<Reply>;
  raw(method: string, path: string, opts?: { auth?: string | null; body?: string }): Promise<Response>;
  admin(method: string, path: string, body?: unknown): Promise<Reply>;
  close(): Promise<void>;
}

export async function startSim(options: SimulatorOptions = {}): Promise<Harness> {
  const sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, ...options });
  const { url } = await sim.listen('127.0.0.1', 0);
  const raw = (method: string, path: string, opts: { auth?: string | null; body?: string } = {}) => {
    const auth = opts.auth === undefined ? 'Bearer sim-token' : opts.auth;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth !== null) headers.authorization = auth;
    return fetch(`${url}${path}`, { method, headers, ...(opts.body !== undefined ? { body: opts.body } : {}) });
  };
  const json = async (res: Response): Promise<Reply> => ({ status: res.status, body: (await res.json()) as Envelope });
  return {
    sim,
    url,
    raw,
    async call(op, body = {}, opts = {}) {
      const spec = OPERATIONS[op];
      const path = spec.path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(opts.pathParams?.[k] ?? ''));
      const res = await raw(spec.method, path, {
        ...(opts.auth !== undefined ? { auth: opts.auth } : {}),
        ...(spec.method === 'POST' ? { body: JSON.stringify(body) } : {}),
      });
      return json(res);
    },
    async admin(method, path, body) {
      return json(await raw(method, `/__admin/${path}`, { auth: null, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }));
    },
    close: () => sim.close(),
  };
}

/** Platform-time text for an epoch ms (the simulator's default zone, UTC+8). */
function text(ms: number): string {
  return new Date(ms + 8 * HOUR).toISOString().slice(0, 19).replace('T', ' ');
}

export function params(from: number, to: number): { beginTime: string; endTime: string } {
  return { beginTime: text(from), endTime: text(to) };
}

/** Narrows `data` to the item list every statistics answer carries. */
export function items(reply: Reply): Array<Record<string, unknown>> {
  const data = reply.body.data;
  if (!Array.isArray(data)) throw new Error(`expected a data array, got ${JSON.stringify(reply.body).slice(0, 300)}`);
  return data as Array<Record<string, unknown>>;
}

export type Point = [number, number];

export function sumPoints(points: readonly Point[]): number {
  return points.reduce((a, [, v]) => a + v, 0);
}

/**
 * One simulator for the file, for the readings tests: before each test its
 * readings and faults are back to their defaults and its clock at T0.
 */
export function useReadingsSim(options: SimulatorOptions = {}): { readonly h: Harness } {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await startSim(options);
  });
  afterAll(() => harness?.close());
  beforeEach(() => {
    const sim = harness?.sim;
    sim?.readings.reset();
    sim?.faults.clear();
    sim?.clock.set(T0);
  });
  return {
    get h() {
      if (!harness) throw new Error('simulator not started');
      return harness;
    },
  };
}
