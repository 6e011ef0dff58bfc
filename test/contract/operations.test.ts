// Client ↔ simulator contract for operations 1-16: each typed method, sent
// over real HTTP on loopback, returns what the simulator's ground truth says
// (sim.truth for statistics and WAF logs, sim.world for inventory and the
// effect of writes). Then, for all 21 operations, a request the document
// forbids is refused locally with the field's path (and the allowed values
// for an enumeration) and never reaches the simulator.
//
// The clock is pinned at T0 and the world rebuilt before each test. Statistic
// ranges end at least an hour before T0, so every bucket is settled.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  OPERATION_NAMES, ValidationError, type EdgeClient, type Interval, type OperationName, type RequestOf, type WafLogRecord,
} from '../../src/api/index.js';
import type { Simulator } from '../../src/simulator/index.js';
import type { Domain } from '../../src/simulator/world.js';
import type { WafEvent } from '../../src/simulator/waf.js';
import { DAY, HOUR, MIN, T0, params, rejection, sum, text, useContract } from './harness.js';
import { validRequests, type ValidRequests } from './requests.js';

const ctx = useContract();

/** A settled hour, two hours before T0, in 5-minute buckets. */
const FROM = T0 - 3 * HOUR;
const TO = T0 - 2 * HOUR;
const RANGE = params(FROM, TO);
const BUCKETS = Array.from({ length: 12 }, (_, i) => FROM + i * 5 * MIN);

function activeDomain(sim: Simulator): Domain {
  const d = sim.world.domains.find((x) => x.isActive === '1');
  if (!d) throw new Error('the seeded world has no active domain');
  return d;
}

/** Pages through a paged list operation until `total` rows were seen (or a short page). */
async function allPages<R>(fetch: (pageNum: number) => Promise<{ total?: number; rows: R[] }>, pageSize: number): Promise<{ totals: Array<number | undefined>; rows: R[] }> {
  const rows: R[] = [];
  const totals: Array<number | undefined> = [];
  for (let pageNum = 1; pageNum <= 100; pageNum++) {
    const page = await fetch(pageNum);
    totals.push(page.total);
    rows.push(...page.rows);
    if (page.rows.length < pageSize) return { totals, rows };
  }
  throw new Error('more than 100 pages');
}

// ------------------------------------------------------------ 1. WAF logs

