// The status page of a real daemon (in process, schedules off): the upstream
// URL shown without its credentials (user info, a token query parameter, the
// token itself never); the last reload's outcome, refused with its reason
// while the previous config keeps running, then applied; and the
// remote-write sender's row through a receiver that answers 503 (retried),
// then 204, then 400 (given up, not retried); and the OTLP metrics sender's
// row through a receiver that answers 503, then 429 with Retry-After, then 200.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { startReceiver, type Receiver } from '../exporters/remote-write/support.js';
import { startOtlpMetricsReceiver } from '../support/otlp-metrics-receiver.js';

const URL_USER = 'page-user-4b1d';
const URL_PASSWORD = 'Pa55-in-url-9f0c';
const QUERY_TOKEN = 'query-token-3a7e';
const TOKEN = 'upstream-token-77c1';

let sim: Simulator | undefined;
let daemon: Daemon | undefined;
let dir: string | undefined;
let receiver: Receiver | undefined;

afterEach(async () => {
  await daemon?.stop();
  await receiver?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const quiet = new Writable({ write: (_c, _e, done) => done() });

async function start(reloadConfig?: () => Config): Promise<{ base: string; port: string; config: Config }> {
  sim = createSimulator({ seed: 1, domains: 2, tokens: [{ token: TOKEN, permissions: '*' }] });
  const { url } = await sim.listen('127.0.0.1', 0);
  const port = new URL(url).port;
  dir = mkdtempSync(join(tmpdir(), 'edge-status-page-'));
  const text = [
    `upstream: { api_url: "http://${URL_USER}:${URL_PASSWORD}@127.0.0.1:${port}/?access_token=${QUERY_TOKEN}&region=cn", token: "${TOKEN}" }`,
    `state_dir: ${join(dir, 'state')}`,
    'server: { listen: "127.0.0.1:0" }',
  ].join('\n');
  const config = loadConfig({ text, env: {} });
  daemon = new Daemon({
    config, logger: createLogger({ level: 'silent', destination: quiet }), version: '0.1.0', schedules: false,
    ...(reloadConfig ? { reloadConfig } : {}),
  });
  return { base: await daemon.start(), port, config };
}

const page = async (base: string): Promise<string> => (await fetch(`${base}/`)).text();

/** A daemon counting the usage collector alone on a pinned clock, pushing through `section` (a remote_write or otlp_metrics line). */
async function pushing(section: string): Promise<{ base: string; clock: Simulator['clock']; running: Daemon }> {
  sim = createSimulator({ seed: 1, domains: 2, clock: { mode: 'fixed', start: Date.UTC(2026, 2, 2, 4, 0, 10) }, tokens: [{ token: TOKEN, permissions: '*' }] });
  const { url } = await sim.listen('127.0.0.1', 0);
  dir = mkdtempSync(join(tmpdir(), 'edge-status-page-'));
  const text = [
    `upstream: { api_url: "${url}", token: "${TOKEN}" }`,
    `state_dir: ${join(dir, 'state')}`,
    'server: { listen: "127.0.0.1:0" }',
    'collectors:',
    ...['access', 'topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }`),
    section,
  ].join('\n');
  const running = new Daemon({ config: loadConfig({ text, env: {} }), logger: createLogger({ level: 'silent', destination: quiet }), version: '0.1.0', clock: sim.clock, schedules: false });
  daemon = running;
  return { base: await running.start(), clock: sim.clock, running };
}

it('shows the upstream URL with its user info and token parameter masked, and no credential anywhere', async () => {
  const { base, port } = await start();
  const html = await page(base);
  expect(html).toContain(`<dt>upstream</dt><dd><code>http://[REDACTED]@127.0.0.1:${port}/?access_token=REDACTED&#38;region=cn</code></dd>`);
  for (const secret of [URL_USER, URL_PASSWORD, QUERY_TOKEN, TOKEN]) expect(html).not.toContain(secret);
});

it('shows a refused reload with its reason, then an applied one', async () => {
  let next: Config | undefined;
  const { base, config } = await start(() => next ?? config);
  expect(await page(base)).toContain('<dt>last reload</dt><dd>none since start</dd>');

  next = { ...config, server: { ...config.server, listen: '127.0.0.1:1' } };
  expect(await daemon?.reload()).toMatchObject({ ok: false });
  const refused = await page(base);
  expect(refused).toMatch(/<span class="error">refused<\/span> at \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ; the previous configuration still runs: server\.listen: changed; it is applied only by a restart/);

  next = config;
  expect(await daemon?.reload()).toEqual({ ok: true });
  expect(await page(base)).toMatch(/<dt>last reload<\/dt><dd><span class="success">applied<\/span> at \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ<\/dd>/);
});

it('shows the remote-write sender retrying a 503, then pushing, then a refusal that is not retried', async () => {
  let status = 503;
  receiver = await startReceiver(() => ({ status, body: status === 204 ? '' : `answer ${status} <b>` }));
  const { base, clock, running } = await pushing(`remote_write: { url: "${receiver.url}", batch_send_deadline: 0s, min_backoff: 50ms, max_backoff: 50ms }`);
  const row = async (): Promise<string> => (await page(base)).match(/<tr id="job-remote-write">.*?<\/tr>/)?.[0] ?? '';
  expect(await row()).toContain('<span class="none">not run yet</span>');

  await running.runOnce();
  await expect.poll(row).toMatch(/error, retrying: \d+ attempts? failed since/);
  const failing = await row();
  expect(failing).toContain('<code>server_error</code> HTTP 503: answer 503 &#60;b&#62;');
  expect(failing).toContain(`address: <code>127.0.0.1:${receiver.port}</code>`);

  status = 204;
  await expect.poll(row).toContain('<span class="success">success</span>');
  expect(await row()).not.toContain('last error"><code>');
  // The newest sample pushed is the 12:00 bucket's (platform time), 10 s before the simulator's clock.
  expect(await row()).toContain('data-label="newest sample pushed">10 s</td>');

  status = 400;
  const before = receiver.requests.length;
  // Minutes on, the next cycle counts new buckets and pushes them.
  clock.advance(5 * 60_000);
  await running.runOnce();
  await expect.poll(row).toContain('<code>refused</code> HTTP 400: answer 400 &#60;b&#62;');
  const refused = await row();
  expect(refused).toContain('<span class="error">error</span>');
  expect(refused).not.toContain('retrying');
  expect(receiver.requests.length).toBe(before + 1);
});

it('shows the OTLP metrics sender retrying a 503, waiting out a 429\'s Retry-After, then pushing', async () => {
  const metrics = await startOtlpMetricsReceiver();
  metrics.script([503, { status: 429, retryAfter: '1' }]);
  try {
    const { base, running } = await pushing(`otlp_metrics: { enabled: true, endpoint: "${metrics.url}", batch_send_deadline: 0s, min_backoff: 50ms, max_backoff: 50ms }`);
    const row = async (): Promise<string> => (await page(base)).match(/<tr id="job-otlp-metrics">.*?<\/tr>/)?.[0] ?? '';
    expect(await row()).toContain('<span class="none">not run yet</span>');

    await running.runOnce();
    await expect.poll(row).toMatch(/error, retrying: \d+ attempts? failed since/);
    // The 503 is retried at once; the 429 holds the next attempt for its Retry-After, long enough to read.
    await expect.poll(row).toContain('<code>throttled</code> HTTP 429');
    expect(await row()).toMatch(/error, retrying: 2 attempts failed since/);
    await expect.poll(row, { timeout: 5_000 }).toContain('<span class="success">success</span>');
    // The newest point pushed is the 12:00 bucket's end (platform time), 10 s before the simulator's clock.
    expect(await row()).toContain('data-label="newest sample pushed">10 s</td>');
    const posts = metrics.requests();
    expect(posts.slice(0, 3).map((p) => p.status)).toEqual([503, 429, 200]);
    expect((posts[2]?.receivedAt ?? 0) - (posts[1]?.answeredAt ?? Infinity)).toBeGreaterThanOrEqual(1000);
  } finally {
    await daemon?.stop();
    await metrics.close();
  }
});
