// Discovery against the simulator: expected lists come from the simulator's
// world, never from the code under test.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { shardOf, type Shard } from '../../../src/collectors/targets/shard.js';
import { TargetDiscovery, filterNames, listAllDomains, type DiscoveryClient } from '../../../src/collectors/targets/discovery.js';
import type { CollectorLogger } from '../../../src/collectors/collector.js';
import { EdgeClient } from '../../../src/api/index.js';
import { targetsSchema, type TargetsConfig } from '../../../src/config/sections/targets.js';
import { createSimulator, type Simulator } from '../../../src/simulator/index.js';

const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const MIN = 60_000;
const DOMAINS = 23;

let sim: Simulator;
let client: EdgeClient;
beforeAll(async () => {
  sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, domains: DOMAINS });
  const { url } = await sim.listen('127.0.0.1', 0);
  client = new EdgeClient({ apiUrl: url, token: 'sim-token', retry: { attempts: 1 }, timeoutMs: 2000 });
});
beforeEach(() => sim.reset());
afterAll(async () => {
  await client.close();
  await sim.close();
});

interface LogEntry {
  level: string;
  obj: object;
  msg: string | undefined;
}
function memoryLog(entries: LogEntry[] = []): CollectorLogger & { entries: LogEntry[] } {
  const at = (level: string) => (obj: object, msg?: string) => void entries.push({ level, obj, msg });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), child: () => memoryLog(entries) };
}

const config = (input: unknown): TargetsConfig => targetsSchema.parse(input);
const discovery = (input: unknown, log = memoryLog()) => new TargetDiscovery({ client, config: config(input), log, retryMs: MIN });
const sortedNames = (names: readonly string[]) => [...new Set(names)].sort();

describe('TargetDiscovery against the simulator', () => {
  it.each([
    ['every state, default page size', {}, ['0', '1', '2'], [], []],
    ['pages of 5', { domains: { page_size: 5 } }, ['0', '1', '2'], [], []],
    ['page size 1', { domains: { page_size: 1 } }, ['0', '1', '2'], [], []],
    ['active only', { domains: { states: ['1'], page_size: 4 } }, ['1'], [], []],
    ['include and exclude', { domains: { page_size: 7, include: ['\\.com$', '\\.net$'], exclude: ['^a'] } }, ['0', '1', '2'], [/\.com$/u, /\.net$/u], [/^a/u]],
  ])('finds the domains (%s), paged to the end', async (_name, input, states, include, exclude) => {
    const d = discovery(input);
    const found = await d.refreshIfDue(T0);
    const expected = sortedNames(
      sim.world.domains
        .filter((d) => states.includes(d.isActive))
        .map((d) => d.domainName)
        .filter((n) => (include.length === 0 || include.some((re) => re.test(n))) && !exclude.some((re) => re.test(n))),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(found.find((r) => r.kind === 'domains')).toMatchObject({ ok: true, count: expected.length });
    expect(d.current().domains).toEqual(expected);
  });

  it('returns exactly the world domains, with one request per page', async () => {
    const d = discovery({ domains: { page_size: 5 } });
    await d.refreshIfDue(T0);
    expect(d.current().domains).toEqual(sortedNames(sim.world.domains.map((x) => x.domainName)));
    expect(sim.requestCounts().listDomains).toBe(Math.ceil(DOMAINS / 5));
  });

  it('returns the package ids getPackages lists', async () => {
    const d = discovery({});
    await d.refreshIfDue(T0);
    const expected = sortedNames([...sim.world.l7Packages.map((p) => p.alias), ...sim.world.l4Packages.map((p) => p.alias)]);
    expect(d.current().packages).toEqual(expected);
  });

  it('uses static lists without asking the upstream, filters still applied', async () => {
    const d = discovery({
      domains: { static: ['b.example.com', 'a.example.com', 'skip.example.com', 'a.example.com'], exclude: ['^skip'] },
      packages: { static: ['p1', 'p2'], include: ['1$'] },
    });
    await d.refreshIfDue(T0);
    expect(d.current()).toEqual({ domains: ['a.example.com', 'b.example.com'], packages: ['p1'] });
    expect(sim.requestCounts()).toEqual({});
  });

  it('refreshes only when due, and keeps the last good list when a refresh fails', async () => {
    const log = memoryLog();
    const d = new TargetDiscovery({ client, config: config({ refresh: '10m' }), log, retryMs: MIN });
    await d.refreshIfDue(T0);
    const good = d.current();
    expect(good.domains).toHaveLength(DOMAINS);

    await d.refreshIfDue(T0 + 9 * MIN); // not due: no request
    expect(sim.requestCounts().listDomains).toBe(1);

    sim.faults.add({ status5xx: 503, operations: ['listDomains', 'getPackages'] });
    const failed = await d.refreshIfDue(T0 + 10 * MIN);
    expect(failed.map((r) => [r.kind, r.ok])).toEqual([['domains', false], ['packages', false]]);
    expect(d.current()).toEqual(good);
    const warning = log.entries.find((e) => e.level === 'warn');
    expect(warning?.obj).toMatchObject({ targets: 'domains', code: 'EDGE_HTTP', operation: 'listDomains', status: 503, kept: DOMAINS });

    // A failure is retried after retryMs, not after a whole refresh period.
    sim.faults.clear();
    expect(await d.refreshIfDue(T0 + 10 * MIN + MIN - 1)).toEqual([]);
    expect((await d.refreshIfDue(T0 + 11 * MIN)).every((r) => r.ok)).toBe(true);
    expect(d.current()).toEqual(good);
  });

  it('starts empty when the upstream is down at start-up and fills in on the next attempt', async () => {
    sim.faults.add({ unauthorized: true, count: 2 });
    const log = memoryLog();
    const d = discovery({}, log);
    expect(d.unavailable('domains')).toBeInstanceOf(Error);
    await d.refreshIfDue(T0);
    expect(d.current()).toEqual({ domains: [], packages: [] });
    // Never listed: an empty list here is "unknown", not "no domains".
    expect(d.unavailable('domains')).toMatchObject({ code: 'EDGE_AUTH' });
    expect(log.entries.some((e) => e.msg?.includes('token may be invalid / lacks permission'))).toBe(true);
    await d.refreshIfDue(T0 + MIN);
    expect(d.current().domains).toHaveLength(DOMAINS);
    expect(d.unavailable('domains')).toBeUndefined();
    expect(d.unavailable('packages')).toBeUndefined();
  });

  it('shares one refresh between concurrent callers', async () => {
    const d = discovery({});
    await Promise.all([d.refreshIfDue(T0), d.refreshIfDue(T0), d.refreshIfDue(T0)]);
    expect(sim.requestCounts()).toEqual({ listDomains: 1, getPackages: 1 });
  });
});

describe('TargetDiscovery with a shard', () => {
  const COUNT = 3;
  const sharded = (input: unknown, shard: Shard) => new TargetDiscovery({ client, config: config(input), log: memoryLog(), retryMs: MIN, shard });

  it('gives each shard the names the hash assigns it, after filtering, and every name to exactly one shard', async () => {
    const input = { domains: { exclude: ['^a'] } };
    const whole = discovery(input);
    await whole.refreshIfDue(T0);
    const all = whole.current();
    expect(all.all).toBeUndefined(); // unsharded: the lists are everything
    const parts = [];
    for (let index = 0; index < COUNT; index++) {
      const d = sharded(input, { index, count: COUNT });
      await d.refreshIfDue(T0);
      const part = d.current();
      expect(part.domains).toEqual(all.domains.filter((n) => shardOf(n, COUNT) === index));
      expect(part.packages).toEqual(all.packages.filter((n) => shardOf(n, COUNT) === index));
      // The whole filtered lists travel along, for what shard 0 computes account-wide.
      expect(part.all).toEqual({ domains: all.domains, packages: all.packages });
      parts.push(part);
    }
    expect(parts.flatMap((p) => p.domains).sort()).toEqual(all.domains);
    expect(parts.flatMap((p) => p.packages).sort()).toEqual(all.packages);
    expect(parts.every((p) => p.domains.length > 0)).toBe(true);
  });

  it('splits static lists the same way, without asking the upstream', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `s${i}.example.com`);
    const parts = await Promise.all(
      [0, 1, 2].map(async (index) => {
        const d = sharded({ domains: { static: names }, packages: { static: ['p1', 'p2', 'p3'] } }, { index, count: COUNT });
        await d.refreshIfDue(T0);
        return d.current();
      }),
    );
    expect(parts.flatMap((p) => p.domains).sort()).toEqual([...names].sort());
    expect(parts.flatMap((p) => p.packages).sort()).toEqual(['p1', 'p2', 'p3']);
    expect(sim.requestCounts()).toEqual({});
  });

  it('reports the share in its refresh results', async () => {
    const d = sharded({}, { index: 1, count: COUNT });
    const results = await d.refreshIfDue(T0);
    const domains = results.find((r) => r.kind === 'domains');
    expect(domains).toMatchObject({ ok: true, count: DOMAINS, owned: d.current().domains.length });
  });
});