describe('describeLogV2 (1)', () => {
  const LOG_FROM = T0 - 35 * MIN;
  const LOG_TO = T0 - 20 * MIN;

  async function logs(searchHeader: RequestOf<'describeLogV2'>['searchHeader']): Promise<WafLogRecord[]> {
    const { rows } = await allPages(async (pageNo): Promise<{ rows: WafLogRecord[] }> => {
      const res = await ctx.client.describeLogV2({
        action: [{ metricName: 'logs', pageNo, pageSize: 100 }], params: params(LOG_FROM, LOG_TO), ...(searchHeader ? { searchHeader } : {}),
      });
      return { rows: res.data[0]?.list ?? [] };
    }, 100);
    return rows;
  }

  const ids = (events: readonly WafEvent[]) => events.map((e) => e.record.requestId).sort();

  type Header = RequestOf<'describeLogV2'>['searchHeader'];
  const cases: Array<[string, Header, (e: WafEvent) => boolean]> = [
    ['every action', undefined, () => true],
    ['action deny (HTTP 417 only)', { action: 'deny' }, (e) => e.record.response.httpCode === 417],
    ['action pass (never 417)', { action: 'pass' }, (e) => e.record.response.httpCode !== 417],
  ];

  it.each(cases)('%s: logTread count and the paged logs equal the visible events of the range', async (_name, header, keep) => {
    const truth = ctx.sim.truth.wafEvents(LOG_FROM, LOG_TO, { visibleAt: T0 }).filter(keep);
    expect(truth.length).toBeGreaterThan(20);
    const res = await ctx.client.describeLogV2({ action: [{ metricName: 'logTread' }], params: params(LOG_FROM, LOG_TO), ...(header ? { searchHeader: header } : {}) });
    const [trend] = res.data;
    expect(trend?.metricName).toBe('logTread');
    expect(trend?.count).toBe(truth.length);
    expect(sum(trend?.objectArrayList ?? [])).toBe(truth.length);

    const records = await logs(header);
    expect(records.map((r) => r.requestId).sort()).toEqual(ids(truth));
    const byId = new Map(truth.map((e) => [e.record.requestId, e.record]));
    for (const r of records) expect(r.response.httpCode).toBe(byId.get(r.requestId)?.response.httpCode);
    if (header?.action === 'deny') expect(new Set(records.map((r) => r.response.httpCode))).toEqual(new Set([417]));
  });

  it('a range reaching now holds only the events already ingested', async () => {
    const from = T0 - 5 * MIN;
    const visible = ctx.sim.truth.wafEvents(from, T0, { visibleAt: T0 });
    expect(visible.length).toBeLessThan(ctx.sim.truth.wafEvents(from, T0).length);
    const res = await ctx.client.describeLogV2({ action: [{ metricName: 'logTread' }], params: params(from, T0) });
    expect(res.data[0]?.count).toBe(visible.length);
  });

  it('answers several action items in request order', async () => {
    const res = await ctx.client.describeLogV2({
      action: [{ metricName: 'logs', pageSize: 3 }, { metricName: 'logTread' }], params: params(LOG_FROM, LOG_TO),
    });
    expect(res.data.map((d) => d.metricName)).toEqual(['logs', 'logTread']);
    const newest = ctx.sim.truth.wafEvents(LOG_FROM, LOG_TO, { visibleAt: T0 })
      .sort((a, b) => b.time - a.time || (a.record.requestId < b.record.requestId ? -1 : 1)).slice(0, 3);
    expect(res.data[0]?.list.map((r) => r.requestId)).toEqual(newest.map((e) => e.record.requestId));
  });
});

// ---------------------------------------------------------- 3. getPackages

describe('getPackages (3)', () => {
  it('lists every layer-7 and layer-4 package alias once', async () => {
    const { data } = await ctx.client.getPackages({});
    const aliases = data.map((o) => o.value);
    for (const p of ctx.sim.world.l7Packages) expect(aliases).toContain(p.alias);
    expect(aliases.sort()).toEqual([...ctx.sim.world.l7Packages, ...ctx.sim.world.l4Packages].map((p) => p.alias).sort());
  });
});

// ------------------------------------------------------------ 4-8. statistics

describe('describeL7UsageData (4)', () => {
  it.each(['oid', 'alias'] as const)('trafficTrend of one package (by %s) equals the truth of its domains', async (key) => {
    const pkg = ctx.sim.world.l7Packages[1];
    if (!pkg) throw new Error('no second layer-7 package');
    const domains = ctx.sim.world.domains.filter((d) => d.doid === pkg.alias).map((d) => d.domainName);
    expect(domains.length).toBeGreaterThan(1);
    const res = await ctx.client.describeL7UsageData({ interval: '5m', oids: [pkg[key]], params: RANGE, action: [{ metricName: 'trafficTrend' }] });
    const [item] = res.data;
    const out = item?.objectArrayListMap?.ouTraffic ?? [];
    expect(out.map(([t]) => t)).toEqual(BUCKETS);
    out.forEach(([t, v]) => expect(v).toBe(domains.reduce((a, d) => a + ctx.sim.truth.bucket(d, 'bytesSent', '5m', t), 0)));
    const bytesSent = ctx.sim.truth.total('bytesSent', FROM, TO, domains);
    const inBytes = ctx.sim.truth.total('inBytes', FROM, TO, domains);
    expect(sum(out)).toBe(bytesSent);
    expect(sum(item?.objectArrayListMap?.inTraffic ?? [])).toBe(inBytes);
    expect(item?.totalMap).toMatchObject({ outTotalTraffic: bytesSent, inTotalTraffic: inBytes, totalTraffic: bytesSent + inBytes });
  });
});

