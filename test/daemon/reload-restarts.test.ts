// What a reload restarts, in process, with the simulator's request log as the
// ground truth: an unchanged config restarts nothing and sends nothing; a
// change to one collector's block restarts that collector alone (the other
// keeps its schedule, its last run and its counters), and the restarted one
// runs on its new schedule; a changed token file (same YAML) restarts every
// collector, since they share the client it goes into. The daemon's clock and
// the simulator's are fixed and moved by the test, 100 ms before a minute
// boundary, so a 1m schedule fires only when the test moves the clock and a 1h
// one never does.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { Capture } from '../support/capture.js';
import { startReceiver } from '../exporters/remote-write/support.js';

const TOKEN = 'reload-restarts-token-3c9';
const ROTATED = 'reload-restarts-token-rotated-5d1';
const T0 = Date.UTC(2026, 2, 2, 4, 30, 59, 900);

let sim: Simulator;
let apiUrl: string;
let dir: string;
let daemon: Daemon | undefined;
let now = T0;

beforeAll(async () => {
  sim = createSimulator({
    seed: 5, domains: 2, clock: { mode: 'fixed', start: T0 },
    tokens: [{ token: TOKEN, permissions: '*' }, { token: ROTATED, permissions: '*' }],
  });
  ({ url: apiUrl } = await sim.listen('127.0.0.1', 0));
  dir = mkdtempSync(join(tmpdir(), 'edge-reload-restarts-'));
});
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const config = (name: string, usageInterval: string): string => [
  `upstream: { api_url: "${apiUrl}", token_file: ${JSON.stringify(join(dir, `${name}.token`))}, timeout: 2s, retry: { attempts: 1 } }`,
  `state_dir: ${JSON.stringify(join(dir, name, 'state'))}`,
  'server: { listen: "127.0.0.1:0" }',
  'collectors:',
  '  defaults: { jitter: 0s }',
  '  access: { interval: 1h }',
  `  usage: { interval: ${usageInterval} }`,
  ...['topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }`),
].join('\n');

async function start(name: string): Promise<{ url: string; file: string; log: Capture }> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(join(dir, `${name}.token`), TOKEN);
  writeFileSync(file, config(name, '1h'));
  const log = new Capture();
  const load = () => loadConfig({ file, env: {} });
  daemon = new Daemon({
    config: load(), logger: createLogger({ level: 'info', destination: log }), version: 'test', reloadConfig: load,
    clock: { now: () => now },
  });
  return { url: await daemon.start(), file, log };
}

/** Both clocks forward by `ms`. */
function advance(ms: number): void {
  now += ms;
  sim.clock.advance(ms);
}

/** The operations the simulator has received, oldest first. */
async function received(): Promise<string[]> {
  const body = (await (await fetch(`${apiUrl}/__admin/received`)).json()) as { data: { operation: string }[] };
  return body.data.map((r) => r.operation);
}

/** edge_exporter_collector_runs_total{outcome="success"} by collector. */
async function runs(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^edge_exporter_collector_runs_total\{collector="([^"]+)",outcome="success"\} (\S+)$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

/** edge_domain_requests_total's series, as exposed. */
async function accessCounters(url: string): Promise<string[]> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text.split('\n').filter((line) => line.startsWith('edge_domain_requests_total{'));
}

describe('a reload restarts what changed', () => {
  it('unchanged: nothing runs, nothing is asked; one collector changed: it alone restarts, on its new schedule', async () => {
    const { url, file, log } = await start('one');
    await expect.poll(() => runs(url), { timeout: 20_000 }).toEqual({ access: 1, usage: 1 });
    const before = await received();
    const counters = await accessCounters(url);
    expect(before).toContain('describeL7UsageData');
    expect(counters.length).toBeGreaterThan(0);

    // The same file again: nothing restarted, no request sent.
    expect(await daemon!.reload()).toEqual({ ok: true });
    expect(log.text).toMatch(/configuration unchanged/);
    expect(await runs(url)).toEqual({ access: 1, usage: 1 });
    expect(await received()).toEqual(before);

    // usage's interval 1h -> 1m: usage runs again at once; access keeps its last run and its counters.
    writeFileSync(file, config('one', '1m'));
    expect(await daemon!.reload()).toEqual({ ok: true });
    await expect.poll(() => runs(url), { timeout: 20_000 }).toEqual({ access: 1, usage: 2 });
    const afterSwap = await received();
    expect(afterSwap.slice(0, before.length)).toEqual(before);
    expect(afterSwap.slice(before.length).filter((op) => op !== 'describeL7UsageData')).toEqual([]);
    expect(afterSwap.length).toBeGreaterThan(before.length);
    expect(await accessCounters(url)).toEqual(counters);
    expect(log.text).toMatch(/"restarted":\["usage"\]/);

    // Over the minute boundary: usage's new 1m schedule fires, access's 1h one does not.
    advance(1_000);
    await expect.poll(() => runs(url), { timeout: 20_000 }).toEqual({ access: 1, usage: 3 });
  });

  it('a token file whose content changed (the YAML the same) restarts every collector', async () => {
    const { url } = await start('token');
    await expect.poll(() => runs(url), { timeout: 20_000 }).toEqual({ access: 1, usage: 1 });
    writeFileSync(join(dir, 'token.token'), ROTATED);
    expect(await daemon!.reload()).toEqual({ ok: true });
    await expect.poll(() => runs(url), { timeout: 20_000 }).toEqual({ access: 2, usage: 2 });
  });

  it('after a failed reload goes back, the previous config is compared as it was built again: the same file is then unchanged', async () => {
    const receiver = await startReceiver();
    try {
      const { url, file, log } = await start('back');
      await expect.poll(() => runs(url), { timeout: 20_000 }).toEqual({ access: 1, usage: 1 });
      // remote-write's bearer token lives in a file the sender is built from; the config holds only its path.
      const bearer = join(dir, 'back.bearer');
      writeFileSync(bearer, 'bearer-1');
      const previous = `${config('back', '1h')}\nremote_write: { url: "${receiver.url}", bearer_token_file: ${JSON.stringify(bearer)} }`;
      writeFileSync(file, previous);
      expect(await daemon!.reload()).toEqual({ ok: true });
      await expect.poll(() => runs(url), { timeout: 20_000 }).toEqual({ access: 2, usage: 2 });
      // The bearer file rotates; then a reload names an OTLP metrics CA that is not there, which only building finds.
      writeFileSync(bearer, 'bearer-2');
      writeFileSync(file, `${previous}\notlp_metrics: { enabled: true, endpoint: "https://127.0.0.1:9/v1/metrics", tls: { ca_file: ${JSON.stringify(join(dir, 'no-such-ca.pem'))} } }`);
      const refused = await daemon!.reload();
      expect(refused.ok).toBe(false);
      expect(refused.ok ? '' : refused.message).toMatch(/otlp_metrics\.tls\.ca_file .*no-such-ca\.pem/);
      // Back on the previous config, built again with the rotated bearer file: the same file again restarts nothing and asks nothing.
      await expect.poll(() => runs(url), { timeout: 20_000 }).toEqual({ access: 3, usage: 3 });
      writeFileSync(file, previous);
      const before = await received();
      const lines = log.text.length;
      expect(await daemon!.reload()).toEqual({ ok: true });
      expect(log.text.slice(lines)).toMatch(/configuration unchanged/);
      expect(await received()).toEqual(before);
    } finally {
      await daemon?.stop();
      await receiver.close();
    }
  });
});
