import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OperationName } from '../../src/api/operations.js';
import { Faults, MAX_HUGE_ARRAY, type FaultRule } from '../../src/simulator/faults.js';
import { createSimulator } from '../../src/simulator/index.js';
import { FUTURE_POINT_VALUE } from '../../src/simulator/mangle.js';
import { HOUR, MIN, params, startSim, T0, type Envelope, type Harness, type Point } from './helpers.js';

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

  it('retryAfter alone answers 429 with Retry-After; with a 5xx it rides on that status', async () => {
    h.sim.faults.set([{ retryAfter: 7, count: 1 }, { status5xx: 503, retryAfter: 2, count: 1, operations: ['listDomains'] }]);
    const throttled = await ping();
    expect([throttled.status, throttled.headers.get('retry-after')]).toEqual([429, '7']);
    expect(((await throttled.json()) as { code: number }).code).toBe(429);
    const unavailable = await h.call('listDomains', { filters: [], searchHeader: { isActive: [] } });
    expect(unavailable.status).toBe(503);
    h.sim.faults.set([{ status5xx: 503, retryAfter: 2, count: 1 }]);
    expect((await ping()).headers.get('retry-after')).toBe('2');
    const plain = await ping();
    expect([plain.status, plain.headers.get('retry-after')]).toEqual([200, null]);
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
    [{ retryAfter: 1.5 }],
    [{ retryAfter: -1 }],
    [{ operations: ['nope'] }],
    [{ count: 0 }],
    [{ hange: true }],
    [{ wrongTypes: 1 }],
    [{ duplicatePoints: 'yes' }],
    [{ shufflePoints: null }],
    [{ hugeArray: 0 }],
    [{ hugeArray: MAX_HUGE_ARRAY + 1 }],
    [{ futurePoints: 2.5 }],
    [{ futurePoints: -1 }],
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

  it('accepts and lists the body-shape faults', async () => {
    const rule = { wrongTypes: true, hugeArray: 100, duplicatePoints: true, shufflePoints: true, futurePoints: 2, operations: ['describeL7DataV2'] };
    const set = await h.admin('POST', 'faults', rule);
    expect(set.status).toBe(200);
    expect((await h.admin('GET', 'faults')).body.data).toEqual([rule]);
    // Not an operation the rule names: the answer is untouched.
    expect(await (await ping()).json()).toMatchObject({ code: 200, data: expect.any(Array) as unknown });
  });

  it.each([
    ['POST', 'faults', '{"hugeArray": 0}'],
    ['POST', 'faults', '{"futurePoints": "3"}'],
    ['POST', 'faults', '{"shufflePoints": "yes"}'],
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

// The body-shape faults rewrite the real answer: each test asks the same
// question with and without the fault (the clock is pinned, so the clean
// answer is the truth) and checks exactly what changed.
describe('body-shape faults', () => {
  const range = params(T0 - HOUR, T0 + MIN);
  /** One request of every operation that answers time-series points, with different bucket sizes. */
  const POINT_REQUESTS: Array<[OperationName, unknown]> = [
    ['describeL7DataV2', { domains: [], interval: '1m', params: params(T0 - 20 * MIN, T0 + MIN), action: [{ metricName: 'trafficTrend' }, { metricName: 'requestRank' }, { metricName: 'statusCodeTrend' }] }],
    ['describeL7UsageData', { interval: '5m', oids: [], params: range, action: [{ metricName: 'trafficTrend' }, { metricName: 'bandwidthTrend' }] }],
    ['describeL7Data', {
      domains: [], interval: '1h', params: params(T0 - 6 * HOUR, T0 + MIN), terminal: 'cdn', mostDimension: 'requestCount', pageNum: 1, pageSize: 10,
      action: [{ metricName: 'trafficTrend' }, { metricName: 'totalTraffic' }],
    }],
    ['describeL7CCAttack', { interval: '1m', params: params(T0 - 10 * MIN, T0 + MIN), action: [{ metricName: 'ccPolicyTrend' }, { metricName: 'attack_detail' }] }],
    ['describeLogV2', { action: [{ metricName: 'logTread' }], otherFilter: [], params: range }],
  ];

  /** The answer to `body`, clean and then under `rule` (limited to that operation). */
  async function both(op: OperationName, body: unknown, rule: FaultRule): Promise<{ clean: Envelope; faulty: Envelope }> {
    const clean = await h.call(op, body);
    expect(clean.status).toBe(200);
    h.sim.faults.set([{ ...rule, operations: [op] }]);
    const faulty = await h.call(op, body);
    expect(faulty.status).toBe(200);
    return { clean: clean.body, faulty: faulty.body };
  }

  const isPoint = (v: unknown): v is Point => Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && (typeof v[1] === 'number' || v[1] === null);
  const isSeries = (v: unknown): v is Point[] => Array.isArray(v) && v.length > 0 && v.every(isPoint);
  /** `v` with every series replaced by f(series), for building the expected answer from the clean one. */
  const mapSeries = (v: unknown, f: (s: Point[]) => unknown): unknown => {
    if (isSeries(v)) return f(v);
    if (Array.isArray(v)) return v.map((x) => mapSeries(x, f));
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapSeries(x, f)]));
    return v;
  };
  const seriesIn = (v: unknown): Point[][] => {
    const out: Point[][] = [];
    mapSeries(v, (s) => out.push(s));
    return out;
  };

  it.each(POINT_REQUESTS)('futurePoints adds K large points after now to every series of %s, on its grid', async (op, body) => {
    const K = 3;
    const { clean, faulty } = await both(op, body, { futurePoints: K });
    const cleanSeries = seriesIn(clean);
    const faultySeries = seriesIn(faulty);
    expect(cleanSeries.length).toBeGreaterThan(0);
    expect(faultySeries).toHaveLength(cleanSeries.length);
    // Without the last K points of every series, the answer is the clean one.
    expect(mapSeries(faulty, (s) => s.slice(0, -K))).toEqual(clean);
    for (const [i, s] of faultySeries.entries()) {
      const real = cleanSeries[i] ?? [];
      const last = real.at(-1)?.[0] ?? NaN;
      const step = real.length > 1 ? last - (real.at(-2)?.[0] ?? NaN) : MIN;
      const extra = s.slice(-K);
      for (const [k, [t, v]] of extra.entries()) {
        expect(t).toBeGreaterThan(h.sim.clock.now());
        expect((t - last) % step).toBe(0);
        if (k > 0) expect(t - (extra[k - 1]?.[0] ?? NaN)).toBe(step);
        expect(v).toBeGreaterThanOrEqual(FUTURE_POINT_VALUE);
      }
    }
  });

  it('negativeSeries serves every point of the named series as -(value + 1), the rest as it was', async () => {
    const [op, body] = POINT_REQUESTS[0] ?? ['describeL7DataV2', {}];
    const { clean, faulty } = await both(op, body, { negativeSeries: 'bytesSent' });
    let named = 0;
    const expected = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(expected);
      if (typeof v !== 'object' || v === null) return v;
      return Object.fromEntries(Object.entries(v).map(([k, x]) => {
        if (k !== 'bytesSent' || !isSeries(x)) return [k, expected(x)];
        named += x.length;
        return [k, x.map(([t, value]) => [t, value === null ? null : -(value + 1)])];
      }));
    };
    expect(faulty).toEqual(expected(clean));
    expect(named).toBeGreaterThan(0);
  });

  it('futurePoints follows each series\' own bucket size (1m, 5m, 1h)', async () => {
    const steps = new Set<number>();
    for (const [op, body] of POINT_REQUESTS.slice(0, 3)) {
      const { faulty } = await both(op, body, { futurePoints: 2 });
      for (const s of seriesIn(faulty)) steps.add((s.at(-1)?.[0] ?? NaN) - (s.at(-2)?.[0] ?? NaN));
      h.sim.faults.clear();
    }
    expect([...steps].sort((a, b) => a - b)).toEqual([MIN, 5 * MIN, HOUR]);
  });

  it.each(POINT_REQUESTS)('duplicatePoints sends every point of %s twice, the copy right after it', async (op, body) => {
    const { clean, faulty } = await both(op, body, { duplicatePoints: true });
    expect(faulty).toEqual(mapSeries(clean, (s) => s.flatMap((p) => [p, p])));
  });

  it.each(POINT_REQUESTS)('shufflePoints reorders every series of %s and changes nothing else', async (op, body) => {
    const { clean, faulty } = await both(op, body, { shufflePoints: true });
    const byTime = (s: Point[]) => [...s].sort((a, b) => a[0] - b[0]);
    // The clean series are in time order: sorting the shuffled ones gives the clean answer back.
    expect(mapSeries(faulty, byTime)).toEqual(clean);
    for (const [i, s] of seriesIn(faulty).entries()) {
      if (s.length > 1) expect(s, `series ${i}`).not.toEqual(seriesIn(clean)[i]);
    }
  });

  it('domains limits a rule to requests naming one of them, and refuses anything but names', () => {
    const f = new Faults(1, [{ dataNull: true, domains: ['quiet.example'] }]);
    expect(f.take('describeL7DataV2', ['busy.example']).dataNull).toBe(false);
    expect(f.take('describeL7DataV2', ['busy.example', 'quiet.example']).dataNull).toBe(true);
    expect(f.take('describeL7DataV2').dataNull).toBe(false);
    expect(() => new Faults(1, [{ dataNull: true, domains: [''] }])).toThrow(/domains must be an array of domain names/);
  });

  it('shufflePoints draws its order from the seed', () => {
    const seeds = (seed: number) => {
      const f = new Faults(seed, [{ shufflePoints: true }]);
      return [1, 2, 3].map(() => f.take('describeL7DataV2').shuffleSeed);
    };
    expect(seeds(4)).toEqual(seeds(4));
    expect(new Set(seeds(4)).size).toBe(3);
    expect(new Faults(4).take('describeL7DataV2').shuffleSeed).toBeUndefined();
  });

  it('hugeArray pads the longest array to N entries by repeating it, and nothing else', async () => {
    const N = 5000;
    const [op, body] = POINT_REQUESTS[0] ?? ['describeL7DataV2', {}];
    const { clean, faulty } = await both(op, body, { hugeArray: N });
    const longest = (v: unknown): unknown[] => {
      let best: unknown[] = [];
      const visit = (x: unknown): void => {
        if (Array.isArray(x)) {
          if (x.length > best.length) best = x;
          x.forEach(visit);
        } else if (typeof x === 'object' && x !== null) Object.values(x).forEach(visit);
      };
      visit(v);
      return best;
    };
    const original = longest(clean);
    const padded = longest(faulty);
    expect(original.length).toBeGreaterThan(1);
    expect(padded).toHaveLength(N);
    expect(padded).toEqual(Array.from({ length: N }, (_, i) => original[i % original.length]));
    // Putting the original back gives the clean answer: no other array grew.
    const restore = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.length === N ? original : v.map(restore);
      if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, restore(x)]));
      return v;
    };
    expect(restore(faulty)).toEqual(clean);
  });

  it('hugeArray pads rows where an answer has no data', async () => {
    const body = { filters: [], searchHeader: { isActive: [] }, pageNum: 1, pageSize: 5 };
    const { clean, faulty } = await both('listDomains', body, { hugeArray: 12 });
    expect(clean.rows).toHaveLength(5);
    expect(faulty.rows).toEqual([...(clean.rows ?? []), ...(clean.rows ?? []), ...(clean.rows ?? []).slice(0, 2)]);
    expect(faulty.total).toBe(clean.total);
  });

  /** Walks clean and faulty together: containers keep their shape, every leaf changed type. */
  function expectRetyped(clean: unknown, faulty: unknown, path: string): number {
    const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
    if (Array.isArray(clean) && clean.length > 0) {
      expect(Array.isArray(faulty), path).toBe(true);
      return clean.reduce<number>((n, x, i) => n + expectRetyped(x, (faulty as unknown[])[i], `${path}[${i}]`), 0);
    }
    if (kind(clean) === 'object' && Object.keys(clean as object).length > 0) {
      const f = faulty as Record<string, unknown>;
      expect(Object.keys(f), path).toEqual(Object.keys(clean as object));
      return Object.entries(clean as object).reduce<number>((n, [k, x]) => n + expectRetyped(x, f[k], `${path}.${k}`), 0);
    }
    expect(kind(faulty), path).not.toBe(kind(clean));
    // A number must not come back as a numeric string: the client reads those as numbers, legitimately.
    if (typeof clean === 'number') expect(Number.isNaN(Number(faulty)), path).toBe(true);
    return 1;
  }

  it.each<[OperationName, unknown, 'data' | 'rows']>([
    [POINT_REQUESTS[0]?.[0] ?? 'describeL7DataV2', POINT_REQUESTS[0]?.[1], 'data'],
    ['describeL7UsageData', POINT_REQUESTS[1]?.[1], 'data'],
    ['listDomains', { filters: [], searchHeader: { isActive: [] }, pageNum: 1, pageSize: 3 }, 'rows'],
    ['getPackages', {}, 'data'],
  ])('wrongTypes changes the type of every leaf of %s %s, and keeps the envelope', async (op, body, key) => {
    const { clean, faulty } = await both(op, body, { wrongTypes: true });
    expect(expectRetyped(clean[key], faulty[key], key)).toBeGreaterThan(10);
    expect({ code: faulty.code, msg: faulty.msg, total: faulty.total }).toEqual({ code: clean.code, msg: clean.msg, total: clean.total });
  });

  it('dataNull wins over the shape faults; faults on another operation change nothing', async () => {
    const [op, body] = POINT_REQUESTS[0] ?? ['describeL7DataV2', {}];
    const { faulty } = await both(op, body, { wrongTypes: true, futurePoints: 2, dataNull: true });
    expect(faulty).toMatchObject({ code: 200, data: null });
    h.sim.faults.clear();
    const clean = await h.call(op, body);
    h.sim.faults.set([{ wrongTypes: true, hugeArray: 50, futurePoints: 2, operations: ['describeL7UsageData'] }]);
    expect((await h.call(op, body)).body).toEqual(clean.body);
  });
});
