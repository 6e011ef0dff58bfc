import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WafRecord } from '../../src/simulator/waf.js';
import { DAY, HOUR, items, MIN, params, startSim, T0, type Harness, type Point } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startSim({ domains: 10 });
});
afterAll(() => h.close());

const FROM = T0 - HOUR;
const range = params(FROM, T0);

async function query(extra: Record<string, unknown> = {}, action: unknown[] = [{ metricName: 'logTread' }]) {
  return h.call('describeLogV2', { action, otherFilter: [], params: range, ...extra });
}

async function allLogs(extra: Record<string, unknown> = {}): Promise<WafRecord[]> {
  const out: WafRecord[] = [];
  for (let pageNo = 1; ; pageNo++) {
    const res = await query(extra, [{ metricName: 'logs', pageNo, pageSize: 100 }]);
    if (res.body.data === null) return out;
    const list = (items(res)[0]?.list ?? []) as WafRecord[];
    out.push(...list);
    if (list.length < 100) return out;
  }
}

async function trendOf(extra: Record<string, unknown> = {}) {
  const res = await query(extra);
  if (res.body.data === null) return { count: 0, points: [] as Point[] };
  const [item] = items(res);
  return { count: Number(item?.count), points: item?.objectArrayList as Point[] };
}

describe('WAF log query (1)', () => {
  it('pages every visible record exactly once, newest first, matching the ground truth', async () => {
    const logs = await allLogs();
    const truth = h.sim.truth.wafEvents(FROM, T0, { visibleAt: T0 });
    expect(logs.length).toBe(truth.length);
    expect(new Set(logs.map((r) => r.requestId))).toEqual(new Set(truth.map((e) => e.record.requestId)));
    const times = logs.map((r) => Date.parse(r.timeStamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // Default paging: pageNo 1, pageSize 10.
    const first = (items(await query({}, [{ metricName: 'logs' }]))[0]?.list ?? []) as WafRecord[];
    expect(first.map((r) => r.requestId)).toEqual(logs.slice(0, 10).map((r) => r.requestId));
  });

  it('logTread count equals its points and the number of records', async () => {
    const { count, points } = await trendOf();
    expect(points.reduce((a, [, v]) => a + v, 0)).toBe(count);
    expect(count).toBe((await allLogs()).length);
    expect(points).toHaveLength(60);
    expect(points[0]?.[0]).toBe(FROM);
  });

  it('answers several action items in request order', async () => {
    const res = await query({}, [{ metricName: 'logs', pageSize: 1 }, { metricName: 'logTread' }, { metricName: 'logs', pageNo: 2, pageSize: 1 }]);
    expect(items(res).map((d) => d.metricName)).toEqual(['logs', 'logTread', 'logs']);
  });

  it('serves the documented record fields', async () => {
    const logs = await allLogs();
    for (const r of logs) {
      expect(r.timeStamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+08:00$/);
      expect(['高风险', '中风险', '低风险']).toContain(r.severityLevel);
      expect(r.rules.length).toBeGreaterThan(0);
      expect(typeof r.hostPort).toBe('number');
      expect(r.request.headers.host).toBeTruthy();
    }
    expect(logs.some((r) => r.ua === null)).toBe(true);
    expect(logs.some((r) => r.response.httpCode === 417)).toBe(true);
    expect(logs.some((r) => r.request.headers.cookie !== undefined)).toBe(true);
    expect(logs.some((r) => r.request.headers.authorization !== undefined)).toBe(true);
    expect(logs.some((r) => r.request.uri.includes('?'))).toBe(true);
  });

  it('shows late records only once their ingest lag has passed', async () => {
    const near = params(T0 - 5 * MIN, T0 + 5 * MIN);
    const count = async () => (await trendOf({ params: near })).count;
    const before = await count();
    h.sim.clock.set(T0 + 90_000);
    const after = await count();
    h.sim.clock.set(T0);
    expect(before).toBe(h.sim.truth.wafEvents(T0 - 5 * MIN, T0 + 5 * MIN, { visibleAt: T0 }).length);
    expect(after).toBe(h.sim.truth.wafEvents(T0 - 5 * MIN, T0 + 5 * MIN, { visibleAt: T0 + 90_000 }).length);
    expect(after).toBeGreaterThan(before);
    // 90 s after the range's part up to T0, every event of that part is in.
    expect(h.sim.truth.wafEvents(T0 - 5 * MIN, T0, { visibleAt: T0 + 90_000 })).toHaveLength(h.sim.truth.wafEvents(T0 - 5 * MIN, T0).length);
  });

  const ref = () => h.sim.truth.wafEvents(FROM, T0, { visibleAt: T0 });
  const someIp = () => ref()[0]?.record.clientIp ?? '';
  const domain = () => h.sim.truth.domains()[0] ?? '';

  it.each([
    ['severityLevel 高风险', { searchHeader: { severityLevel: '高风险' } }, (r: WafRecord) => r.severityLevel === '高风险'],
    ['action deny', { searchHeader: { action: 'deny' } }, (r: WafRecord) => r.response.httpCode === 417],
    ['action pass', { searchHeader: { action: 'pass' } }, (r: WafRecord) => r.response.httpCode !== 417],
    ['status eq 417,404', { otherFilter: [{ oneVal: 'status', twoVal: 'eq', threeVal: ['417', '404'] }] }, (r: WafRecord) => [417, 404].includes(r.response.httpCode)],
    ['request_method ne GET', { otherFilter: [{ oneVal: 'request_method', twoVal: 'ne', threeVal: ['GET'] }] }, (r: WafRecord) => r.request.method !== 'GET'],
    ['url contain search', { otherFilter: [{ oneVal: 'url', twoVal: 'contain', threeVal: ['search', 'ignored'] }] }, (r: WafRecord) => r.request.uri.includes('search')],
    ['url contain /api/*', { otherFilter: [{ oneVal: 'url', twoVal: 'contain', threeVal: ['/api/*'] }] }, (r: WafRecord) => r.request.uri.startsWith('/api/')],
    ['rule_id eq 942100', { otherFilter: [{ oneVal: 'rule_id', twoVal: 'eq', threeVal: ['942100'] }] }, (r: WafRecord) => r.rules.some((x) => x.ruleId === '942100')],
    ['ua_os_name eq iOS and deny', { searchHeader: { action: 'deny' }, otherFilter: [{ oneVal: 'ua_os_name', twoVal: 'eq', threeVal: ['iOS'] }] }, (r: WafRecord) => r.ua?.os_name === 'iOS' && r.response.httpCode === 417],
  ])('filters by %s, in logs and logTread alike', async (_, filter, predicate) => {
    const expected = ref().filter((e) => predicate(e.record)).length;
    expect(expected).toBeGreaterThan(0);
    expect((await allLogs(filter)).length).toBe(expected);
    expect((await trendOf(filter)).count).toBe(expected);
  });

  it('filters by client ip and by domains', async () => {
    const ip = someIp();
    expect((await allLogs({ otherFilter: [{ oneVal: 'client_ip', twoVal: 'eq', threeVal: [ip] }] })).every((r) => r.clientIp === ip)).toBe(true);
    const d = domain();
    const byDomain = await allLogs({ domains: [d] });
    expect(byDomain.length).toBe(ref().filter((e) => e.domain === d).length);
    expect(byDomain.every((r) => r.request.headers.host === d)).toBe(true);
  });

  it('answers data null when nothing matches', async () => {
    const res = await query({ otherFilter: [{ oneVal: 'request_id', twoVal: 'eq', threeVal: ['no-such-id'] }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 200, data: null });
  });

  it.each([
    ['an unsupported twoVal', { otherFilter: [{ oneVal: 'status', twoVal: 'gt', threeVal: ['1'] }] }, undefined, '附属查询条件的条件类型有误'],
    ['an unsupported oneVal', { otherFilter: [{ oneVal: 'cookie', twoVal: 'eq', threeVal: ['1'] }] }, undefined, '查询失败:查询的字段不存在[cookie]'],
    ['an unsupported metricName', {}, [{ metricName: 'logTrend' }], '操作类型有误,仅支持:logs,logTread'],
    ['a malformed time', { params: { beginTime: '2026/03/02 11:00:00', endTime: '2026-03-02 12:00:00' } }, undefined, '查询日志失败'],
    ['missing params', { params: undefined }, undefined, '查询日志失败'],
    ['an empty action', {}, [], '查询日志失败'],
    ['a bad severityLevel', { searchHeader: { severityLevel: 'high' } }, undefined, '查询日志失败'],
    ['a bad pageNo', {}, [{ metricName: 'logs', pageNo: 0 }], '查询日志失败'],
    ['a range over 31 days', { params: params(T0 - 32 * DAY, T0) }, undefined, '查询日志失败'],
  ])('refuses %s with the documented message', async (_, extra, action, msg) => {
    const res = await query(extra, action);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 500, msg });
  });

  it.each([
    [HOUR, MIN],
    [12 * HOUR, 5 * MIN],
    [3 * DAY, HOUR],
    [10 * DAY, DAY],
  ])('a %d ms range trends in buckets of %d ms', async (span, step) => {
    const { points } = await trendOf({ params: params(T0 - span, T0) });
    expect((points[1]?.[0] ?? 0) - (points[0]?.[0] ?? 0)).toBe(step);
    if (step === DAY) expect(h.sim.tz.formatDateTime(points[0]?.[0] ?? 0)).toMatch(/ 00:00:00$/);
  });
});