describe('describeL7DataV2 (5)', () => {
  it('requestTrend and statusCodeTrend of one domain equal its truth, bucket by bucket', async () => {
    const d = activeDomain(ctx.sim).domainName;
    const res = await ctx.client.describeL7DataV2({
      domains: [d], interval: '5m', params: RANGE, action: [{ metricName: 'requestTrend' }, { metricName: 'statusCodeTrend' }],
    });
    const [requests, codes] = res.data;
    const counter = requests?.objectArrayListMap?.requestCounter ?? [];
    expect(counter.map(([t]) => t)).toEqual(BUCKETS);
    counter.forEach(([t, v]) => expect(v).toBe(ctx.sim.truth.bucket(d, 'requests', '5m', t)));
    expect(requests?.totalMap?.requestCounter).toBe(ctx.sim.truth.domainTotal(d, 'requests', FROM, TO));
    const classes = [
      ['1xx', 'list1xx', 'status1xx'], ['2xx', 'list2xx', 'status2xx'], ['3xx', 'list3xx', 'status3xx'],
      ['4xx', 'list4xx', 'status4xx'], ['5xx', 'list5xx', 'status5xx'],
    ] as const;
    for (const [key, list, metric] of classes) {
      const expected = ctx.sim.truth.domainTotal(d, metric, FROM, TO);
      expect(codes?.totalMap?.[key], key).toBe(expected);
      expect(sum(codes?.objectArrayListMap?.[list] ?? []), list).toBe(expected);
    }
  });

  it('several metricNames in one request return one item each, in request order', async () => {
    const names = ['statusCodeTrend', 'trafficTrend', 'requestTimeTrend', 'requestTrend', 'bandwidthTrend', 'requestRank'] as const;
    const res = await ctx.client.describeL7DataV2({ domains: [], interval: '5m', params: RANGE, action: names.map((metricName) => ({ metricName })) });
    expect(res.data.map((i) => i.metricName)).toEqual(names);
    expect(res.data[1]?.totalMap?.bytesSent).toBe(ctx.sim.truth.total('bytesSent', FROM, TO));
    expect(res.data[3]?.totalMap?.requestCounter).toBe(ctx.sim.truth.total('requests', FROM, TO));
  });
});

describe('describeL7Data (6)', () => {
  it.each([
    ['cdn', 'bytesSent'],
    ['source', 'upstreamBytesSent'],
  ] as const)('trafficTrend with terminal %s sums to the truth of %s', async (terminal, metric) => {
    const res = await ctx.client.describeL7Data({
      domains: [], interval: '5m', params: RANGE, action: [{ metricName: 'trafficTrend' }], mostDimension: 'domain', pageNum: 1, pageSize: 10, terminal,
    });
    // The sample's array form: [{metricName, data: {trend}}].
    if (!Array.isArray(res.data)) throw new Error('expected the array form of data');
    const [item] = res.data;
    const trend = item && !Array.isArray(item.data) ? (item.data?.trend ?? []) : [];
    expect(trend.map(([t]) => t)).toEqual(BUCKETS);
    expect(sum(trend)).toBe(ctx.sim.truth.total(metric, FROM, TO));
  });
});

describe('describeL7MostData (7)', () => {
  it.each([
    ['requestCount', 'requests'],
    ['trafficSum', 'bytesSent'],
  ] as const)('by domain / %s: the list over every page sums to total, which is the truth of %s', async (mostDimension, metric) => {
    const pageSize = 4;
    const { rows, totals } = await allPages(async (pageNum) => {
      const res = await ctx.client.describeL7MostData({ action: [{ metricName: 'domain' }], interval: '5m', params: RANGE, pageNum, pageSize, mostDimension });
      return { total: res.data[0]?.data?.total, rows: res.data[0]?.data?.list ?? [] };
    }, pageSize);
    const expected = ctx.sim.truth.total(metric, FROM, TO);
    expect(new Set(totals)).toEqual(new Set([expected]));
    expect(sum(rows.map((r) => [0, r.value] as const))).toBe(expected);
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
  });
});

