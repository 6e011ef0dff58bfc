// Where each collector runs when the account is sharded: what carries a domain
// or package label on every shard, the account-wide figures on shard 0 alone,
// asked about every domain.
import { describe, expect, it } from 'vitest';
import { platformClock, type ReadClient } from '../../src/api/index.js';
import { CC_ATTACKED_DOMAINS } from '../../src/collectors/cc-attack/metrics.js';
import { buildCollectors } from '../../src/daemon/wiring/collectors.js';
import type { Shard } from '../../src/collectors/targets/shard.js';
import type { CollectContext } from '../../src/collectors/collector.js';
import { configSchema, resolveCollectorOptions } from '../../src/config/index.js';
import { COLLECTOR_KEYS } from '../../src/config/collector-options.js';
import { EdgeClient } from '../../src/api/index.js';

const options = (perDomain: boolean) =>
  resolveCollectorOptions(configSchema.parse({ simulator: { enabled: true }, collectors: { cc_attack: { per_domain: perDomain } } }));
const names = (perDomain: boolean, shard?: Shard) => buildCollectors(options(perDomain), shard).map((p) => p.collector.name);
const EVERY = ['access', 'usage', 'topn', 'cc-attack', 'waf-trend', 'inventory'];

describe('buildCollectors with a shard', () => {
  it.each([
    ['account-wide cc-attack, unsharded', false, undefined, EVERY],
    ['account-wide cc-attack, shard 0 of 3', false, { index: 0, count: 3 }, EVERY],
    ['account-wide cc-attack, shard 1 of 3', false, { index: 1, count: 3 }, ['access', 'usage']],
    ['per-domain cc-attack, shard 2 of 3', true, { index: 2, count: 3 }, ['access', 'usage', 'cc-attack']],
    ['per-domain cc-attack, shard 0 of 3', true, { index: 0, count: 3 }, EVERY],
  ])('%s', (_name, perDomain, shard, expected) => {
    expect(names(perDomain, shard)).toEqual(expected);
  });

  it("names each collector after its config key with '_' written '-' (its label and state file name)", () => {
    expect([...names(false)].sort()).toEqual(COLLECTOR_KEYS.map((k) => k.replaceAll('_', '-')).sort());
  });

  it('keeps the account gauges of a per-domain cc-attack on shard 0', () => {
    const families = (index: number) =>
      buildCollectors(options(true), { index, count: 2 })
        .find((p) => p.collector.name === 'cc-attack')
        ?.collector.families.map((f) => f.name);
    expect(families(0)).toContain(CC_ATTACKED_DOMAINS.name);
    expect(families(1)).not.toContain(CC_ATTACKED_DOMAINS.name);
  });

  it('refuses an index outside the count', () => {
    expect(() => buildCollectors(options(false), { index: 3, count: 3 })).toThrow(/invalid shard/);
  });

  it('asks the account-wide collectors about every domain, not only shard 0\'s', async () => {
    const topn = buildCollectors(options(false), { index: 0, count: 3 }).find((p) => p.collector.name === 'topn')?.collector;
    const asked: string[][] = [];
    // Every request is recorded, then refused: the run fails, which is all this test needs.
    const edge = new EdgeClient({ apiUrl: 'http://127.0.0.1:9', token: 't', retry: { attempts: 1 }, timeoutMs: 100 });
    const client: ReadClient = {
      ...edge,
      describeL7MostData: (request) => {
        asked.push(request.domains ?? []);
        return Promise.reject(new Error('not reachable'));
      },
    };
    const ctx: CollectContext = {
      client,
      now: Date.UTC(2026, 2, 2, 4),
      signal: new AbortController().signal,
      tz: platformClock('+08:00'),
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, child: () => ctx.log },
      targets: { domains: ['mine.example.com'], packages: [], all: { domains: ['a.example.com', 'mine.example.com'], packages: [] } },
      watermarks: {},
      enabled: () => true,
    };
    await expect(topn?.collect(ctx)).rejects.toThrow();
    await edge.close();
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((domains) => domains.join() === 'a.example.com,mine.example.com')).toBe(true);
  });
});
