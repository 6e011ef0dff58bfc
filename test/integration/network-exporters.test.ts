// The OTLP and remote-write receivers behind the same rules as the upstream:
// a real forward proxy (tinyproxy) from the environment's variables or the
// section's proxy_url, CONNECT for https:// receivers (served with a
// certificate from a CA made here, trusted through <section>.tls.ca_file),
// absolute-form for http:// ones, NO_PROXY respected; and a receiver that
// cannot be reached named on the status page. A real Daemon in process,
// schedules off: runOnce() counts a cycle and starts the remote-write
// sender, forwardOnce() polls WAF events once and exports them. Every
// address is 127.0.0.1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { type Env } from '../../src/config/env.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { lineSink } from '../support/capture.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { freePort } from '../support/ports.js';
import { makeTestPki, type TestPki } from '../support/test-pki.js';
import { startTinyproxy, type Tinyproxy } from '../support/tinyproxy.js';
import { startTlsFront, type TlsFront } from '../support/tls-front.js';
import { startReceiver, until, type Receiver } from '../exporters/remote-write/support.js';

const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
const TOKEN = 'sim-token';

let dir: string;
let pki: TestPki;
let sim: Simulator;
let apiUrl: string;
let otlp: OtlpReceiver;
let otlpTls: TlsFront;
let rw: Receiver;
let rwTls: Receiver;
let proxy: Tinyproxy;
let authProxy: Tinyproxy;
const PROXY_USER = 'edge';
const PROXY_PASSWORD = 'exp0rter-Pr0xy-pw';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edge-network-exporters-'));
  pki = makeTestPki(dir);
  sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, domains: 3, tokens: [{ token: TOKEN, permissions: '*' }] });
  apiUrl = (await sim.listen('127.0.0.1', 0)).url;
  otlp = await startOtlpReceiver();
  otlpTls = await startTlsFront({ cert: pki.serverCert, key: pki.serverKey, targetPort: Number(new URL(otlp.url).port) });
  rw = await startReceiver();
  rwTls = await startReceiver(undefined, { tls: { cert: pki.serverCert, key: pki.serverKey } });
  proxy = await startTinyproxy(dir, { connectPorts: [otlpTls.port, rwTls.port] });
  authProxy = await startTinyproxy(dir, { connectPorts: [otlpTls.port, rwTls.port], basicAuth: { user: PROXY_USER, password: PROXY_PASSWORD } });
});

afterAll(async () => {
  await authProxy?.close();
  await proxy?.close();
  await rwTls?.close();
  await rw?.close();
  await otlpTls?.close();
  await otlp?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

let daemon: Daemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});

interface Started {
  readonly url: string;
  readonly lines: string[];
  readonly daemon: Daemon;
}

/** A daemon reaching the simulator directly (plain http, HTTPS_PROXY does not apply), with the `extra` YAML lines. */
async function start(extra: readonly string[], env: Env = {}, collectors: 'usage' | 'none' = 'usage', upstreamUrl = apiUrl): Promise<Started> {
  const stateDir = mkdtempSync(join(dir, 'state-'));
  const text = [
    `upstream: { api_url: "${upstreamUrl}", token: ${TOKEN}, timeout: 5s, retry: { attempts: 1 } }`,
    'log: { level: info }',
    'collectors:',
    '  defaults: { jitter: 0s }',
    ...['access', 'topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }`),
    `  usage: { enabled: ${collectors === 'usage'}, interval: 1m }`,
    'server: { listen: "127.0.0.1:0" }',
    `state_dir: ${JSON.stringify(stateDir)}`,
    ...extra,
  ].join('\n');
  const config = loadConfig({ text, env });
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: lineSink(lines), secrets: [TOKEN] });
  daemon = new Daemon({ config, logger, version: '0.0.0-test', clock: { now: () => sim.clock.now() }, schedules: false });
  return { url: await daemon.start(), lines, daemon };
}

const through = (p: Tinyproxy, port: number, from: number): string[] => p.requests().slice(from).filter((r) => r.includes(`127.0.0.1:${port}`));
const landing = async (url: string): Promise<string> => (await fetch(`${url}/`, { signal: AbortSignal.timeout(5000) })).text();