describe('describeL7CCAttack (8)', () => {
  // Items of data are not documented; the simulator's ccPolicyTrend shape is read here.
  const ccTrend = z.object({ metricName: z.literal('ccPolicyTrend'), data: z.object({ trend: z.array(z.tuple([z.number(), z.number()])) }) });

  it('ccPolicyTrend equals the truth of ccAttacks, bucket by bucket', async () => {
    const res = await ctx.client.describeL7CCAttack({ interval: '5m', params: RANGE, action: [{ metricName: 'ccPolicyTrend' }] });
    expect(res.data).toHaveLength(1);
    const { trend } = ccTrend.parse(res.data[0]).data;
    expect(trend.map(([t]) => t)).toEqual(BUCKETS);
    trend.forEach(([t, v]) => expect(v).toBe(ctx.sim.truth.domains().reduce((a, d) => a + ctx.sim.truth.bucket(d, 'ccAttacks', '5m', t), 0)));
    expect(sum(trend)).toBe(ctx.sim.truth.total('ccAttacks', FROM, TO));
    expect(sum(trend)).toBeGreaterThan(0);
  });
});

// ------------------------------------------------------- 9-12. layer 4

describe('layer-4 packages (9, 10)', () => {
  it('listLayer4Packages paged to the end covers world.l4Packages exactly once', async () => {
    const pageSize = 2;
    const { rows, totals } = await allPages((pageNum) => ctx.client.listLayer4Packages({ pageNum, pageSize }), pageSize);
    const world = ctx.sim.world.l4Packages;
    expect(new Set(totals)).toEqual(new Set([world.length]));
    expect(rows.map((r) => r.oid).sort()).toEqual(world.map((p) => p.oid).sort());
    for (const p of world) {
      expect(rows.find((r) => r.oid === p.oid)).toMatchObject({ ruleCnt: p.rules.length, activate: p.activate, alias: p.alias, packageName: p.packageName });
    }
  });

  it('getPackageDetails reports each package\'s rule count as consumptionPort, and its nodes', async () => {
    for (const p of ctx.sim.world.l4Packages) {
      const { data } = await ctx.client.getPackageDetails({ oid: p.oid });
      expect(data, p.oid).toMatchObject({ oid: p.oid, consumptionPort: p.rules.length, totalPort: p.totalPort, activate: p.activate });
      expect(data?.nodes).toEqual(p.nodes.map((n) => [...n]));
    }
  });
});

