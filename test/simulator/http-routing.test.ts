import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, OPERATION_NAMES } from '../../src/api/operations.js';
import { startSim, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startSim({
    tokens: [
      { token: 'sim-token', permissions: '*' },
      { token: 'reader', permissions: [] },
      { token: 'access-reader', permissions: ['statistics:access:query'] },
      { token: 'other', permissions: '*' },
    ],
  });
});
afterAll(() => h.close());

const withAliases = Object.values(OPERATIONS).filter((op) => op.documentedPath !== undefined);

describe('routing', () => {
  it.each(withAliases.map((op) => [op.name, op.documentedPath ?? '']))('%s also answers on its documented path %s', async (name, documented) => {
    const spec = OPERATIONS[name];
    const path = documented.replace('{oid}', h.sim.world.l4Packages[0]?.oid ?? '');
    const res = await h.raw(spec.method, path, spec.method === 'POST' ? { body: '{}' } : {});
    expect(res.status).not.toBe(404);
    expect(res.status).not.toBe(405);
    expect(h.sim.requestCounts()[name]).toBeGreaterThan(0);
  });

  it('answers 404 with an envelope for an unknown path', async () => {
    const res = await h.raw('POST', '/prod-api/nope', { body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 404 });
  });

  it('with the gatewayNotFound reading, answers an unknown path with Spring Boot\'s error body, no envelope; an unknown package keeps its envelope', async () => {
    h.sim.readings.merge({ gatewayNotFound: true });
    try {
      const res = await h.raw('POST', '/prod-api/nope', { body: '{}' });
      expect(res.status).toBe(404);
      const body = await res.json() as Record<string, unknown>;
      expect(body).toEqual({ timestamp: expect.any(String), status: 404, error: 'Not Found', path: '/prod-api/nope' });
      const missing = await h.raw('GET', OPERATIONS.getPackageDetails.path.replace('{oid}', 'no-such-oid'));
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ code: 404, msg: '套餐不存在' });
    } finally {
      h.sim.readings.merge({ gatewayNotFound: null });
    }
  });

  it.each(OPERATION_NAMES.map((n) => [n, OPERATIONS[n].method === 'GET' ? 'POST' : 'GET']))('%s refuses method %s with 405', async (name, method) => {
    const res = await h.raw(method, OPERATIONS[name].path.replace('{oid}', 'x'));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(OPERATIONS[name].method);
    expect(await res.json()).toMatchObject({ code: 405 });
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await h.raw('POST', OPERATIONS.listDomains.path, { body: '{"filters": [' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 400 });
  });

  it('counts requests per operation, whatever their outcome', async () => {
    const before = h.sim.requestCounts().getPackages ?? 0;
    await h.call('getPackages');
    await h.call('getPackages', {}, { auth: null });
    expect(h.sim.requestCounts().getPackages).toBe(before + 2);
  });
});

describe('authentication and permissions', () => {
  it.each([
    ['no header', null, 401],
    ['an unknown token', 'Bearer wrong', 401],
    ['an empty Bearer', 'Bearer ', 401],
    ['Bearer sim-token', 'Bearer sim-token', 200],
    ['the raw token', 'sim-token', 200],
  ])('getPackages with %s answers %d', async (_, auth, status) => {
    const res = await h.call('getPackages', {}, { auth });
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(status);
  });

  it('requires Bearer on the WAF log query', async () => {
    const body = { action: [{ metricName: 'logs' }], params: { beginTime: '2026-03-02 11:00:00', endTime: '2026-03-02 12:00:00' } };
    expect((await h.call('describeLogV2', body, { auth: 'sim-token' })).status).toBe(401);
    expect((await h.call('describeLogV2', body, { auth: 'Bearer sim-token' })).status).toBe(200);
  });

  it.each([
    ['describeL7DataV2', 'reader', 403],
    ['describeL7DataV2', 'access-reader', 200],
    ['pushUrlsCache', 'access-reader', 403],
    ['pushUrlsCache', 'sim-token', 200],
    ['describeL7Data', 'reader', 200],
  ] as const)('%s with token %s answers %d', async (op, token, status) => {
    const bodies = {
      describeL7DataV2: { action: [{ metricName: 'requestTrend' }], domains: [], interval: '1h', params: { beginTime: '2026-03-02 00:00:00', endTime: '2026-03-02 12:00:00' } },
      describeL7Data: {
        action: [{ metricName: 'requestTrend' }], domains: [], interval: '1h', mostDimension: 'requestCount', pageNum: 1, pageSize: 10, terminal: 'cdn',
        params: { beginTime: '2026-03-02 00:00:00', endTime: '2026-03-02 12:00:00' },
      },
      pushUrlsCache: { urls: ['https://www.example.com/a.js'] },
    };
    const res = await h.call(op, bodies[op], { auth: `Bearer ${token}` });
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(status);
  });
});

describe('rate limit', () => {
  const list = { pageNum: 1, pageSize: 1 };

  it('allows 10 order requests per token in any second, then 429 until the window slides', async () => {
    h.sim.clock.set(Date.UTC(2026, 2, 2, 5));
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await h.call('describeHostAcceleratePackOrder', list)).status);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    const limited = await h.call('describeHostAcceleratePackOrder', list);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 429 });
    // Another user has its own window; operations without the limit are unaffected.
    expect((await h.call('describeHostAcceleratePackOrder', list, { auth: 'Bearer other' })).status).toBe(200);
    expect((await h.call('getPackages')).status).toBe(200);
    h.sim.clock.advance(999);
    expect((await h.call('describeHostAcceleratePackOrder', list)).status).toBe(429);
    h.sim.clock.advance(1);
    expect((await h.call('describeHostAcceleratePackOrder', list)).status).toBe(200);
  });

  it('counts the order operations together', async () => {
    h.sim.clock.set(Date.UTC(2026, 2, 2, 6));
    for (let i = 0; i < 10; i++) await h.call('describeHostAcceleratePackOrder', list);
    expect((await h.call('createHostAcceleratePackOrder', { packOrder: [] })).status).toBe(429);
  });
});
