// The daemon's lifecycle as a person meets it, in process against the
// simulator: /readyz and the landing page answer while it starts and while
// it stops (503, saying which); a reload whose new config fails to start
// goes back to the previous one and the daemon runs on it; stop() twice, or
// before start(), is fine, and a stopped daemon does not start again.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.js';
import { Daemon, type DaemonOptions } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { Capture } from '../support/capture.js';
import { freePort } from '../support/ports.js';
import { startReceiver, type Receiver } from '../exporters/remote-write/support.js';
import { accessCounters, configText, TOKEN } from './state-fixtures.js';

const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
let sim: Simulator;
let apiUrl: string;
let dir: string;
let daemons: Daemon[] = [];

beforeAll(async () => {
  sim = createSimulator({ seed: 41, domains: 2, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
  ({ url: apiUrl } = await sim.listen('127.0.0.1', 0));
});
afterAll(() => sim.close());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'edge-lifecycle-'));
});
afterEach(async () => {
  await Promise.all(daemons.map((d) => d.stop()));
  daemons = [];
  rmSync(dir, { recursive: true, force: true });
});

function daemon(config: Config, more: Partial<DaemonOptions> = {}): Daemon {
  const d = new Daemon({
    config, logger: createLogger({ level: 'warn', destination: new Capture() }), version: 'test',
    clock: { now: () => sim.clock.now() }, schedules: false, ...more,
  });
  daemons.push(d);
  return d;
}

/** A config file in the test's directory, loaded. */
function configFile(name: string, lines: readonly string[]): () => Config {
  const file = join(dir, name);
  writeFileSync(file, lines.join('\n'));
  return () => loadConfig({ file, env: {} });
}

async function get(url: string): Promise<[number, string]> {
  const res = await fetch(url);
  return [res.status, await res.text()];
}

/** A promise and the function that resolves it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('the daemon lifecycle', () => {
  it('answers /readyz and the landing page while it starts: 503, starting; then ready once a cycle succeeded', async () => {
    const port = await freePort();
    // The bundled simulator's place: start-up waits here, after the port is bound.
    const held = gate();
    const reached = gate();
    const config = configFile('bundled.yaml', [
      `upstream: { token: "${TOKEN}", timeout: 5s, retry: { attempts: 1 } }`,
      'simulator: { enabled: true }',
      `state_dir: ${JSON.stringify(join(dir, 'state'))}`,
      `server: { listen: "127.0.0.1:${port}" }`,
      'collectors:',
      '  defaults: { jitter: 0s }',
      ...['usage', 'topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }`),
    ])();
    const d = daemon(config, {
      startLocal: async () => {
        reached.open();
        await held.promise;
        return { url: apiUrl, token: TOKEN, stop: () => Promise.resolve() };
      },
    });
    const starting = d.start();
    await reached.promise;
    const base = `http://127.0.0.1:${port}`;
    expect(await get(`${base}/readyz`)).toEqual([503, 'not ready: the daemon is starting\n']);
    expect((await get(`${base}/`))[1]).toContain('<dt>state</dt><dd>starting, not ready</dd>');
    held.open();
    expect(await starting).toBe(base);
    // Idempotent: the same start-up, the same URL.
    expect(await d.start()).toBe(base);
    expect(await get(`${base}/readyz`)).toEqual([503, 'not ready: no successful collection yet\n']);
    const [report] = await d.runOnce();
    expect(report?.ok).toBe(true);
    expect(await get(`${base}/readyz`)).toEqual([200, 'ready\n']);
    expect((await get(`${base}/`))[1]).toContain('<dt>state</dt><dd>running, ready</dd>');
  });

  it('answers /readyz while it stops (503, stopping, the collectors still listed); stop() twice is one stop, and it does not start again', async () => {
    // The receiver holds every push until the test lets it answer: the stop waits there, flushing.
    const answer = gate();
    const receiver: Receiver = await startReceiver(() => answer.promise.then(() => ({ status: 204 })));
    try {
      const config = configFile('rw.yaml', [
        configText({ apiUrl, stateDir: join(dir, 'state') }),
        `remote_write: { url: "${receiver.url}", batch_send_deadline: 0s }`,
      ])();
      const d = daemon(config);
      const base = await d.start();
      await d.runOnce();
      await receiver.received(1);
      expect(await get(`${base}/readyz`)).toEqual([200, 'ready\n']);
      const first = d.stop();
      const second = d.stop();
      expect(second).toBe(first);
      expect(await get(`${base}/readyz`)).toEqual([503, 'not ready: the daemon is stopping\n']);
      const landing = (await get(`${base}/`))[1];
      expect(landing).toContain('<dt>state</dt><dd>stopping, not ready</dd>');
      expect(landing).toContain('<tr id="job-access">');
      answer.open();
      await Promise.all([first, second]);
      await d.stop();
      await expect(fetch(`${base}/readyz`)).rejects.toThrow();
      await expect(d.start()).rejects.toThrow('a stopped daemon does not start or run again');
      // The lock went back: another daemon takes the same state directory.
      const next = daemon(config);
      await next.start();
      await next.stop();
    } finally {
      answer.open();
      await receiver.close();
    }
  });

  it('stops before it started, holding nothing, and then refuses to start', async () => {
    const config = configFile('plain.yaml', [configText({ apiUrl, stateDir: join(dir, 'state') })])();
    const d = daemon(config);
    await d.stop();
    await d.stop();
    await expect(d.start()).rejects.toThrow('a stopped daemon does not start or run again');
    await expect(d.runOnce()).rejects.toThrow('a stopped daemon does not start or run again');
  });

  it('a reload whose new config fails to start goes back to the previous one: refused, and running on it', async () => {
    const stateDir = join(dir, 'state');
    const file = join(dir, 'reload.yaml');
    const before = configText({ apiUrl, stateDir });
    writeFileSync(file, before);
    const load = (): Config => loadConfig({ file, env: {} });
    // With schedules: a reload starts the new engine, which restores its jobs' state.
    const d = daemon(load(), { reloadConfig: load, schedules: true });
    const base = await d.start();
    await readyAt(base);
    const counted = accessCounters(await d.renderText());
    expect(counted.size).toBe(2);
    // The new config turns usage on, whose state file is damaged: its engine fails to restore it, after the old one stopped.
    expect(readdirSync(stateDir)).toContain('ledger-access.json');
    writeFileSync(join(stateDir, 'ledger-usage.json'), '{"version":1,');
    writeFileSync(file, before.replace('  usage: { enabled: false }', '  usage: { interval: 1m }'));
    const outcome = await d.reload();
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.message).toMatch(/ledger-usage\.json.*not valid JSON/);
    expect(d.running.collectors.usage.enabled).toBe(false);
    expect((await get(`${base}/`))[1]).toMatch(/<dt>state<\/dt><dd>running, (not )?ready<\/dd>/);
    // The previous config's engine came back and runs its collector again over the state just saved.
    await readyAt(base);
    expect((await get(`${base}/`))[1]).toContain('<tr id="job-access">');
    expect((await get(`${base}/`))[1]).not.toContain('<tr id="job-usage">');
    expect(accessCounters(await d.renderText())).toEqual(counted);
  });
});

/** Asks /readyz until it says ready (a cycle runs in the background); fails after 500 answers. */
async function readyAt(base: string): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if ((await get(`${base}/readyz`))[0] === 200) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('never ready');
}
