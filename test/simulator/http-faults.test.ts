import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Faults, type FaultRule } from '../../src/simulator/faults.js';
import { createSimulator } from '../../src/simulator/index.js';
import { startSim, T0, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startSim();
});
beforeEach(() => h.sim.reset());
afterAll(() => h.close());

const ping = () => h.raw('GET', '/prod-api/cdn/domain/getPackages');

describe('faults', () => {
  it.each([
    [{ status5xx: 503 }, 503],
    [{ unauthorized: true }, 401],
    [{ forbidden: true }, 403],
    [{ errorRate: 1 }, 'a 5xx'],
  ] as Array<[FaultRule, number | string]>)('%j answers %s', async (rule, expected) => {
    h.sim.faults.set([rule]);
    const res = await ping();
    if (typeof expected === 'number') expect(res.status).toBe(expected);
    else expect([500, 502, 503]).toContain(res.status);
    expect(((await res.json()) as { code: number }).code).toBe(res.status);
  });

  it('errorRate 0 never fires', async () => {
    h.sim.faults.set([{ errorRate: 0 }]);
    for (let i = 0; i < 5; i++) expect((await ping()).status).toBe(200);
  });

  it('count limits a rule to the next N matching requests', async () => {
    h.sim.faults.set([{ unauthorized: true, count: 2, operations: ['getPackages'] }]);
    expect((await h.call('listDomains', { filters: [], searchHeader: { isActive: [] } })).status).toBe(200);
    expect([(await ping()).status, (await ping()).status, (await ping()).status]).toEqual([401, 401, 200]);
    expect(h.sim.faults.list()).toEqual([]);
  });

  it('dataNull replaces data, or rows where there is no data', async () => {
    h.sim.faults.set([{ dataNull: true }]);
    expect(await (await ping()).json()).toMatchObject({ code: 200, data: null });
    const list = await h.call('listDomains', { filters: [], searchHeader: { isActive: [] } });
    expect(list.body).toMatchObject({ code: 200, rows: null, total: 20 });
  });

  it('malformedJson sends a body that does not parse', async () => {
    h.sim.faults.set([{ malformedJson: true }]);
    const res = await ping();
    expect(res.status).toBe(200);
    await expect(res.json()).rejects.toThrow();
  });

  it('truncatedBody drops the connection half way', async () => {
    h.sim.faults.set([{ truncatedBody: true }]);
    const res = await ping();
    await expect(res.text()).rejects.toThrow();
  });

  it('latencyMs delays the answer', async () => {
    h.sim.faults.set([{ latencyMs: 60 }]);
    const started = performance.now();
    expect((await ping()).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });

  it('hang never answers, and close() still ends the request', async () => {
    const sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, faults: [{ hang: true }] });
    const { url } = await sim.listen();
    const pending = fetch(`${url}/prod-api/cdn/domain/getPackages`, { headers: { authorization: 'sim-token' } });
    await vi.waitFor(() => expect(sim.requestCounts().getPackages).toBe(1));
    await sim.close();
    await expect(pending).rejects.toThrow();
    await sim.close();
  });

  it('a client that gives up on a hanging request does not block anything', async () => {
    h.sim.faults.set([{ hang: true, count: 1 }]);
    const controller = new AbortController();
    const pending = fetch(`${h.url}/prod-api/cdn/domain/getPackages`, { headers: { authorization: 'sim-token' }, signal: controller.signal });
    await vi.waitFor(() => expect(h.sim.requestCounts().getPackages).toBe(1));
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect((await ping()).status).toBe(200);
  });

  it.each([
    [{ latencyMs: -1 }],
    [{ errorRate: 2 }],
    [{ status5xx: 404 }],
    [{ operations: ['nope'] }],
    [{ count: 0 }],
    [{ hange: true }],
  ])('refuses the rule %j', (rule) => {
    expect(() => new Faults(1).set([rule as FaultRule])).toThrow();
  });

  it('draws errorRate faults from the seed: the same seed repeats the same pattern', () => {
    const run = () => {
      const f = new Faults(9, [{ errorRate: 0.5 }]);
      return Array.from({ length: 20 }, () => f.take('getPackages').status ?? 200);
    };
    expect(run()).toEqual(run());
    expect(new Set(run()).size).toBeGreaterThan(1);
  });
});

describe('admin endpoints', () => {
  it('sets faults, shows them in the state, and clears them', async () => {
    const set = await h.admin('POST', 'faults', { rules: [{ status5xx: 502, operations: ['getPackages'], count: 1 }] });
    expect(set.status).toBe(200);
    expect((await h.admin('GET', 'state')).body.data).toMatchObject({ faults: [{ status5xx: 502, count: 1 }] });
    expect((await ping()).status).toBe(502);
    await h.admin('POST', 'faults', [{ forbidden: true }]);
    expect((await ping()).status).toBe(403);
    await h.admin('DELETE', 'faults');
    expect((await ping()).status).toBe(200);
  });

  it('moves the clock', async () => {
    const res = await h.admin('POST', 'clock', { set: '2026-03-02 13:00:00', advance: 1000 });
    expect(res.body.data).toMatchObject({ now: T0 + 3_600_000 + 1000, mode: 'fixed' });
    await h.admin('POST', 'clock', { set: T0 });
    expect(h.sim.clock.now()).toBe(T0);
  });

  it('reports request counts and resets them with the world', async () => {
    await ping();
    await ping();
    expect((await h.admin('GET', 'state')).body.data).toMatchObject({ requestCounts: { getPackages: 2 }, seed: 1, domains: 20 });
    const p = h.sim.world.l4Packages.find((x) => x.activate === 1);
    p?.rules.splice(0);
    await h.admin('POST', 'reset');
    expect(h.sim.requestCounts()).toEqual({});
    expect(h.sim.world.l4Packages.find((x) => x.oid === p?.oid)?.rules.length).toBeGreaterThan(0);
  });

  it.each([
    ['POST', 'faults', '{"latencyMs": "slow"}'],
    ['POST', 'clock', '{"speed": -2}'],
    ['POST', 'clock', '{"set": "yesterday"}'],
    ['POST', 'faults', '{oops'],
  ])('%s /__admin/%s refuses %s with 400', async (method, path, body) => {
    const res = await h.raw(method, `/__admin/${path}`, { auth: null, body });
    expect(res.status).toBe(400);
  });

  it('answers 404 for an unknown admin endpoint', async () => {
    expect((await h.admin('GET', 'nope')).status).toBe(404);
  });
});