describe('listAllDomains without a total', () => {
  const fake = (all: readonly string[], ignorePaging: boolean) => {
    const pages: number[] = [];
    const listDomains: DiscoveryClient['listDomains'] = (req) => {
      const pageNum = req.pageNum ?? 1;
      const size = req.pageSize ?? 10;
      pages.push(pageNum);
      const from = ignorePaging ? 0 : (pageNum - 1) * size;
      const rows = all
        .slice(from, from + size)
        .map((domainName, i) => ({ id: from + i, sslsupport: '0', domainName, ip: '10.0.0.1', port: '80', doid: `d${from + i}`, isActive: '1' }));
      return Promise.resolve({ code: 200, msg: 'ok', rows });
    };
    return { client: { listDomains }, pages };
  };
  const five = ['a', 'b', 'c', 'd', 'e'];

  it.each([
    ['a short last page', five, false, 2, [1, 2, 3]],
    ['an empty last page', five.slice(0, 4), false, 2, [1, 2, 3]],
    ['a server that ignores pageNum', five, true, 2, [1, 2]],
  ])('walks pages until %s', async (_name, all, ignorePaging, pageSize, pagesAsked) => {
    const { client: c, pages } = fake(all, ignorePaging);
    const names = await listAllDomains(c, { states: ['1'], pageSize }, undefined);
    expect(sortedNames(names)).toEqual(ignorePaging ? all.slice(0, pageSize) : all);
    expect(pages).toEqual(pagesAsked);
  });
});

describe('filterNames', () => {
  it.each([
    [['b', 'a', 'b'], [], [], ['a', 'b']],
    [['shop.a.com', 'api.a.com', 'shop.b.net'], [/^shop\./u], [], ['shop.a.com', 'shop.b.net']],
    [['shop.a.com', 'api.a.com', 'shop.b.net'], [/^shop\./u], [/\.net$/u], ['shop.a.com']],
    [['x', 'y'], [], [/./u], []],
  ])('%j include %j exclude %j -> %j', (names, include, exclude, expected) => {
    expect(filterNames(names, include, exclude)).toEqual(expected);
  });
});