describe('remote_write behind the proxy rules', () => {
  const rwTlsLine = (): string => `remote_write: { url: "https://127.0.0.1:${rwTls.port}/api/v1/write", batch_send_deadline: 0s, tls: { ca_file: ${JSON.stringify(pki.caFile)} } }`;

  it('pushes to an https:// receiver through CONNECT, trusting it through remote_write.tls.ca_file', async () => {
    const from = proxy.requests().length;
    const before = rwTls.requests.length;
    const started = await start([rwTlsLine()], { HTTPS_PROXY: proxy.url });
    await started.daemon.runOnce();
    await rwTls.received(before + 1);
    expect(rwTls.requests[before]?.series.length).toBeGreaterThan(0);
    const seen = through(proxy, rwTls.port, from);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r === `CONNECT 127.0.0.1:${rwTls.port} HTTP/1.1`)).toBe(true);
  });

  it('pushes to an http:// receiver in absolute-form through remote_write.proxy_url', async () => {
    const from = proxy.requests().length;
    const before = rw.requests.length;
    const started = await start([`remote_write: { url: "${rw.url}", batch_send_deadline: 0s, proxy_url: "${proxy.url}" }`]);
    await started.daemon.runOnce();
    await rw.received(before + 1);
    const seen = through(proxy, rw.port, from);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r === `POST ${rw.url} HTTP/1.1`)).toBe(true);
    expect(started.lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain(`remote_write: ${rw.url} via ${proxy.url}`);
  });

  it('goes direct to a receiver NO_PROXY lists by host and port', async () => {
    const from = proxy.requests().length;
    const before = rwTls.requests.length;
    const started = await start([rwTlsLine()], { https_proxy: proxy.url, no_proxy: `127.0.0.1:${rwTls.port}` });
    await started.daemon.runOnce();
    await rwTls.received(before + 1);
    expect(proxy.requests().slice(from)).toEqual([]);
  });

  it('names an unreachable receiver with its address and cause on the status page', async () => {
    const closed = await freePort();
    const started = await start([`remote_write: { url: "http://127.0.0.1:${closed}/api/v1/write", batch_send_deadline: 0s, min_backoff: 1s, max_backoff: 1s }`]);
    await started.daemon.runOnce();
    await until(() => started.lines.some((l) => l.includes('remote write: request failed; retrying')));
    const line = JSON.parse(started.lines.find((l) => l.includes('remote write: request failed; retrying')) ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({ code: 'ECONNREFUSED', address: `127.0.0.1:${closed}`, hint: expect.stringContaining('remote_write.url') });
    expect(await landing(started.url)).toContain(`remote_write: last connection failure at `);
    expect(await landing(started.url)).toContain(`cannot reach 127.0.0.1:${closed} (ECONNREFUSED)`);
    // The sender's own row: retrying, with the request metric's outcome as the code, the address and the hint.
    const row = (await landing(started.url)).match(/<tr id="job-remote-write">.*?<\/tr>/)?.[0] ?? '';
    expect(row).toMatch(/error, retrying: \d+ attempts? failed since/);
    expect(row).toContain('<code>network_error</code> cannot reach');
    expect(row).toContain(`address: <code>127.0.0.1:${closed}</code>`);
    expect(row).toContain('hint: ');
  });
});

describe('OTLP behind the proxy rules', () => {
  const waf = 'waf_events: { enabled: true, interval: 1m, delay: 1m, overlap: 0s, max_window: 30m, start_from: 30m, page_size: 100 }';

  it('exports to an https:// receiver through CONNECT, trusting it through otlp.tls.ca_file', async () => {
    const from = proxy.requests().length;
    const before = otlp.records().length;
    const started = await start([waf, `otlp: { endpoint: "${otlpTls.origin}/v1/logs", tls: { ca_file: ${JSON.stringify(pki.caFile)} } }`], { HTTPS_PROXY: proxy.url }, 'none');
    const report = await started.daemon.forwardOnce();
    expect(report).toMatchObject({ ok: true });
    expect(report?.forwarded).toBeGreaterThan(0);
    expect(otlp.records().length - before).toBe(report?.forwarded);
    const seen = through(proxy, otlpTls.port, from);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r === `CONNECT 127.0.0.1:${otlpTls.port} HTTP/1.1`)).toBe(true);
  });

  it('exports to an http:// receiver in absolute-form through HTTP_PROXY', async () => {
    const from = proxy.requests().length;
    const started = await start([waf, `otlp: { endpoint: "${otlp.url}" }`], { HTTP_PROXY: proxy.url }, 'none');
    const report = await started.daemon.forwardOnce();
    expect(report?.ok).toBe(true);
    const seen = through(proxy, Number(new URL(otlp.url).port), from);
    expect(seen).toContain(`POST ${otlp.url} HTTP/1.1`);
  });

  it('goes direct to a receiver NO_PROXY lists', async () => {
    const from = proxy.requests().length;
    const started = await start([waf, `otlp: { endpoint: "${otlpTls.origin}/v1/logs", tls: { ca_file: ${JSON.stringify(pki.caFile)} } }`], { HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }, 'none');
    const report = await started.daemon.forwardOnce();
    expect(report?.ok).toBe(true);
    expect(through(proxy, otlpTls.port, from)).toEqual([]);
    expect(started.lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain(`otlp: ${otlpTls.origin}/v1/logs via direct`);
  });

  it('names an untrusted receiver with its address, the TLS reason and otlp.tls.ca_file on the status page', async () => {
    const started = await start([waf, `otlp: { endpoint: "${otlpTls.origin}/v1/logs", timeout: 1s }`], {}, 'none');
    // Delivery is retried until the receiver takes the events (polling waits), so the poll is left running and stopped with the daemon.
    const polling = started.daemon.forwardOnce();
    const failed = (): Record<string, unknown> | undefined =>
      started.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => String(l['msg']).startsWith('delivering WAF events failed'));
    await until(() => failed() !== undefined);
    expect(failed()).toMatchObject({ address: `127.0.0.1:${otlpTls.port}`, reason: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', hint: expect.stringContaining('otlp.tls.ca_file') });
    const page = await landing(started.url);
    expect(page).toContain('otlp: last connection failure at ');
    expect(page).toContain(`cannot reach 127.0.0.1:${otlpTls.port} (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`);
    await started.daemon.stop();
    await polling.catch(() => undefined);
  });
});

