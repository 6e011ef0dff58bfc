// The daemon as a whole against a simulator whose faults the test controls:
// it serves /metrics whatever the upstream does, and recovers on its own.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { Capture } from '../support/capture.js';

const TOKEN = 'daemon-test-token-1';
let sim: Simulator | undefined;
let daemon: Daemon | undefined;

afterEach(async () => {
  await daemon?.stop();
  await sim?.close();
  daemon = undefined;
  sim = undefined;
});

async function setUp(faults: Parameters<Simulator['faults']['set']>[0], extra: string[] = []): Promise<{ url: string; log: Capture }> {
  sim = createSimulator({ clock: { mode: 'fixed', start: '2026-03-02 12:00:00' }, domains: 5, tokens: [{ token: TOKEN, permissions: '*' }], faults });
  const { url: apiUrl } = await sim.listen('127.0.0.1', 0);
  const text = [
    `upstream: { api_url: "${apiUrl}", token: "${TOKEN}", timeout: 300ms, retry: { attempts: 1 } }`,
    `state_dir: ${mkdtempSync(join(tmpdir(), 'edge-daemon-'))}`,
    ...(extra.some((line) => line.startsWith('server:')) ? [] : ['server: { listen: "127.0.0.1:0" }']),
    'collectors: { access: { interval: 1m } }',
    'targets: { refresh: 10s }',
    ...extra,
  ].join('\n');
  const log = new Capture();
  const current = sim;
  daemon = new Daemon({
    config: loadConfig({ text, env: {} }),
    logger: createLogger({ level: 'info', secrets: [TOKEN], destination: log }),
    version: 'test',
    clock: { now: () => current.clock.now() },
  });
  const base = await daemon.start();
  return { url: base, log };
}

const up = (metrics: string, collector: string): string | undefined =>
  new RegExp(`^edge_exporter_collector_up\\{collector="${collector}"\\} (\\d)$`, 'm').exec(metrics)?.[1];

describe('daemon', () => {
  it('serves /metrics while the upstream is down at start-up, and recovers without a restart', async () => {
    const { url, log } = await setUp([{ status5xx: 503 }]);
    await expect.poll(async () => up(await (await fetch(`${url}/metrics`)).text(), 'access'), { timeout: 10_000 }).toBe('0');
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/`)).text()).toMatch(/EDGE_HTTP/);

    sim!.faults.clear();
    // The next cycle, a minute on, lists the targets again and collects.
    sim!.clock.advance(60_000);
    await daemon!.runOnce();
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(up(metrics, 'access')).toBe('1');
    expect(metrics).toMatch(/^edge_domain_requests_total\{domain="[^"]+"\} 0$/m);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(log.text).not.toContain(TOKEN);
  });

  it('answers a scrape quickly while every upstream request hangs', async () => {
    const { url } = await setUp([{ hang: true }]);
    // A collector run is now stuck on the hanging upstream (until its timeout).
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(1000) });
      expect(res.status).toBe(200);
      await res.text();
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it('protects /metrics with the basic-auth password read from server.basic_auth.password_file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'edge-pw-')), 'password');
    writeFileSync(file, 'scrape-secret-42\n');
    const { url, log } = await setUp([], [`server: { listen: "127.0.0.1:0", basic_auth: { username: prom, password_file: "${file}" } }`]);
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    const auth = `Basic ${Buffer.from('prom:scrape-secret-42').toString('base64')}`;
    expect((await fetch(`${url}/metrics`, { headers: { authorization: auth } })).status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(log.text).not.toContain('scrape-secret-42');
  });
});
