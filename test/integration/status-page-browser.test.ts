// The status page as a person meets it: in a real headless Chromium (Debian's
// `chromium`, driven by playwright-core; no browser is downloaded). A daemon
// (in-process, on the simulator's fixed clock, cycles driven by runOnce and
// forwardOnce) runs every collector and forwards WAF events to a real OTLP
// receiver. Healthy first; then the receiver answers 503 to every export and
// the page, left open, must reload by itself and show the forwarder's row
// failing with its code and the receiver's address, the collectors still
// green. A 375-px-wide viewport must not scroll sideways.
//
// With two named accounts, one of them refusing the token: the page links a
// section per account, the failing account's rows are red with EDGE_AUTH in
// its own section while the other's stay green, each row's id its own, and
// the phone width still holds.
//
// Screenshots (healthy and failing) go to a temporary directory, or to
// SCREENSHOT_DIR: `npm run screenshots` writes the ones docs/operations.md shows
// into docs/, so `npm test` leaves the work tree clean.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';

const TOKEN = 'status-page-token-41c9';
const MIN = 60_000;
/** 2026-03-02 12:00:00 platform time. */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const COLLECTORS = ['access', 'usage', 'topn', 'cc-attack', 'waf-trend', 'inventory'];
/** Debian's package; scripts/install-test-deps.sh installs it. */
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

let sim: Simulator | undefined;
let other: Simulator | undefined;
let receiver: OtlpReceiver | undefined;
let daemon: Daemon | undefined;
let browser: Browser | undefined;
let dir: string | undefined;

afterEach(async () => {
  await browser?.close();
  await daemon?.stop();
  await receiver?.close();
  await sim?.close();
  await other?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  // Each test starts what it needs: nothing of one is closed again after the next.
  [browser, daemon, receiver, sim, other, dir] = [undefined, undefined, undefined, undefined, undefined, undefined];
});

const quiet = new Writable({ write: (_c, _e, done) => done() });

/** The text of a job's row, as the browser lays it out. */
const rowText = (page: Page, job: string): Promise<string> => page.locator(`#job-${job}`).innerText();

