// The real daemon (the CLI, a child process) SIGKILLed in the middle of
// collector cycles and restarted on the same state directory: the counters
// must continue exactly, equal to the simulator's ground truth for the range
// counted since the first cycle. The simulator's clock is fixed and moved by
// the test; the child's Date.now follows it (clock-offset.ts). Kills land on
// seeded points of a cycle: while its data requests are in flight (each one
// held by injected latency), and shortly after the last answer, around the
// state save.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { Rng } from '../../src/simulator/rng.js';
import { accessCounters, configText, MIN, TOKEN, truthBetween } from './state-fixtures.js';

/** 2026-03-02 12:00:10 platform time: 10 s into a minute, so a child's own seconds never cross into the next one. */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
const DOMAINS = 4;
const LATENCY_MS = 250;
const SEED = 7305;
const KILLS = 4;
const CLOCK_PRELOAD = fileURLToPath(new URL('./clock-offset.ts', import.meta.url));

let sim: Simulator | undefined;
let child: ChildProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  await sim?.close();
  sim = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

interface Child {
  readonly proc: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `edge-exporter run [--once]` with its clock on the simulator's. */
function daemon(simulator: Simulator, config: string, args: readonly string[]): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--import', CLOCK_PRELOAD, 'src/cli/main.ts', 'run', '--config', config, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, EDGE_TEST_CLOCK_OFFSET_MS: String(simulator.clock.now() - Date.now()) },
  });
  const output = { stdout: '', stderr: '' };
  proc.stdout?.setEncoding('utf8').on('data', (t: string) => (output.stdout += t));
  proc.stderr?.setEncoding('utf8').on('data', (t: string) => (output.stderr += t));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('close', (code, signal) => resolve({ code, signal })));
  return { proc, output, exited };
}

const dataRequests = (simulator: Simulator): number => simulator.requestCounts().describeL7DataV2 ?? 0;

async function until(condition: () => boolean, proc: ChildProcess): Promise<void> {
  while (!condition()) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error('the daemon exited before the kill point');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('the daemon SIGKILLed mid-cycle and restarted', () => {
  it(`continues every counter exactly (${KILLS} kills, seed ${SEED})`, async () => {
    sim = createSimulator({ seed: 5, domains: DOMAINS, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
    const { url } = await sim.listen('127.0.0.1', 0);
    dir = mkdtempSync(join(tmpdir(), 'edge-crash-restart-'));
    const config = join(dir, 'config.yaml');
    writeFileSync(config, configText({ apiUrl: url, stateDir: join(dir, 'state') }));
    const domains = sim.world.domains.map((d) => d.domainName);

    // The first cycle starts every counter at 0 at T0.
    const first = daemon(sim, config, ['--once']);
    child = first.proc;
    expect(await first.exited).toEqual({ code: 0, signal: null });
    const start = accessCounters(first.output.stdout);
    expect([...start.keys()].sort()).toEqual([...domains].sort());
    expect([...start.values()].every((c) => c.requests === 0 && c.edgeBytes === 0)).toBe(true);

    // Every data request now takes a while, so a cycle is long enough to be killed inside.
    sim.faults.set([{ latencyMs: LATENCY_MS, operations: ['describeL7DataV2'] }]);
    const rng = new Rng(SEED);
    const stateFile = join(dir, 'state', 'ledger-access.json');
    for (let kill = 0; kill < KILLS; kill++) {
      // Some restarts come minutes later (buckets to back-fill), some at once.
      if (kill % 2 === 0) sim.clock.advance(rng.int(1, 3) * MIN);
      const before = dataRequests(sim);
      // Alternately the one-shot and the serving daemon; both run a cycle at start.
      const run = daemon(sim, config, kill % 2 === 0 ? ['--once'] : ['--listen', '127.0.0.1:0']);
      child = run.proc;
      if (rng.int(0, 1) === 0) {
        // While the n-th data request is held.
        const n = rng.int(1, DOMAINS);
        await until(() => dataRequests(sim!) - before >= n, run.proc);
      } else {
        // As the last answers arrive: counting, saving the state, publishing.
        await until(() => dataRequests(sim!) - before >= DOMAINS, run.proc);
        await new Promise((resolve) => setTimeout(resolve, LATENCY_MS + rng.int(0, 100)));
      }
      run.proc.kill('SIGKILL');
      const exit = await run.exited;
      child = undefined;
      // A one-shot run may have finished just before a late kill; it must then have finished cleanly.
      if (exit.signal !== 'SIGKILL') expect({ kill, ...exit }).toEqual({ kill, code: 0, signal: null });
    }
    expect(existsSync(stateFile)).toBe(true);

    // A last clean cycle a minute on: the counters hold exactly what settled since T0.
    sim.faults.clear();
    sim.clock.advance(MIN);
    const last = daemon(sim, config, ['--once']);
    child = last.proc;
    expect(await last.exited).toEqual({ code: 0, signal: null });
    const end = sim.clock.now();
    const counters = accessCounters(last.output.stdout);
    const expected = new Map(domains.map((d) => [d, truthBetween(sim!, d, T0, end)]));
    expect(Object.fromEntries(counters)).toEqual(Object.fromEntries(expected));
    // Not a vacuous equality: buckets were counted across the kills.
    expect([...expected.values()].every((c) => c.requests > 0)).toBe(true);
  }, 60_000);
});
