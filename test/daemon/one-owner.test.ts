// One daemon per state directory, with real processes: a second daemon on a
// held directory refuses to start, naming the holder, before it binds its port
// or touches a state file; after the holder is SIGKILLed its lock is
// stale and the next daemon takes it over with a log line; a clean stop
// releases it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { LOCK_FILE } from '../../src/state/lock.js';
import { connectOutcome } from '../cli/helpers.js';
import { freePort } from '../support/ports.js';
import { configText, TOKEN } from './state-fixtures.js';

let sim: Simulator;
let dir: string;
interface Child {
  readonly proc: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}
const children: Child[] = [];

beforeAll(async () => {
  sim = createSimulator({ seed: 2, domains: 2, clock: { mode: 'fixed', start: '2026-03-02 12:00:10' }, tokens: [{ token: TOKEN, permissions: '*' }] });
  dir = mkdtempSync(join(tmpdir(), 'edge-one-owner-'));
});
afterAll(async () => {
  for (const c of children) c.proc.kill('SIGKILL');
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function daemon(config: string): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  proc.stdout?.setEncoding('utf8').on('data', (t: string) => (output.stdout += t));
  proc.stderr?.setEncoding('utf8').on('data', (t: string) => (output.stderr += t));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('close', (code, signal) => resolve({ code, signal })));
  const child = { proc, output, exited };
  children.push(child);
  return child;
}

describe('one daemon per state directory', () => {
  it('a second daemon is refused naming the holder; a SIGKILLed holder\'s lock is taken over; a clean stop releases it', async () => {
    const { url } = await sim.listen('127.0.0.1', 0);
    const stateDir = join(dir, 'state');
    const config = (port: number): string => {
      const file = join(dir, `config-${port}.yaml`);
      writeFileSync(file, configText({ apiUrl: url, stateDir, listen: `127.0.0.1:${port}` }));
      return file;
    };
    const [portA, portB, portC] = [await freePort(), await freePort(), await freePort()];

    const first = daemon(config(portA));
    await expect.poll(() => first.output.stdout, { timeout: 20_000 }).toMatch(/"msg":"serving metrics"/);
    const lock = JSON.parse(readFileSync(join(stateDir, LOCK_FILE), 'utf8')) as { pid: number; host: string };
    expect([lock.pid, lock.host]).toEqual([first.proc.pid, hostname()]);
    // Its first cycle saved its counters: every file a daemon keeps there exists before the second one starts.
    await expect.poll(() => existsSync(join(stateDir, 'ledger-access.json')), { timeout: 20_000 }).toBe(true);
    const filesBefore = readdirSync(stateDir).sort();

    // Another config file, another port, the same state_dir: refused before anything.
    const second = daemon(config(portB));
    expect(await second.exited).toEqual({ code: 1, signal: null });
    expect(second.output.stderr).toMatch(new RegExp(`^edge-exporter: state directory ${stateDir} is held by pid ${first.proc.pid} on host ${hostname()} since \\S+; another edge-exporter is running on it .*remove ${stateDir}/${LOCK_FILE}\n$`));
    expect(second.output.stdout).not.toMatch(/serving metrics/);
    expect(await connectOutcome(portB)).toBe('ECONNREFUSED');
    expect(readdirSync(stateDir).sort()).toEqual(filesBefore);
    // The first daemon is untouched: it still holds the lock and serves.
    expect(JSON.parse(readFileSync(join(stateDir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: first.proc.pid });
    expect(await connectOutcome(portA)).toBe('connected');

    // The holder dies without releasing: its lock is stale, and the next daemon says so as it takes over.
    first.proc.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(stateDir, LOCK_FILE))).toBe(true);
    const third = daemon(config(portC));
    await expect.poll(() => third.output.stdout, { timeout: 20_000 }).toMatch(/"msg":"serving metrics"/);
    expect(third.output.stdout).toContain(`took over the lock of pid ${first.proc.pid} on host ${hostname()}`);
    expect(JSON.parse(readFileSync(join(stateDir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: third.proc.pid, host: hostname() });

    third.proc.kill('SIGTERM');
    expect(await third.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(join(stateDir, LOCK_FILE))).toBe(false);
    expect(readdirSync(stateDir).filter((f) => f.includes('.tmp'))).toEqual([]);
  }, 60_000);
});
