// The real daemon (a child process) reloaded while it runs: SIGHUP with a
// valid config (a collector added, the WAF stream's paging changed), SIGHUP
// with one that does not validate (refused with check-config's message, the
// old config keeps running), and POST /-/reload (a collector removed). The
// counters must continue exactly (the simulator's ground truth over the range
// counted) and the OTLP receiver must hold every deny event once. The
// simulator's clock is fixed and moved by the test; the child's Date.now
// follows it (clock-offset.ts, moved on SIGUSR2).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { freePort } from '../support/ports.js';
import { accessCounters, configText, MIN, TOKEN, truthBetween } from './state-fixtures.js';

/** 10 s into a platform minute, so the child's own seconds never cross into the next one. */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
const CLOCK_PRELOAD = fileURLToPath(new URL('./clock-offset.ts', import.meta.url));
const WAF_DELAY_MS = 4_000;
const START_FROM_MS = 10 * MIN;

let sim: Simulator;
let receiver: OtlpReceiver;
let dir: string;
let child: ChildProcess | undefined;
const output = { stdout: '', stderr: '' };

beforeAll(async () => {
  sim = createSimulator({ seed: 11, domains: 4, wafIngestLagMs: 2_000, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
  receiver = await startOtlpReceiver();
  dir = mkdtempSync(join(tmpdir(), 'edge-reload-'));
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await receiver?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

function config(apiUrl: string, port: number, o: { readonly usage: boolean; readonly pageSize: number }): string {
  const text = configText({
    apiUrl,
    stateDir: join(dir, 'state'),
    listen: `127.0.0.1:${port}`,
    extra: [
      `otlp: { endpoint: "${receiver.url}", timeout: 2s, max_batch: 10 }`,
      `waf_events: { enabled: true, interval: 1s, delay: ${WAF_DELAY_MS}ms, overlap: 10s, max_window: 30s, start_from: ${START_FROM_MS}ms, page_size: ${o.pageSize} }`,
    ],
  }).replace('server: {', 'server: { enable_reload: true,');
  return o.usage ? text.replace('  usage: { enabled: false }', '  usage: { interval: 5m }') : text;
}

const clockFile = (): string => join(dir, 'clock');
const log = (): string => output.stdout;

async function moveClock(ms: number): Promise<void> {
  sim.clock.advance(ms);
  writeFileSync(clockFile(), String(sim.clock.now() - Date.now()));
  const seen = output.stderr.split('test clock offset').length;
  child?.kill('SIGUSR2');
  await expect.poll(() => output.stderr.split('test clock offset').length, { timeout: 5_000 }).toBe(seen + 1);
}

async function scrape(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

const gauge = (text: string, name: string): number | undefined => {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

/** Deny events from where forwarding began (the checkpoint's origin: the child's now - start_from at its first start) to `to`. */
function denyIds(to: number): Set<string> {
  const { data } = JSON.parse(readFileSync(join(dir, 'state', 'waf-events-checkpoint.json'), 'utf8')) as { data: { originMs: number } };
  return new Set(sim.truth.wafEvents(data.originMs, to).filter((e) => e.record.response.httpCode === 417).map((e) => e.record.requestId));
}

const count = (text: string, pattern: RegExp): number => text.split('\n').filter((line) => pattern.test(line)).length;

describe('reloading the running daemon', () => {
  it('SIGHUP valid, SIGHUP invalid, POST /-/reload: counters continue exactly, every deny event once', async () => {
    const { url } = await sim.listen('127.0.0.1', 0);
    const port = await freePort();
    const file = join(dir, 'config.yaml');
    writeFileSync(file, config(url, port, { usage: false, pageSize: 20 }));
    writeFileSync(clockFile(), String(sim.clock.now() - Date.now()));
    child = spawn(process.execPath, ['--import', 'tsx', '--import', CLOCK_PRELOAD, 'src/cli/main.ts', 'run', '--config', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, EDGE_TEST_CLOCK_OFFSET_MS: String(sim.clock.now() - Date.now()), EDGE_TEST_CLOCK_FILE: clockFile() },
    });
    child.stdout?.setEncoding('utf8').on('data', (t: string) => (output.stdout += t));
    child.stderr?.setEncoding('utf8').on('data', (t: string) => (output.stderr += t));
    const domains = sim.world.domains.map((d) => d.domainName).sort();

    // The first cycle starts every counter at 0 at T0; the WAF stream catches up to T0 - delay.
    await expect.poll(async () => [...accessCounters(await scrape(port).catch(() => '')).keys()].sort(), { timeout: 30_000 }).toEqual(domains);
    const atStart = accessCounters(await scrape(port));
    expect([...atStart.values()].every((c) => c.requests === 0)).toBe(true);
    const firstDeny = denyIds(T0 - WAF_DELAY_MS - 1_000);
    expect(firstDeny.size).toBeGreaterThan(5);
    await expect.poll(() => [...firstDeny].filter((id) => !receiver.uids().includes(id)).length, { timeout: 30_000 }).toBe(0);
    const started = await scrape(port);
    expect(gauge(started, 'edge_exporter_config_last_reload_successful')).toBe(1);
    const startedAt = gauge(started, 'edge_exporter_config_last_reload_success_timestamp_seconds');
    expect(startedAt).toBeGreaterThan(0);
    expect(count(started, /^edge_package_/)).toBe(0);

    // 1. SIGHUP with a valid config three minutes later: usage added, WAF paging changed.
    await moveClock(3 * MIN);
    const reloadedAt = sim.clock.now();
    writeFileSync(file, config(url, port, { usage: true, pageSize: 7 }));
    child.kill('SIGHUP');
    await expect.poll(() => count(log(), /"msg":"configuration reloaded"/), { timeout: 30_000 }).toBe(1);
    // The reload's first access cycle counts T0's last settled bucket up to now's: exactly the simulator's truth.
    const expected = new Map(domains.map((d) => [d, truthBetween(sim, d, T0, reloadedAt)]));
    expect([...expected.values()].some((t) => t.requests > 0)).toBe(true);
    await expect.poll(async () => Object.fromEntries(accessCounters(await scrape(port))), { timeout: 30_000 }).toEqual(Object.fromEntries(expected));
    await expect.poll(async () => count(await scrape(port), /^edge_package_\w+\{/), { timeout: 30_000 }).toBeGreaterThan(0);
    const afterValid = await scrape(port);
    expect(gauge(afterValid, 'edge_exporter_config_last_reload_successful')).toBe(1);
    expect(gauge(afterValid, 'edge_exporter_config_last_reload_success_timestamp_seconds')).toBeGreaterThan(startedAt!);
    expect(afterValid).toMatch(/^edge_exporter_collector_up\{collector="usage"\} 1$/m);

    // 2. SIGHUP with a config that does not validate: refused with check-config's message, nothing changes.
    writeFileSync(file, `${config(url, port, { usage: false, pageSize: 20 })}\ncollectors_typo: {}\n`);
    child.kill('SIGHUP');
    await expect.poll(() => count(log(), /"msg":"reload refused; still running on the previous configuration"/), { timeout: 10_000 }).toBe(1);
    expect(log()).toMatch(/"reason":"[^"]*collectors_typo[^"]*unknown key/);
    const refused = await scrape(port);
    expect(gauge(refused, 'edge_exporter_config_last_reload_successful')).toBe(0);
    expect(gauge(refused, 'edge_exporter_config_last_reload_success_timestamp_seconds')).toBe(gauge(afterValid, 'edge_exporter_config_last_reload_success_timestamp_seconds'));
    expect(Object.fromEntries(accessCounters(refused))).toEqual(Object.fromEntries(expected));
    expect(count(refused, /^edge_package_\w+\{/)).toBeGreaterThan(0);

    // 3. POST /-/reload with the first config again, two minutes later: usage removed, access continues.
    await moveClock(2 * MIN);
    const postedAt = sim.clock.now();
    writeFileSync(file, config(url, port, { usage: false, pageSize: 20 }));
    const answer = await fetch(`http://127.0.0.1:${port}/-/reload`, { method: 'POST' });
    expect([answer.status, await answer.text()]).toEqual([200, 'configuration reloaded\n']);
    const total = new Map(domains.map((d) => [d, truthBetween(sim, d, T0, postedAt)]));
    await expect.poll(async () => Object.fromEntries(accessCounters(await scrape(port))), { timeout: 30_000 }).toEqual(Object.fromEntries(total));
    const afterPost = await scrape(port);
    expect(count(afterPost, /^edge_package_/)).toBe(0);
    expect(afterPost).not.toMatch(/collector="usage"/);
    expect(gauge(afterPost, 'edge_exporter_config_last_reload_successful')).toBe(1);

    // Every deny event up to now - delay arrived, none twice, across both reloads.
    const allDeny = denyIds(postedAt - WAF_DELAY_MS - 1_000);
    await expect.poll(() => [...allDeny].filter((id) => !receiver.uids().includes(id)).length, { timeout: 30_000 }).toBe(0);
    // The denied counter continued across both reloads too: it counts each delivered event once.
    const denied = (text: string) => [...text.matchAll(/^edge_waf_denied_requests_total\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    await expect.poll(async () => denied(await scrape(port)) === new Set(receiver.uids()).size, { timeout: 10_000 }).toBe(true);
    child.kill('SIGTERM');
    await new Promise((resolve) => child?.once('close', resolve));
    const received = receiver.uids();
    expect(received.length).toBeGreaterThanOrEqual(allDeny.size);
    expect(received.length - new Set(received).size).toBe(0);
    expect(output.stderr).not.toMatch(/crashed|unexpected error/);
    child = undefined;
  }, 120_000);
});
