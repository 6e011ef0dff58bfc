// Scale-out, end to end: one simulator on a pinned clock, one unsharded daemon
// and three shard daemons, each with its own state directory and its own OTLP
// receiver, driven cycle by cycle at the same instants. Together the shards
// must expose exactly the unsharded daemon's data series with the same values,
// no series on two shards (but for edge_waf_rule_info, a rule's description,
// which every shard that read a deny event of the rule exposes the same), and
// forward exactly its WAF deny events, none twice.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Shard } from '../../src/collectors/targets/shard.js';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';

/** 2026-03-02 12:00:00 in the platform zone (UTC+8). */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const MIN = 60_000;
const TOKEN = 'sharding-token-7f2a';
const COUNT = 3;
/** Clock steps between cycles: first sight, then counters that move, then a gap to back-fill. */
const STEPS = [0, 7 * MIN, 11 * MIN];

interface Instance {
  readonly name: string;
  readonly daemon: Daemon;
  readonly receiver: OtlpReceiver;
}

const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });

/** Data series of a text exposition, `name{labels}` -> value; the exporter's own edge_exporter_* and process metrics are left out. */
function dataSeries(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)(?: \S+)?$/.exec(line);
    if (!match?.[1] || match[3] === undefined) throw new Error(`unparsable exposition line: ${line}`);
    if (!match[1].startsWith('edge_') || match[1].startsWith('edge_exporter_')) continue;
    series.set(`${match[1]}${match[2] ?? ''}`, Number(match[3]));
  }
  return series;
}

describe('three shards against one unsharded instance', () => {
  let sim: Simulator;
  let apiUrl = '';
  const instances: Instance[] = [];
  const dirs: string[] = [];

  async function instance(name: string, shard: Shard | undefined): Promise<Instance> {
    const receiver = await startOtlpReceiver();
    const dir = mkdtempSync(join(tmpdir(), `edge-sharding-${name}-`));
    dirs.push(dir);
    const text = [
      `upstream: { api_url: "${apiUrl}", token: "${TOKEN}" }`,
      `state_dir: ${dir}`,
      // Per-domain CC counters: the one collector split by domain on every shard while its gauges stay on shard 0.
      'collectors: { cc_attack: { per_domain: true } }',
      ...(shard ? [`shard: { index: ${shard.index}, count: ${shard.count} }`] : []),
      'waf_events: { enabled: true, interval: 30s, delay: 2m, overlap: 5m, max_window: 15m, start_from: 40m }',
      `otlp: { endpoint: "${receiver.url}", timeout: 5s }`,
    ].join('\n');
    const daemon = new Daemon({
      config: loadConfig({ text, env: {} }),
      logger: createLogger({ level: 'warn', destination: quiet }),
      version: 'sharding-test',
      clock: sim.clock,
      schedules: false,
    });
    return { name, daemon, receiver };
  }

  beforeAll(async () => {
    sim = createSimulator({ seed: 11, domains: 15, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
    ({ url: apiUrl } = await sim.listen('127.0.0.1', 0));
    instances.push(await instance('unsharded', undefined));
    for (let index = 0; index < COUNT; index++) instances.push(await instance(`shard-${index}`, { index, count: COUNT }));
    for (const step of STEPS) {
      sim.clock.advance(step);
      // Every instance at the same instant: the clock stands still while they run.
      await Promise.all(
        instances.map(async ({ name, daemon }) => {
          const reports = await daemon.runOnce();
          const failed = reports.filter((r) => !r.ok).map((r) => `${r.collector}: ${r.error?.message ?? ''}`);
          if (failed.length > 0) throw new Error(`${name}: ${failed.join('; ')}`);
          const forwarded = await daemon.forwardOnce();
          if (!forwarded?.ok) throw new Error(`${name}: WAF events: ${forwarded?.error?.message ?? 'not enabled'}`);
        }),
      );
    }
  }, 40_000);

  afterAll(async () => {
    for (const { daemon, receiver } of instances) {
      await daemon.stop();
      await receiver.close();
    }
    await sim?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const whole = (): Instance => instances[0] ?? expect.fail('no unsharded instance');
  const shards = (): Instance[] => instances.slice(1);

  it('export together exactly the unsharded series, with the same values, none on two shards', async () => {
    const expected = dataSeries(await whole().daemon.renderText());
    const parts = await Promise.all(shards().map(async ({ daemon }) => dataSeries(await daemon.renderText())));

    // Not a vacuous comparison: every kind of collector produced data, and counters moved.
    const families = new Set([...expected.keys()].map((k) => k.replace(/\{.*$/, '')));
    for (const family of ['edge_domain_requests_total', 'edge_package_traffic_bytes_total', 'edge_topn_requests', 'edge_cc_attack_requests_total',
      'edge_cc_attacked_domains', 'edge_waf_events_total', 'edge_domain_info', 'edge_waf_denied_requests_total']) {
      expect([family, families.has(family)]).toEqual([family, true]);
    }
    expect([...expected].filter(([k, v]) => k.startsWith('edge_domain_requests_total') && v > 0).length).toBeGreaterThan(0);
    expect(parts.every((p) => [...p.keys()].some((k) => k.startsWith('edge_domain_requests_total')))).toBe(true);

    const described = (k: string): boolean => k.startsWith('edge_waf_rule_info{');
    const onTwo = parts.flatMap((p, i) => [...p.keys()].filter((k) => !described(k) && parts.some((q, j) => j > i && q.has(k))));
    expect(onTwo).toEqual([]);
    // A description, not a count: the same series (value 1) on each shard that saw the rule; the union above holds every one.
    expect(parts.flatMap((p) => [...p].filter(([k]) => described(k)).map(([, v]) => v)).every((v) => v === 1)).toBe(true);
    expect([...expected.keys()].filter(described).length).toBeGreaterThan(3);
    const union = new Map(parts.flatMap((p) => [...p]));
    expect(Object.fromEntries([...union].sort())).toEqual(Object.fromEntries([...expected].sort()));
  });

  it('forward together exactly the unsharded WAF deny events, none twice', () => {
    const expected = whole().receiver.uids();
    const parts = shards().map(({ receiver }) => receiver.uids());
    expect(expected.length).toBeGreaterThan(20);
    expect(new Set(expected).size).toBe(expected.length);
    expect(parts.every((p) => p.length > 0)).toBe(true);
    const union = parts.flat();
    expect(new Set(union).size).toBe(union.length); // no event on two shards, nor twice on one
    expect([...union].sort()).toEqual([...expected].sort());
  });
});
