// End to end: the real daemon (the CLI, a child process) reads its token from
// upstream.token_file. While it runs, the token is rotated: the file is
// rewritten with a new one and the simulator stops accepting the old one.
// The daemon's next requests are answered 401, it reads the file again and
// carries on without a restart: its access counters then hold exactly what
// the simulator served, the 401 shows in edge_exporter_upstream_requests_total,
// and neither token is ever printed.
//
// Time: the simulator runs on the wall clock from 12:00:48 (platform time),
// and the child's Date.now is moved onto it (clock-offset.ts). The daemon's
// first access run at start-up counts nothing (counters start at the last
// settled bucket); the token is rotated then, before 12:01:00, when the next
// run counts the bucket that has just settled.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { kill, servingUrl, startCli, type CliProcess } from '../security/cli-process.js';
import { accessCounters, DELAY_MS, MIN, truthBetween } from '../daemon/state-fixtures.js';

/**
 * 2026-03-02 12:00:48 platform time (UTC+8): 12 s before the boundary, all of
 * which the test waits. The daemon is up and has run once about 4 s after its
 * spawn here; the check below needs that within 10 s.
 */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 48);
/** The minute boundary at which the first run after start-up counts a bucket. */
const BOUNDARY = Date.UTC(2026, 2, 2, 4, 1, 0);
const T1 = 'rotation-e2e-first-token-6d2b9f';
const T2 = 'rotation-e2e-second-token-a47c31';
const CLOCK_PRELOAD = fileURLToPath(new URL('../daemon/clock-offset.ts', import.meta.url));

let sim: Simulator | undefined;
let daemon: CliProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  await kill(daemon);
  daemon = undefined;
  await sim?.close();
  sim = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Sum of a family's samples whose labels include every `labels` pair (0 when none). */
function sample(exposition: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const m of exposition.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    const have = m[1]!;
    if (Object.entries(labels).every(([k, v]) => have.includes(`${k}="${v}"`))) sum += Number(m[2]);
  }
  return sum;
}

describe('token rotation through a 401', () => {
  it('re-reads upstream.token_file, keeps collecting without a restart, counts exactly, and never prints a token', async () => {
    sim = createSimulator({ seed: 13, domains: 3, clock: { mode: 'real', start: T0 }, tokens: [{ token: T1, permissions: '*' }] });
    const { url: apiUrl } = await sim.listen('127.0.0.1', 0);
    dir = mkdtempSync(join(tmpdir(), 'edge-token-rotation-'));
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${T1}\n`);
    const config = join(dir, 'config.yaml');
    writeFileSync(config, [
      `upstream: { api_url: "${apiUrl}", token_file: ${JSON.stringify(tokenFile)}, timeout: 5s, retry: { attempts: 1 } }`,
      `state_dir: ${JSON.stringify(join(dir, 'state'))}`,
      'server: { listen: "127.0.0.1:0" }',
      'log: { level: info }',
      'collectors:',
      '  defaults: { jitter: 0s }',
      `  access: { interval: 1m, delay: ${DELAY_MS / MIN}m }`,
      ...['usage', 'topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }`),
    ].join('\n'));
    const domains = sim.world.domains.map((d) => d.domainName);
    const s = sim;

    daemon = startCli(['run', '--config', config], { EDGE_TEST_CLOCK_OFFSET_MS: String(s.clock.now() - Date.now()) }, [CLOCK_PRELOAD]);
    const d = daemon;
    await expect.poll(() => servingUrl(d.stdout()), { timeout: 15_000 }).toBeDefined();
    const metricsUrl = `${servingUrl(d.stdout())!}/metrics`;
    const scrape = async (): Promise<string> => (await fetch(metricsUrl)).text();

    // The start-up run with T1: served, counters at 0.
    await expect.poll(async () => sample(await scrape(), 'edge_exporter_collector_runs_total', { collector: 'access', outcome: 'success' }), { timeout: 15_000 }).toBe(1);
    const before = await scrape();
    expect(sample(before, 'edge_exporter_collector_up', { collector: 'access' })).toBe(1);
    const servedWithT1 = sample(before, 'edge_exporter_upstream_requests_total', { operation: 'describeL7DataV2', outcome: 'success' });
    expect(servedWithT1).toBe(domains.length);
    expect(sample(before, 'edge_exporter_upstream_requests_total', { outcome: 'EDGE_AUTH' })).toBe(0);
    expect([...accessCounters(before).values()].every((c) => c.requests === 0)).toBe(true);
    // The rotation must land before the next run; a machine too slow to start the daemon in 10 s fails here, not later.
    expect(s.clock.now()).toBeLessThan(BOUNDARY - 2_000);

    // Rotate: the new token goes into the file first, then the old one stops working.
    writeFileSync(tokenFile, `${T2}\n`);
    s.setTokens([{ token: T2, permissions: '*' }]);

    // The 12:01:00 run is answered 401, re-reads the file and counts the newly settled bucket exactly.
    const truth = new Map(domains.map((domain) => [domain, truthBetween(s, domain, T0, BOUNDARY + 1_000)]));
    expect([...truth.values()].every((t) => t.requests > 0)).toBe(true);
    await expect.poll(async () => sample(await scrape(), 'edge_exporter_collector_runs_total', { collector: 'access' }), { timeout: 40_000 }).toBe(2);
    const after = await scrape();
    expect(Object.fromEntries(accessCounters(after))).toEqual(Object.fromEntries(truth));
    expect(sample(after, 'edge_exporter_collector_up', { collector: 'access' })).toBe(1);
    expect(sample(after, 'edge_exporter_collector_runs_total', { collector: 'access', outcome: 'error' })).toBe(0);
    // Every request of the run carried T1 and got 401 (they went out together), then was replayed once with T2.
    expect(sample(after, 'edge_exporter_upstream_requests_total', { operation: 'describeL7DataV2', outcome: 'EDGE_AUTH' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'edge_exporter_upstream_requests_total', { outcome: 'EDGE_AUTH' })).toBeLessThanOrEqual(domains.length);
    expect(sample(after, 'edge_exporter_upstream_requests_total', { operation: 'describeL7DataV2', outcome: 'success' })).toBe(servedWithT1 + domains.length);
    expect(sample(after, 'edge_exporter_upstream_retries_total', {})).toBe(0);

    // One re-read, logged with the file and no token.
    const reread = d.stdout().split('\n').filter((l) => l.includes('after a 401')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(reread).toEqual([expect.objectContaining({ level: 'info', msg: `upstream token re-read from ${tokenFile} after a 401`, file: tokenFile, changed: true })]);

    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    const printed = d.stdout() + d.stderr();
    expect(printed).toContain('serving metrics');
    expect(printed).not.toContain(T1);
    expect(printed).not.toContain(T2);
  }, 90_000);
});