describe('layer-4 rules (11, 12)', () => {
  function usablePackage(sim: Simulator) {
    const p = sim.world.l4Packages.find((x) => x.activate === 1 && x.totalPort - x.rules.length >= 2 && x.rules.length > 0);
    if (!p) throw new Error('no in-use layer-4 package with free ports');
    return p;
  }

  async function counts(oid: string): Promise<{ ruleCnt: number | undefined; consumptionPort: number | undefined }> {
    const list = await ctx.client.listLayer4Packages({ pageNum: 1, pageSize: 50, oid });
    const details = await ctx.client.getPackageDetails({ oid });
    return { ruleCnt: list.rows[0]?.ruleCnt, consumptionPort: details.data?.consumptionPort };
  }

  it('insertRule adds the rules: ruleCnt and consumptionPort grow by the number inserted', async () => {
    const p = usablePackage(ctx.sim);
    const before = p.rules.length;
    expect(await counts(p.oid)).toEqual({ ruleCnt: before, consumptionPort: before });
    const node = p.nodes[0]?.[1] ?? '';
    const rules = [
      { hyPort: '39001', listenPort: '443', node, originAddress: '192.0.2.10;192.0.2.11', protocolType: 'tcp', proxyProtocol: 'off', types: 'off', limitConn: '' },
      { hyPort: '39002', listenPort: '53', node, originAddress: '192.0.2.12', protocolType: 'udp', proxyProtocol: 'on', types: 'on', limitConn: 300, remark: 'dns' },
    ] as const;
    await expect(ctx.client.insertRule({ oid: p.oid, rules: [...rules] })).resolves.toMatchObject({ code: 200 });

    expect(await counts(p.oid)).toEqual({ ruleCnt: before + 2, consumptionPort: before + 2 });
    const stored = ctx.sim.world.l4Packages.find((x) => x.oid === p.oid)?.rules ?? [];
    expect(stored).toHaveLength(before + 2);
    for (const r of rules) expect(stored.find((s) => s.hyPort === r.hyPort)).toMatchObject(r);
    expect(new Set(stored.map((s) => s.ruleId)).size).toBe(stored.length);
  });

  it('updateRule replaces one rule\'s fields in place', async () => {
    const p = usablePackage(ctx.sim);
    const target = p.rules[0];
    if (!target) throw new Error('no rule');
    const others = p.rules.slice(1).map((r) => ({ ...r }));
    const change = {
      ruleId: target.ruleId, hyPort: target.hyPort, node: target.node, listenPort: '8443', originAddress: '192.0.2.99',
      protocolType: target.protocolType === 'tcp' ? 'udp' : 'tcp', proxyProtocol: 'on', types: 'off', limitConn: 250, remark: 'updated by contract test',
    } as const;
    await expect(ctx.client.updateRule(change)).resolves.toMatchObject({ code: 200 });
    const after = ctx.sim.world.l4Packages.find((x) => x.oid === p.oid)?.rules ?? [];
    expect(after.find((r) => r.ruleId === target.ruleId)).toEqual(change);
    expect(after.filter((r) => r.ruleId !== target.ruleId)).toEqual(others);
    expect(await counts(p.oid)).toEqual({ ruleCnt: others.length + 1, consumptionPort: others.length + 1 });
  });
});

// ---------------------------------------------------------- 13. domains

describe('listDomains (13)', () => {
  it.each([
    [[] as Array<'0' | '1' | '2'>],
    [['1'] as Array<'0' | '1' | '2'>],
    [['0', '2'] as Array<'0' | '1' | '2'>],
  ])('isActive %j: total equals the world and paging covers every domain once', async (isActive) => {
    const pageSize = 7;
    const { rows, totals } = await allPages((pageNum) => ctx.client.listDomains({ filters: [], searchHeader: { isActive }, pageNum, pageSize }), pageSize);
    const expected = ctx.sim.world.domains.filter((d) => isActive.length === 0 || isActive.some((s) => s === d.isActive));
    expect(new Set(totals)).toEqual(new Set([expected.length]));
    expect(rows.map((r) => r.id).sort()).toEqual(expected.map((d) => d.id).sort());
    for (const d of expected) expect(rows.find((r) => r.id === d.id)).toMatchObject({ domainName: d.domainName, doid: d.doid, isActive: d.isActive });
  });
});

// ---------------------------------------------------------- 14. certificates