it('shows the forwarder failing (code, address) beside green collectors, refreshes itself and fits a phone', async () => {
  sim = createSimulator({ seed: 3, domains: 20, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
  const { url } = await sim.listen('127.0.0.1', 0);
  receiver = await startOtlpReceiver();
  dir = mkdtempSync(join(tmpdir(), 'edge-status-page-'));
  const shots = process.env.SCREENSHOT_DIR ?? dir;
  const text = [
    `upstream: { api_url: "${url}", token: "${TOKEN}" }`,
    `state_dir: ${join(dir, 'state')}`,
    'server: { listen: "127.0.0.1:0" }',
    'waf_events: { enabled: true, interval: 30s, delay: 2m, overlap: 5m, max_window: 15m, start_from: 10m, page_size: 50 }',
    `otlp: { endpoint: "${receiver.url}", timeout: 1s, max_batch: 20 }`,
  ].join('\n');
  const clock = sim.clock;
  daemon = new Daemon({ config: loadConfig({ text, env: {} }), logger: createLogger({ level: 'silent', destination: quiet }), version: '0.1.0', clock, schedules: false });
  const base = await daemon.start();
  const reports = await daemon.runOnce();
  expect(reports.map((r) => [r.collector, r.ok])).toEqual(COLLECTORS.map((c) => [c, true]));
  expect(await daemon.forwardOnce()).toMatchObject({ ok: true });

  // A fresh profile (launch() makes a temporary one), nothing fetched but the page.
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  let loads = 0;
  page.on('load', () => loads++);
  await page.goto(`${base}/`);
  for (const c of COLLECTORS) expect(await rowText(page, c)).toMatch(/\tsuccess\t/);
  // The delivery audit under the outcome: its first check compared the buckets the final pass had read, and all matched.
  expect(await rowText(page, 'waf-events')).toMatch(/\tsuccess\naudit at 2026-03-02 04:00:00Z: 0 buckets short \(0 events missing\), 0 events recovered, 0 buckets unreconciled\t120 s \(2 min 0 s\)\t$/);
  // What became of the events: as many forwarded as the receiver holds, none summarized or failed yet.
  const delivered = new Set(receiver.uids()).size;
  expect(delivered).toBeGreaterThan(0);
  expect(await page.locator('#waf-events').innerText())
    .toMatch(new RegExp(`^\\d+ read, \\d+ repeats dropped, ${delivered} forwarded, 0 summarized into summary records \\(beyond waf_events\\.max_rate\\), 0 failed delivery attempts \\(retried\\)$`));
  await page.screenshot({ path: join(shots, 'status-page-healthy.png'), fullPage: true });

  // The receiver fails every export: the next poll's delivery is retried in place, and the open page must show it by itself.
  receiver.setDown(true);
  clock.advance(MIN);
  const polling = daemon.forwardOnce();
  const port = new URL(receiver.url).port;
  const loaded = loads;
  await expect.poll(async () => (loads > loaded ? rowText(page, 'waf-events') : ''), { timeout: 25_000, interval: 250 }).toContain('EDGE_DELIVERY');
  const failing = await rowText(page, 'waf-events');
  expect(failing).toMatch(/error, retrying: \d+ attempts? failed since 2026-03-02 04:01:00Z/);
  expect(failing).toContain(`address: 127.0.0.1:${port}`);
  expect(receiver.requests().some((r) => r.status === 503)).toBe(true);
  for (const c of COLLECTORS) expect(await rowText(page, c)).toMatch(/\tsuccess\t/);
  await page.screenshot({ path: join(shots, 'status-page-failing.png'), fullPage: true });

  // A phone: the document is no wider than the screen (the table stacks into cards).
  const phone = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await phone.goto(`${base}/`);
  // A string, run in the page: the tests are compiled without the DOM's types.
  const widths = await phone.evaluate<{ scroll: number; client: number }>('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })');
  expect(widths.client).toBe(375);
  expect(widths.scroll).toBeLessThanOrEqual(widths.client);

  await daemon.stop();
  expect(await polling).toMatchObject({ ok: false });
}, 60_000);

it('shows a section per named account: one refusing the token in red in its own section, the other green', async () => {
  sim = createSimulator({ seed: 1, domains: 3, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
  other = createSimulator({ seed: 2, domains: 3, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: 'someone-else-token-7d1a', permissions: '*' }] });
  const [euUrl, usUrl] = [(await sim.listen('127.0.0.1', 0)).url, (await other.listen('127.0.0.1', 0)).url];
  dir = mkdtempSync(join(tmpdir(), 'edge-status-page-'));
  const text = [
    `state_dir: ${join(dir, 'state')}`,
    'server: { listen: "127.0.0.1:0" }',
    'accounts:',
    `  - { name: eu, upstream: { api_url: "${euUrl}", token: "${TOKEN}" } }`,
    // us is given eu's token, which its upstream does not accept.
    `  - { name: us, upstream: { api_url: "${usUrl}", token: "${TOKEN}", retry: { attempts: 1 } } }`,
  ].join('\n');
  daemon = new Daemon({ config: loadConfig({ text, env: {} }), logger: createLogger({ level: 'silent', destination: quiet }), version: '0.1.0', clock: sim.clock, schedules: false });
  const base = await daemon.start();
  await daemon.runOnce();

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  await page.goto(`${base}/`);
  expect(await page.locator('section h2').allInnerTexts()).toEqual(['account eu', 'account us']);
  expect(await page.locator('a[href="#account-us"]').innerText()).toBe('us');
  for (const c of COLLECTORS) {
    expect(await rowText(page, `eu-${c}`)).toMatch(/\tsuccess\t/);
    expect(await rowText(page, `us-${c}`)).toMatch(/\terror\t/);
  }
  expect(await page.locator('#account-us').innerText()).toContain('EDGE_AUTH');
  expect(await page.locator('#account-eu').innerText()).not.toContain('EDGE_AUTH');
  // Every element id once on the page.
  const ids = await page.evaluate<string[]>('[...document.querySelectorAll("[id]")].map((e) => e.id)');
  expect(ids.length).toBeGreaterThan(2 * COLLECTORS.length);
  expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);

  const phone = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await phone.goto(`${base}/`);
  const widths = await phone.evaluate<{ scroll: number; client: number }>('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })');
  expect(widths.scroll).toBeLessThanOrEqual(widths.client);
}, 60_000);
