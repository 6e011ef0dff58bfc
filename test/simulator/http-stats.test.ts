import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR, items, MIN, params, startSim, sumPoints, T0, type Harness, type Point } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startSim({ domains: 12 });
});
afterAll(() => h.close());

// Settled window at T0 (12:00): every bucket ended more than the revision delay ago.
const FROM = T0 - 12 * HOUR;
const TO = T0 - HOUR;
const range = params(FROM, TO);

type Series = Record<string, Point[]>;
const seriesOf = (item: Record<string, unknown> | undefined, key = 'objectArrayListMap') => (item?.[key] ?? {}) as Series;
const mapOf = (item: Record<string, unknown> | undefined, key: string) => (item?.[key] ?? {}) as Record<string, number>;

async function v2(metricName: string | string[], extra: Record<string, unknown> = {}) {
  const names = Array.isArray(metricName) ? metricName : [metricName];
  return h.call('describeL7DataV2', { action: names.map((n) => ({ metricName: n })), domains: [], interval: '1h', params: range, ...extra });
}

describe('usage monitoring (4)', () => {
  it('totals equal the ground truth and the sum of the trend', async () => {
    const res = await h.call('describeL7UsageData', { interval: '1h', oids: [], params: range, action: [{ metricName: 'trafficTrend' }] });
    const [item] = items(res);
    const total = mapOf(item, 'totalMap');
    expect(total.outTotalTraffic).toBe(h.sim.truth.total('bytesSent', FROM, TO));
    expect(total.inTotalTraffic).toBe(h.sim.truth.total('inBytes', FROM, TO));
    expect(total.totalTraffic).toBe((total.inTotalTraffic ?? 0) + (total.outTotalTraffic ?? 0));
    const s = seriesOf(item);
    expect(sumPoints(s.ouTraffic ?? [])).toBe(total.outTotalTraffic);
    expect(s.inTraffic).toHaveLength(11);
  });

  it('package totals add up to the all-domain total', async () => {
    const out = async (oids: string[]) =>
      mapOf(items(await h.call('describeL7UsageData', { interval: '1d', oids, params: range, action: [{ metricName: 'totalTraffic' }] }))[0], 'totalMap').outTotalTraffic ?? NaN;
    const all = await out([]);
    const perPackage = await Promise.all(h.sim.world.l7Packages.map((p) => out([p.alias])));
    expect(perPackage.reduce((a, b) => a + b, 0)).toBe(all);
    expect(await out(h.sim.world.l7Packages.map((p) => p.oid))).toBe(all);
  });

  it('answers every action item in request order, bandwidth as peaks', async () => {
    const names = ['totalBandwidth', 'trafficTrend', 'bandwidthTrend', 'totalTraffic'];
    const res = await h.call('describeL7UsageData', { interval: '5m', oids: [], params: range, action: names.map((metricName) => ({ metricName })) });
    const data = items(res);
    expect(data.map((d) => d.metricName)).toEqual(names);
    const bw = seriesOf(data[2]);
    const out = seriesOf(data[1]).ouTraffic ?? [];
    expect(bw.outBandwidth?.[0]?.[1]).toBe(Math.floor(((out[0]?.[1] ?? 0) * 8) / 300));
    expect(mapOf(data[0], 'totalMap').maxOutBandwidth).toBe(Math.max(...(bw.outBandwidth ?? []).map((p) => p[1])));
  });
});

