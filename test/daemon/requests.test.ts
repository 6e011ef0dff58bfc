// The requests per hour a config makes: a table of configs (schedules, cron,
// audit, per-domain cc-attack, static targets, WAF events), the budget
// warning, and the ground truth: what a steady-state cycle of the real daemon
// sent to the simulator equals what each collector declares per run, audit
// included.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OperationName } from '../../src/api/index.js';
import { budgetProblem, type RequestEstimate } from '../../src/engine/requests.js';
import { loadConfig, resolveCollectorOptions, type Config } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { buildCollectors } from '../../src/daemon/wiring/collectors.js';
import { logRequestEstimate, renderRequestEstimate, requestEstimate } from '../../src/daemon/wiring/requests.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { lineSink } from '../support/capture.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);

function estimate(yaml: string, targets = { domains: 20, packages: 10 }): RequestEstimate {
  const config = loadConfig({ text: `simulator: { enabled: true }\n${yaml}`, env: {} });
  return requestEstimate(config, buildCollectors(resolveCollectorOptions(config), config.shard), targets);
}

const perHour = (e: RequestEstimate): Record<string, number> => Object.fromEntries(e.lines.map((l) => [l.source, l.perHour]));

describe('requests per hour', () => {
  it.each<[string, string, Record<string, number>]>([
    // 20 domains, 10 packages, every 5m, audit every 15m (4/h), discovery every 10m: listDomains (1 page) + getPackages.
    ['the defaults', '', { access: 12 * 20 + 4 * 20, usage: 12 * 10 + 4 * 10, topn: 12 * 2, 'cc-attack': 12 * 1 + 4 * 1, 'waf-trend': 12 * 6 + 4 * 6,
      // getPackages, listLayer4Packages + a detail per package, listDomains, describeHosting, 3 cache types, orders, quality.
      inventory: 12 * (1 + 1 + 10 + 1 + 1 + 3 + 1 + 1), targets: 6 * 2 }],
    ['access alone on 1m buckets, no audit', `
collectors:
  defaults: { audit: { every: 0s } }
  access: { interval: 1m }
  usage: { enabled: false }
  topn: { enabled: false }
  cc_attack: { enabled: false }
  waf_trend: { enabled: false }
  inventory: { enabled: false }
targets: { refresh: 1h }`, { access: 60 * 20, targets: 2 }],
    ['an audit every 7m on a 5m collector runs every second run', `
collectors:
  defaults: { audit: { every: 7m } }
  usage: { enabled: false }
  topn: { enabled: false }
  cc_attack: { enabled: false }
  waf_trend: { enabled: false }
  inventory: { enabled: false }
targets: { refresh: 1h }`, { access: 12 * 20 + 6 * 20, targets: 2 }],
    ['a cron schedule at minute 0 and 30, per-domain cc-attack, static targets, WAF events every 30s', `
collectors:
  defaults: { audit: { every: 0s } }
  access: { enabled: false }
  usage: { enabled: false }
  topn: { enabled: false }
  cc_attack: { per_domain: true, schedule: "0,30 * * * *" }
  waf_trend: { enabled: false }
  inventory: { enabled: false }
targets: { domains: { static: [a.example.com] }, packages: { static: [p1] } }
waf_events: { enabled: true }
otlp: { endpoint: "http://127.0.0.1:4318" }`, { 'cc-attack': 2 * (1 + 20), waf_events: 120 + 60 }],
    ['WAF events every 30s, the delivery audit every 90s (a check on every third poll: 40 an hour)', `
collectors: { access: { enabled: false }, usage: { enabled: false }, topn: { enabled: false }, cc_attack: { enabled: false }, waf_trend: { enabled: false }, inventory: { enabled: false } }
targets: { domains: { static: [a.example.com] }, packages: { static: [p1] } }
waf_events: { enabled: true, audit: { interval: 90s } }
otlp: { endpoint: "http://127.0.0.1:4318" }`, { waf_events: 120 + 40 }],
    ['WAF events with the delivery audit off', `
collectors: { access: { enabled: false }, usage: { enabled: false }, topn: { enabled: false }, cc_attack: { enabled: false }, waf_trend: { enabled: false }, inventory: { enabled: false } }
targets: { domains: { static: [a.example.com] }, packages: { static: [p1] } }
waf_events: { enabled: true, audit: { enabled: false } }
otlp: { endpoint: "http://127.0.0.1:4318" }`, { waf_events: 120 }],
  ])('%s', (_name, yaml, expected) => {
    const e = estimate(yaml);
    expect(perHour(e)).toEqual(expected);
    expect(e.perHour).toBe(Object.values(expected).reduce((a, b) => a + b, 0));
  });

  it('pages the domain listing as the discovery does', () => {
    expect(perHour(estimate('targets: { refresh: 1h, domains: { page_size: 100 } }', { domains: 250, packages: 1 })).targets).toBe(3 + 1);
  });

  it('warns only when the estimate exceeds upstream.rate_limit', () => {
    const e = estimate('');
    expect(e.perHour).toBe(856);
    expect(budgetProblem(e, undefined)).toBeUndefined();
    expect(budgetProblem(e, 0.25)).toBeUndefined();
    expect(budgetProblem(e, 0.2)).toMatch(/about 856 requests per hour, more than upstream.rate_limit allows \(0.2\/s = 720 per hour\)/);
    expect(renderRequestEstimate(e, 0.2)).toMatch(/total +856\/h; upstream.rate_limit: 0.2\/s = 720\/h\n {2}warning: /);
    expect(renderRequestEstimate(e, undefined)).not.toMatch(/warning/);
  });
});