describe('describeHosting (14)', () => {
  it.each(['7', '30'] as const)('certEndDay %s lists exactly the certificates expiring within that many days', async (days) => {
    const now = ctx.sim.clock.now();
    const expected = ctx.sim.world.certificates.filter((c) => c.endTime >= now && c.endTime <= now + Number(days) * DAY);
    expect(expected.length).toBeGreaterThan(0);
    const res = await ctx.client.describeHosting({ pageNum: 1, pageSize: 100, searchHeader: { certEndDay: days } });
    expect(res.total).toBe(expected.length);
    expect(res.rows.map((r) => r.certId).sort()).toEqual(expected.map((c) => c.certId).sort());
    for (const c of expected) expect(res.rows.find((r) => r.certId === c.certId)?.endTime).toBe(text(c.endTime));
  });

  // The seeded expiries sit well away from the 7/30-day edges; moving the
  // clock puts one certificate a minute inside, then a minute outside, a window.
  it.each(['7', '30'] as const)('certEndDay %s: the window edge is at that many days from the simulator clock', async (days) => {
    const cert = ctx.sim.world.certificates.find((c) => c.endTime > T0 + 40 * DAY);
    if (!cert) throw new Error('no certificate expiring later than 40 days');
    const edge = cert.endTime - Number(days) * DAY;
    const listed = async () => (await ctx.client.describeHosting({ pageNum: 1, pageSize: 100, searchHeader: { certEndDay: days } })).rows.map((r) => r.certId);
    ctx.sim.clock.set(edge + MIN);
    expect(await listed()).toContain(cert.certId);
    ctx.sim.clock.set(edge - MIN);
    expect(await listed()).not.toContain(cert.certId);
  });

  it('without searchHeader lists every certificate, expired ones included', async () => {
    const res = await ctx.client.describeHosting({ pageNum: 1, pageSize: 100 });
    expect(res.total).toBe(ctx.sim.world.certificates.length);
    expect(res.rows.some((r) => r.endTime < text(T0))).toBe(true);
  });
});

// ------------------------------------------------------------ 15-16. cache

describe('cache records (15, 16)', () => {
  it.each([
    ['1', 8 * DAY, 0], ['2', 8 * DAY, 0], ['3', 8 * DAY, 0],
    ['1', 3 * DAY, DAY], ['3', 3 * DAY, DAY],
  ] as const)('type %s over [now-%i ms, now-%i ms]: total and rows equal the world\'s records in range', async (type, back, until) => {
    const from = T0 - back;
    const to = T0 - until;
    const expected = ctx.sim.world.cacheRecords.filter((r) => String(r.type) === type && r.ctime * 1000 >= from && r.ctime * 1000 <= to);
    expect(expected.length).toBeGreaterThan(0);
    const pageSize = 6;
    const { rows, totals } = await allPages((pageNum) => ctx.client.getCacheRecordList({ type, pageNum, pageSize, params: params(from, to) }), pageSize);
    expect(new Set(totals)).toEqual(new Set([expected.length]));
    expect(rows.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id).sort());
    for (const r of expected) expect(rows.find((x) => x.id === r.id)).toEqual({ id: r.id, value: r.value, ctime: r.ctime, total: r.total, success: r.success });
  });

  it('pushUrlsCache adds one type-1 record per URL, listed by getCacheRecordList', async () => {
    const host = ctx.sim.world.domains[0]?.domainName ?? '';
    const urls = [`https://${host}/contract/a.js`, 'https://not-ours.example.org/b.css'];
    const before = ctx.sim.world.cacheRecords.length;
    await expect(ctx.client.pushUrlsCache({ urls, area: 'mainland', parseM3U8: false, urlEncode: false })).resolves.toMatchObject({ code: 200 });
    const pushed = ctx.sim.world.cacheRecords.slice(before);
    expect(pushed.map((r) => [r.type, r.value, r.ctime])).toEqual(urls.map((u) => [1, u, T0 / 1000]));

    const listed = await ctx.client.getCacheRecordList({ type: '1', pageNum: 1, pageSize: 10, params: params(T0 - HOUR, T0) });
    expect(listed.total).toBe(2);
    expect(listed.rows.map((r) => r.value).sort()).toEqual([...urls].sort());
    for (const r of pushed) expect(listed.rows.find((x) => x.id === r.id)).toMatchObject({ total: r.total, success: r.success });
    const refresh = await ctx.client.getCacheRecordList({ type: '2', pageNum: 1, pageSize: 10, params: params(T0 - HOUR, T0) });
    expect(refresh.rows.map((r) => r.value)).not.toContain(urls[0]);
  });
});

// ------------------------------------------------------ 2. certificates on domains