describe('access monitoring v2 (5)', () => {
  it('per-domain traffic adds up to the all-domain traffic', async () => {
    const all = mapOf(items(await v2('trafficTrend'))[0], 'totalMap');
    let sum = 0;
    for (const d of h.sim.truth.domains()) sum += mapOf(items(await v2('trafficTrend', { domains: [d] }))[0], 'totalMap').bytesSent ?? NaN;
    expect(sum).toBe(all.bytesSent);
    expect(all.totalBytesSent).toBe((all.bytesSent ?? 0) + (all.upstreamBytesSent ?? 0));
  });

  it('an hour equals the sum of its 5-minute buckets', async () => {
    const hourly = seriesOf(items(await v2('requestTrend'))[0]).requestCounter ?? [];
    const fine = seriesOf(items(await v2('requestTrend', { interval: '5m' }))[0]).requestCounter ?? [];
    expect(fine).toHaveLength(hourly.length * 12);
    hourly.forEach(([start, value], i) => {
      expect(fine[i * 12]?.[0]).toBe(start);
      expect(sumPoints(fine.slice(i * 12, i * 12 + 12))).toBe(value);
    });
  });

  it('status classes add up to requests, and request time is the weighted mean', async () => {
    const domain = h.sim.truth.domains()[0] ?? '';
    const [req, status, time] = items(await v2(['requestTrend', 'statusCodeTrend', 'requestTimeTrend'], { domains: [domain] }));
    const classes = mapOf(status, 'totalMap');
    expect(Object.keys(classes)).toEqual(['1xx', '2xx', '3xx', '4xx', '5xx']);
    expect(Object.values(classes).reduce((a, b) => a + b, 0)).toBe(mapOf(req, 'totalMap').requestCounter);
    const points = seriesOf(time).requestTime ?? [];
    for (const [start, v] of points) expect(v).toBe(h.sim.truth.requestTime(domain, '1h', start));
  });

  it('bandwidth peaks and 95th percentiles follow the points', async () => {
    const [bw] = items(await v2('bandwidthTrend', { interval: '5m' }));
    const s = seriesOf(bw);
    const max = mapOf(bw, 'maxMap');
    for (const key of ['bytesSent', 'upstreamBytesSent', 'totalBytesSent']) {
      const values = (s[key] ?? []).map((p) => p[1]);
      expect(max[key]).toBe(Math.max(...values));
      expect(max[`${key}95Peak`]).toBe(h.sim.truth.percentile95(values));
    }
  });

  it('pages the domain ranking and covers every domain once', async () => {
    const seen: Array<{ name: string; value: number }> = [];
    let total = 0;
    for (let page = 1; page <= 3; page++) {
      const [rank] = items(await v2('trafficRank', { pageNum: page, pageSize: 5 }));
      total = Number(rank?.total);
      seen.push(...((rank?.list ?? []) as Array<{ name: string; value: number }>));
    }
    expect(total).toBe(12);
    expect(seen.map((x) => x.name).sort()).toEqual([...h.sim.truth.domains()].sort());
    expect(seen.map((x) => x.value)).toEqual([...seen.map((x) => x.value)].sort((a, b) => b - a));
    expect(seen.reduce((a, x) => a + x.value, 0)).toBe(h.sim.truth.total('bytesSent', FROM, TO));
  });

  it('revises the newest bucket upward until it settles', async () => {
    const domain = h.sim.truth.domains()[1] ?? '';
    const start = T0 + 10 * MIN;
    const first = async () => {
      const s = seriesOf(items(await v2('requestTrend', { domains: [domain], interval: '1m', params: params(start, start + HOUR) }))[0]).requestCounter ?? [];
      return s[0];
    };
    h.sim.clock.set(start + 30_000);
    const early = await first();
    expect(early?.[0]).toBe(start);
    h.sim.clock.set(start + 2 * MIN);
    const later = await first();
    h.sim.clock.set(start + 4 * MIN + 1);
    const points = seriesOf(items(await v2('requestTrend', { domains: [domain], interval: '1m', params: params(start, start + HOUR) }))[0]).requestCounter ?? [];
    h.sim.clock.set(T0);
    const final = h.sim.truth.bucket(domain, 'requests', '1m', start);
    expect(early?.[1]).toBeLessThan(later?.[1] ?? 0);
    expect(later?.[1]).toBeLessThan(final);
    expect(points[0]?.[1]).toBe(final);
    expect(points).toHaveLength(5);
  });

  it.each([
    ['an unknown interval', { interval: '2m' }],
    ['a missing interval', { interval: undefined }],
    ['a malformed time', { params: { beginTime: '2026-03-02', endTime: '2026-03-02 01:00:00' } }],
    ['an end before the begin', { params: params(T0, T0 - HOUR) }],
    ['an unknown metricName', { action: [{ metricName: 'nope' }] }],
    ['no action item', { action: [] }],
    ['missing domains', { domains: undefined }],
    ['more than 50000 buckets', { interval: '1m', params: params(T0 - 40 * DAY, T0) }],
  ])('refuses %s with HTTP 400 / code 400', async (_, extra) => {
    const res = await v2('requestTrend', extra);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
  });
});