describe('the start-up line', () => {
  it('logs the total and each source at info, and warns only over upstream.rate_limit', () => {
    const lines = (rateLimit: string): Array<Record<string, unknown>> => {
      const log: string[] = [];
      const config = loadConfig({ text: `simulator: { enabled: true }\n${rateLimit}`, env: {} });
      const e = requestEstimate(config, buildCollectors(resolveCollectorOptions(config)), { domains: 20, packages: 10 });
      logRequestEstimate(createLogger({ level: 'info', destination: lineSink(log) }), config, e);
      return log.map((l) => JSON.parse(l) as Record<string, unknown>);
    };
    const fits = lines('upstream: { rate_limit: 1 }');
    expect(fits).toHaveLength(1);
    expect(fits[0]).toMatchObject({
      level: 'info', requests_per_hour: 856, domains: 20, packages: 10, rate_limit_per_hour: 3600,
      per_source: { access: 320, usage: 160, topn: 24, 'cc-attack': 16, 'waf-trend': 96, inventory: 228, targets: 12 },
    });
    const over = lines('upstream: { rate_limit: 0.2 }');
    expect(over.map((l) => l['level'])).toEqual(['info', 'warn']);
    expect(over[1]?.['msg']).toMatch(/more than upstream.rate_limit allows/);
    expect(lines('')[0]).toMatchObject({ rate_limit_per_hour: 'none' });
  });
});

describe('against what the daemon sends', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  async function start(sim: Simulator, yaml: string): Promise<{ daemon: Daemon; config: Config; log: string[] }> {
    const { url } = await sim.listen('127.0.0.1', 0);
    cleanup.push(() => sim.close());
    const stateDir = await mkdtemp(join(tmpdir(), 'edge-requests-'));
    cleanup.push(() => rm(stateDir, { recursive: true, force: true }));
    const config = loadConfig({ text: `
upstream: { api_url: ${JSON.stringify(url)}, token: sim-token, retry: { attempts: 1 } }
log: { level: info }
server: { listen: "127.0.0.1:0" }
state_dir: ${JSON.stringify(stateDir)}
targets: { refresh: 1h }
${yaml}`, env: {} });
    const log: string[] = [];
    const daemon = new Daemon({ config, logger: createLogger({ level: 'info', destination: lineSink(log) }), version: '0.0.0-test', clock: { now: () => sim.clock.now() }, schedules: false });
    await daemon.start();
    cleanup.push(() => daemon.stop());
    return { daemon, config, log };
  }

  /** Requests the simulator received per collector during `run`, by the operations each collector calls. */
  async function sent(sim: Simulator, run: () => Promise<unknown>): Promise<Record<string, number>> {
    const before = sim.requestCounts();
    await run();
    const after = sim.requestCounts();
    const delta = (op: OperationName): number => (after[op] ?? 0) - (before[op] ?? 0);
    const byCollector: Record<string, number> = {};
    for (const { collector } of buildCollectors(resolveCollectorOptions(loadConfig({ text: 'simulator: { enabled: true }', env: {} })))) {
      byCollector[collector.name] = collector.operations.reduce((n, op) => n + delta(op), 0);
    }
    return byCollector;
  }

  it('a steady-state cycle sends what each collector declares per run, and an audit what it declares per audit', async () => {
    const sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, domains: 30 });
    const { daemon, config, log } = await start(sim, `
collectors:
  defaults: { jitter: 0s, delay: 3m, audit: { every: 2m } }
  access: { interval: 1m }
  usage: { interval: 1m }
  topn: { interval: 1m }
  cc_attack: { interval: 1m, per_domain: true }
  waf_trend: { interval: 1m }
  inventory: { interval: 1m, details: false }`);
    await daemon.runOnce();
    const packages = sim.world.l7Packages.length + sim.world.l4Packages.length;
    const e = requestEstimate(config, buildCollectors(resolveCollectorOptions(config)), { domains: 30, packages });
    const declared = Object.fromEntries(e.lines.map((l) => [l.source, l]));
    // The daemon logged the same estimate when it first listed the targets.
    expect(log.some((line) => line.includes(`"requests_per_hour":${Math.round(e.perHour)}`))).toBe(true);

    // One minute on: every collector's main requests, no audit yet (the first cycle only started its clock).
    sim.clock.advance(MIN);
    const plain = await sent(sim, () => daemon.runOnce());
    // Two minutes after the first: the audit is due, one more request per target with counter series.
    sim.clock.advance(MIN);
    const audited = await sent(sim, () => daemon.runOnce());
    for (const name of ['access', 'usage', 'topn', 'cc-attack', 'waf-trend', 'inventory']) {
      const line = declared[name];
      expect(plain[name], name).toBe(line?.perRun);
      expect(audited[name], `${name} with its audit`).toBe((line?.perRun ?? 0) + (line?.perAudit ?? 0));
    }
  }, 30_000);
});