describe('the WAF event job, which has no row in the collectors table', () => {
  it('names its upstream connection failure with the address and cause on the status page', async () => {
    const closed = await freePort();
    const started = await start([
      'waf_events: { enabled: true, interval: 1m, delay: 1m, overlap: 0s, max_window: 30m, start_from: 30m, page_size: 100 }',
      `otlp: { endpoint: "${otlp.url}" }`,
    ], {}, 'none', `http://127.0.0.1:${closed}`);
    const report = await started.daemon.forwardOnce();
    expect(report).toMatchObject({ ok: false, error: { code: 'EDGE_NETWORK' } });
    const page = await landing(started.url);
    expect(page).toContain('waf_events: last connection failure at ');
    expect(page).toContain(`cannot reach 127.0.0.1:${closed} (ECONNREFUSED)`);
  });
});

describe('a proxy that wants credentials', () => {
  const authed = (): string => `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${authProxy.port}`;

  it('remote-write and OTLP authenticate with the credentials in the proxy URL, never logging them', async () => {
    const from = authProxy.requests().length;
    const rwBefore = rwTls.requests.length;
    const started = await start([
      `remote_write: { url: "https://127.0.0.1:${rwTls.port}/api/v1/write", batch_send_deadline: 0s, tls: { ca_file: ${JSON.stringify(pki.caFile)} } }`,
      'waf_events: { enabled: true, interval: 1m, delay: 1m, overlap: 0s, max_window: 30m, start_from: 30m, page_size: 100 }',
      `otlp: { endpoint: "${otlp.url}" }`,
    ], { HTTPS_PROXY: authed(), HTTP_PROXY: authed(), NO_PROXY: `127.0.0.1:${new URL(apiUrl).port}` });
    await started.daemon.runOnce();
    await rwTls.received(rwBefore + 1);
    expect((await started.daemon.forwardOnce())?.ok).toBe(true);
    const seen = authProxy.requests().slice(from);
    expect(seen).toContain(`CONNECT 127.0.0.1:${rwTls.port} HTTP/1.1`);
    expect(seen).toContain(`POST ${otlp.url} HTTP/1.1`);
    const masked = `http://[REDACTED]@127.0.0.1:${authProxy.port}`;
    const messages = started.lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toContain(`otlp: ${otlp.url} via ${masked}`);
    expect(messages).toContain(`remote_write: https://127.0.0.1:${rwTls.port}/api/v1/write via ${masked}`);
    expect(started.lines.join('')).not.toContain(PROXY_PASSWORD);
  });

  it('a refusal of wrong credentials is logged for remote-write with the proxy masked', async () => {
    const wrong = `http://${PROXY_USER}:wrong-${PROXY_PASSWORD}@127.0.0.1:${authProxy.port}`;
    const started = await start([`remote_write: { url: "https://127.0.0.1:${rwTls.port}/api/v1/write", batch_send_deadline: 0s, min_backoff: 1s, max_backoff: 1s, tls: { ca_file: ${JSON.stringify(pki.caFile)} }, proxy_url: "${wrong}" }`]);
    await started.daemon.runOnce();
    await until(() => started.lines.some((l) => l.includes('remote write: request failed; retrying')));
    const line = JSON.parse(started.lines.find((l) => l.includes('remote write: request failed; retrying')) ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({ code: 'PROXY_REFUSED', proxy: `http://[REDACTED]@127.0.0.1:${authProxy.port}`, hint: expect.stringContaining('remote_write.proxy_url') });
    const page = await landing(started.url);
    for (const text of [started.lines.join(''), page]) expect(text).not.toContain(PROXY_PASSWORD);
  });
});