describe('batchUpdateDomainCertInfo (2)', () => {
  it('sets certEndTime and sslsupport on the listed domains only, visible via listDomains', async () => {
    const world = ctx.sim.world;
    const cert = world.certificates.find((c) => c.status === 3 && c.endTime > T0);
    const targets = world.domains.filter((d) => d.sslsupport === '0').slice(0, 2);
    if (!cert || targets.length < 2) throw new Error('the seeded world lacks an issued certificate or domains without SSL');
    const list = async () => (await ctx.client.listDomains({ filters: [], searchHeader: { isActive: [] }, pageNum: 1, pageSize: 100 })).rows;
    const before = await list();
    const ids = targets.map((d) => d.id);

    await expect(ctx.client.batchUpdateDomainCertInfo({ domainIdList: ids, protocol: 0, source: 1, certId: cert.certId })).resolves.toMatchObject({ code: 200 });

    const after = await list();
    for (const id of ids) {
      expect(after.find((r) => r.id === id)).toMatchObject({ sslsupport: '1', certEndTime: text(cert.endTime) });
      expect(world.domains.find((d) => d.id === id)).toMatchObject({ certId: cert.certId, protocol: 0 });
    }
    expect(after.filter((r) => !ids.includes(r.id))).toEqual(before.filter((r) => !ids.includes(r.id)));
  });
});

// ------------------------------------------------ validation, operations 1-21

interface BadRequestCase {
  op: OperationName;
  path: string;
  /** For an enumeration: the values the message must list. */
  allowed?: readonly string[];
  send: (c: EdgeClient, v: ValidRequests) => Promise<unknown>;
}

