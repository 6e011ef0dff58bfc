// The state directory disappears while the daemon runs, and cannot be
// recreated for a while (its parent replaced by a file): every save fails and
// is counted, nothing unsaved is published, and once the parent is back the
// next save recreates the directory with the lock first, and the counters are
// exact: the simulator's truth over the whole range, nothing lost, nothing
// counted twice. Cycles run on the simulator's fixed clock (runOnce).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { LOCK_FILE } from '../../src/state/lock.js';
import { Capture } from '../support/capture.js';
import { accessCounters, configText, MIN, TOKEN, truthBetween } from './state-fixtures.js';

const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
let sim: Simulator;
let dir: string;
let url: string;
let daemon: Daemon | undefined;

beforeAll(async () => {
  sim = createSimulator({ seed: 9, domains: 3, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
  dir = mkdtempSync(join(tmpdir(), 'edge-state-gone-'));
  ({ url } = await sim.listen('127.0.0.1', 0));
});
afterAll(async () => {
  await daemon?.stop();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const failures = (text: string): number => Number(/^edge_exporter_state_save_failures_total\{file="ledger-access\.json"\} (\d+)$/m.exec(text)?.[1] ?? 0);

describe('the state directory removed mid-run', () => {
  it('saves fail and are counted while it cannot be recreated; then it comes back with the lock and the counters are exact', async () => {
    const parent = join(dir, 'volume');
    const stateDir = join(parent, 'state');
    const log = new Capture();
    const config = loadConfig({ text: configText({ apiUrl: url, stateDir }), env: {} });
    daemon = new Daemon({ config, logger: createLogger({ level: 'info', destination: log }), version: 'test', schedules: false, clock: { now: () => sim.clock.now() } });
    await daemon.start();
    const domains = sim.world.domains.map((d) => d.domainName).sort();

    // The first cycle starts every counter at 0 at T0; two minutes later it counts them.
    await daemon.runOnce();
    sim.clock.advance(2 * MIN);
    const [first] = await daemon.runOnce();
    expect(first?.ok).toBe(true);
    const saved = Object.fromEntries(accessCounters(await daemon.renderText()));
    expect(saved).toEqual(Object.fromEntries(domains.map((d) => [d, truthBetween(sim, d, T0, sim.clock.now())])));

    // The volume is gone and a file stands where it was: the directory cannot be recreated.
    rmSync(parent, { recursive: true });
    writeFileSync(parent, 'not a directory');
    for (const step of [1, 2]) {
      sim.clock.advance(2 * MIN);
      await daemon.runOnce();
      const text = await daemon.renderText();
      expect(failures(text)).toBe(step);
      // Nothing is published that is not on disk.
      expect(Object.fromEntries(accessCounters(text))).toEqual(saved);
    }
    expect(log.text).toMatch(/ledger-access\.json/);

    // The volume is back (empty): the next save recreates the directory, the lock first, and saves everything counted.
    rmSync(parent);
    mkdirSync(parent);
    sim.clock.advance(2 * MIN);
    const [back] = await daemon.runOnce();
    expect(back?.ok).toBe(true);
    const text = await daemon.renderText();
    expect(failures(text)).toBe(2);
    const truth = Object.fromEntries(domains.map((d) => [d, truthBetween(sim, d, T0, sim.clock.now())]));
    expect(Object.fromEntries(accessCounters(text))).toEqual(truth);
    expect(JSON.parse(readFileSync(join(stateDir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    expect(existsSync(join(stateDir, 'ledger-access.json'))).toBe(true);
    expect(log.text).toMatch(/"msg":"the state directory had disappeared; recreated it with the lock, saving again"/);

    // And what was saved is what a restart resumes from: the counters continue exactly.
    await daemon.stop();
    daemon = new Daemon({ config, logger: createLogger({ level: 'fatal', destination: new Capture() }), version: 'test', schedules: false, clock: { now: () => sim.clock.now() } });
    await daemon.start();
    sim.clock.advance(2 * MIN);
    await daemon.runOnce();
    const resumed = Object.fromEntries(accessCounters(await daemon.renderText()));
    expect(resumed).toEqual(Object.fromEntries(domains.map((d) => [d, truthBetween(sim, d, T0, sim.clock.now())])));
  });

  it('with accounts: an account\'s save after the whole directory went recreates it with the daemon\'s lock first', async () => {
    const stateDir = join(dir, 'accounts-volume', 'state');
    const text = configText({ apiUrl: url, stateDir })
      .replace(/^upstream: .*$/m, 'upstream: { timeout: 5s, retry: { attempts: 1 } }')
      .concat(`\naccounts:\n  - { name: eu, upstream: { api_url: "${url}", token: "${TOKEN}" } }`);
    const log = new Capture();
    const accounts = new Daemon({
      config: loadConfig({ text, env: {} }), logger: createLogger({ level: 'info', destination: log }), version: 'test', schedules: false, clock: { now: () => sim.clock.now() },
    });
    try {
      await accounts.start();
      await accounts.runOnce();
      expect(existsSync(join(stateDir, 'accounts', 'eu', 'ledger-access.json'))).toBe(true);
      rmSync(stateDir, { recursive: true });
      sim.clock.advance(2 * MIN);
      const [run] = await accounts.runOnce();
      expect(run?.ok).toBe(true);
      expect(existsSync(join(stateDir, 'accounts', 'eu', 'ledger-access.json'))).toBe(true);
      expect(JSON.parse(readFileSync(join(stateDir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
      expect(log.text).toMatch(/"account":"eu".*"msg":"the state directory had disappeared; recreated it with the lock, saving again"/);
    } finally {
      await accounts.stop();
    }
  });
});