describe('access monitoring, resource variant (6)', () => {
  const body = (metricName: string, extra: Record<string, unknown> = {}) => ({
    action: [{ metricName }], domains: [], interval: '1h', params: range, mostDimension: 'requestCount', pageNum: 1, pageSize: 50, terminal: 'cdn', ...extra,
  });

  it.each([
    ['cdn', 'bytesSent'],
    ['source', 'upstreamBytesSent'],
  ] as const)('terminal %s reports %s as {metricName, data: {trend}}', async (terminal, metric) => {
    const [trend, total] = items(await h.call('describeL7Data', { ...body('trafficTrend', { terminal }), action: [{ metricName: 'trafficTrend' }, { metricName: 'totalTraffic' }] }));
    const points = (trend?.data as { trend: Point[] }).trend;
    expect(sumPoints(points)).toBe(h.sim.truth.total(metric, FROM, TO));
    expect((total?.data as { value: string }).value).toBe(String(sumPoints(points)));
  });

  it('ranks domains by peak bandwidth', async () => {
    const [rank] = items(await h.call('describeL7Data', body('bandwidthRank')));
    const data = rank?.data as { list: Array<{ value: number }>; total: number };
    expect(data.total).toBe(12);
    expect(data.list[0]?.value).toBeGreaterThanOrEqual(data.list[1]?.value ?? 0);
  });

  it.each(['mostDimension', 'pageNum', 'pageSize', 'terminal'])('requires %s', async (field) => {
    const res = await h.call('describeL7Data', body('trafficTrend', { [field]: undefined }));
    expect(res.status).toBe(400);
  });
});

describe('top-N (7) and CC attacks (8)', () => {
  const most = (metricName: string, extra: Record<string, unknown> = {}) =>
    h.call('describeL7MostData', { action: [{ metricName }], interval: '1h', params: range, pageNum: 1, pageSize: 100, mostDimension: 'requestCount', otherFilter: [], ...extra });

  it.each(['ip', 'status', 'domain', 'url', 'country_name', 'scheme'])('%s terms add up to the total requests', async (dim) => {
    const [item] = items(await most(dim));
    const data = item?.data as { total: number; list: Array<{ name: string; value: number }>; termsCount: number };
    expect(data.total).toBe(h.sim.truth.total('requests', FROM, TO));
    expect(data.list.reduce((a, x) => a + x.value, 0)).toBe(data.total);
    expect(data.list).toHaveLength(data.termsCount);
  });

  it('pages terms without overlap, sorted descending', async () => {
    const pages = await Promise.all([1, 2, 3, 4, 5].map((pageNum) => most('ip', { pageNum, pageSize: 10 })));
    const names = pages.flatMap((p) => ((items(p)[0]?.data as { list: Array<{ name: string }> }).list).map((x) => x.name));
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBe((items(pages[0] ?? { status: 0, body: { code: 0, msg: '' } })[0]?.data as { termsCount: number }).termsCount);
  });

  it('trafficSum splits bytes', async () => {
    const [item] = items(await most('domain', { mostDimension: 'trafficSum' }));
    expect((item?.data as { total: number }).total).toBe(h.sim.truth.total('bytesSent', FROM, TO));
  });

  it('CC attack items agree with each other and the ground truth', async () => {
    const res = await h.call('describeL7CCAttack', { interval: '1h', params: params(T0 - DAY, TO) });
    const [trend, detail, domain, ua] = items(res);
    expect([trend, detail, domain, ua].map((x) => x?.metricName)).toEqual(['ccPolicyTrend', 'attack_detail', 'domain', 'http_user_agent']);
    const expected = h.sim.truth.total('ccAttacks', T0 - DAY, TO);
    expect(sumPoints((trend?.data as { trend: Point[] }).trend)).toBe(expected);
    expect((detail?.data as { attackRequests: number }).attackRequests).toBe(expected);
    expect((domain?.data as { total: number }).total).toBe(expected);
    expect((ua?.data as { total: number }).total).toBe(expected);
  });
});