// Each case breaks one field of a valid request the way the document forbids;
// casts mark the values the static types already rule out.
const BAD: readonly BadRequestCase[] = [
  { op: 'describeLogV2', path: 'action.0.metricName', allowed: ['logs', 'logTread'],
    send: (c, v) => c.describeLogV2({ ...v.describeLogV2, action: [{ metricName: 'logTrend' as 'logs' }] }) },
  { op: 'batchUpdateDomainCertInfo', path: 'certId',
    send: (c, v) => c.batchUpdateDomainCertInfo({ ...v.batchUpdateDomainCertInfo, source: 1, certId: undefined }) },
  // An array is not a request object; Object.assign lets the type system see it as one.
  { op: 'getPackages', path: '',
    send: (c) => c.getPackages(Object.assign(['not', 'an', 'object'], {} as RequestOf<'getPackages'>)) },
  { op: 'describeL7UsageData', path: 'interval', allowed: ['1m', '5m', '1h', '1d'],
    send: (c, v) => c.describeL7UsageData({ ...v.describeL7UsageData, interval: '2m' as Interval }) },
  { op: 'describeL7DataV2', path: 'action.0.metricName', allowed: ['trafficTrend', 'statusCodeRank', 'requestTimeTrend'],
    send: (c, v) => c.describeL7DataV2({ ...v.describeL7DataV2, action: [{ metricName: 'totalTraffic' as 'trafficTrend' }] }) },
  { op: 'describeL7Data', path: 'terminal',
    send: (c, v) => c.describeL7Data({ ...v.describeL7Data, terminal: '' }) },
  { op: 'describeL7MostData', path: 'mostDimension', allowed: ['requestCount', 'trafficSum'],
    send: (c, v) => c.describeL7MostData({ ...v.describeL7MostData, mostDimension: 'bytes' as 'trafficSum' }) },
  { op: 'describeL7CCAttack', path: 'action.0.metricName', allowed: ['ccPolicyTrend', 'attack_detail', 'domain', 'http_user_agent'],
    send: (c, v) => c.describeL7CCAttack({ ...v.describeL7CCAttack, action: [{ metricName: 'attackDetail' as 'domain' }] }) },
  { op: 'listLayer4Packages', path: 'searchHeader.activate.0', allowed: ['0', '-1', '1', '3', '4'],
    send: (c, v) => c.listLayer4Packages({ ...v.listLayer4Packages, searchHeader: { activate: ['2' as '1'] } }) },
  { op: 'getPackageDetails', path: 'oid',
    send: (c) => c.getPackageDetails({ oid: '' }) },
  { op: 'insertRule', path: 'rules.0.protocolType', allowed: ['tcp', 'udp'],
    send: (c, v) => c.insertRule({ ...v.insertRule, rules: (v.insertRule.rules ?? []).map((r) => ({ ...r, protocolType: 'sctp' as 'tcp' })) }) },
  { op: 'updateRule', path: 'ruleId',
    send: (c, v) => c.updateRule({ ...v.updateRule, ruleId: 1.5 }) },
  { op: 'listDomains', path: 'searchHeader.isActive.0', allowed: ['0', '1', '2'],
    send: (c, v) => c.listDomains({ ...v.listDomains, searchHeader: { isActive: ['3' as '1'] } }) },
  { op: 'describeHosting', path: 'searchHeader.certEndDay', allowed: ['7', '30'],
    send: (c, v) => c.describeHosting({ ...v.describeHosting, searchHeader: { certEndDay: '14' as '7' } }) },
  { op: 'getCacheRecordList', path: 'type', allowed: ['1', '2', '3'],
    send: (c, v) => c.getCacheRecordList({ ...v.getCacheRecordList, type: '4' as '1' }) },
  { op: 'pushUrlsCache', path: 'area', allowed: ['mainland', 'overseas', 'global'],
    send: (c, v) => c.pushUrlsCache({ ...v.pushUrlsCache, area: 'asia' as 'global' }) },
  { op: 'createHostAcceleratePackOrder', path: 'packOrder.0.source', allowed: ['联通', '移动', '电信'],
    send: (c, v) => c.createHostAcceleratePackOrder({ packOrder: v.createHostAcceleratePackOrder.packOrder.map((o) => ({ ...o, source: '铁通' as '电信' })) }) },
  { op: 'updateHostAcceleratePackOrder', path: 'updateOrders.0.endMonthTime',
    send: (c, v) => c.updateHostAcceleratePackOrder({ updateOrders: v.updateHostAcceleratePackOrder.updateOrders.map((o) => ({ ...o, endMonthTime: '2026-02-30' })) }) },
  { op: 'modifyHostAcceleratePackOrder', path: 'modifyOrders.0.executeTime',
    send: (c, v) => c.modifyHostAcceleratePackOrder({ modifyOrders: v.modifyHostAcceleratePackOrder.modifyOrders.map((o) => ({ ...o, executeTime: '2026/03/05' })) }) },
  { op: 'describeHostAcceleratePackOrder', path: 'pageSize',
    send: (c, v) => c.describeHostAcceleratePackOrder({ ...v.describeHostAcceleratePackOrder, pageSize: 0 }) },
  { op: 'describeVQUserData', path: 'filters.0.label', allowed: ['dataId', 'uid'],
    send: (c, v) => c.describeVQUserData({ ...v.describeVQUserData, filters: [{ label: 'orderId' as 'uid', value: ['1'] }] }) },
];

describe('request validation (1-21)', () => {
  it('has one case per operation', () => {
    expect(BAD.map((b) => b.op)).toEqual(OPERATION_NAMES);
  });

  it.each(BAD)('$op: rejects a bad $path locally and sends nothing', async ({ op, path, allowed, send }) => {
    const err = await rejection(send(ctx.client, validRequests(ctx.sim.world)));
    expect(err).toBeInstanceOf(ValidationError);
    if (!(err instanceof ValidationError)) return;
    expect(err).toMatchObject({ code: 'EDGE_VALIDATION', operation: op, status: undefined });
    const issue = err.issues.find((i) => i.path === path);
    expect(issue, `issues: ${JSON.stringify(err.issues)}`).toBeDefined();
    for (const value of allowed ?? []) expect(issue?.message).toContain(`"${value}"`);
    expect(ctx.sim.requestCounts()[op]).toBeUndefined();
    expect(ctx.sim.requestCounts()).toEqual({});
  });
});
