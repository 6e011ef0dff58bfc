import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationName } from '../../src/api/operations.js';
import { DAY, params, startSim, T0, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startSim({ domains: 23 });
});
afterAll(() => h.close());

type Row = Record<string, unknown>;

async function allPages(op: OperationName, body: Record<string, unknown>, pageSize: number): Promise<{ rows: Row[]; totals: number[] }> {
  const rows: Row[] = [];
  const totals: number[] = [];
  for (let pageNum = 1; pageNum <= 50; pageNum++) {
    const res = await h.call(op, { ...body, pageNum, pageSize });
    expect(res.status).toBe(200);
    totals.push(Number(res.body.total));
    const page = (res.body.rows ?? []) as Row[];
    if (page.length === 0) break;
    rows.push(...page);
  }
  return { rows, totals };
}

const DOMAIN_LIST = { filters: [], searchHeader: { isActive: [] } };
const CACHE = (type: string) => ({ type, params: params(T0 - 8 * DAY, T0) });

describe('paged lists', () => {
  it.each([
    ['listDomains', DOMAIN_LIST, 'id', 23],
    ['listLayer4Packages', {}, 'oid', 7],
    ['describeHosting', {}, 'certId', 12],
    ['getCacheRecordList', CACHE('2'), 'id', 20],
  ] as const)('%s pages cover every row exactly once', async (op, body, key, count) => {
    for (const pageSize of [1, 4, 10, 100]) {
      const { rows, totals } = await allPages(op, body, pageSize);
      expect(new Set(totals)).toEqual(new Set([count]));
      expect(rows).toHaveLength(count);
      expect(new Set(rows.map((r) => r[key])).size).toBe(count);
    }
  });

  it.each([
    ['listDomains', { ...DOMAIN_LIST, pageNum: 0 }],
    ['listLayer4Packages', { pageNum: 1 }],
    ['describeHosting', { pageSize: 10 }],
    ['getCacheRecordList', { ...CACHE('1'), pageNum: 1, pageSize: 'ten' }],
    ['getCacheRecordList', { ...CACHE('4'), pageNum: 1, pageSize: 10 }],
    ['getCacheRecordList', { type: '1', pageNum: 1, pageSize: 10 }],
    ['listDomains', { filters: [], pageNum: 1 }],
    ['listDomains', { filters: [{ label: 'nope', value: ['x'] }], searchHeader: { isActive: [] } }],
  ] as const)('%s refuses %j with HTTP 400', async (op, body) => {
    const res = await h.call(op, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
  });
});

describe('domain list (13)', () => {
  const list = async (filters: unknown[], isActive: string[] = []) => h.call('listDomains', { filters, searchHeader: { isActive }, pageSize: 100 });

  it('returns every documented row field', async () => {
    const row = ((await list([])).body.rows ?? [])[0] as Row;
    expect(Object.keys(row).sort()).toEqual([
      'alias', 'cNamePre', 'cNameSuf', 'certEndTime', 'coreId', 'customerRemark', 'doid', 'domainName', 'id', 'ip', 'isActive',
      'port', 'sslsupport', 'stopTime', 'updateTime', 'waf', 'wafInternalRulesList',
    ]);
  });

  it.each([
    ['one value is a fuzzy search', [{ label: 'domainName', value: ['SITE-01'] }], (d: Row) => String(d.domainName).includes('site-01')],
    ['several values are exact', [{ label: 'port', value: ['80', '8080'] }], (d: Row) => ['80', '8080'].includes(String(d.port))],
    ['oid matches the package', [{ label: 'oid', value: ['cdn-pkg-02', 'none'] }], (d: Row) => d.doid === 'cdn-pkg-02'],
  ])('%s', async (_, filters, predicate) => {
    const all = ((await list([])).body.rows ?? []) as Row[];
    const hit = await list(filters);
    expect(hit.body.total).toBe(all.filter(predicate).length);
    expect(hit.body.total).toBeGreaterThan(0);
  });

  it.each([['0'], ['1'], ['2']])('filters by isActive %s', async (state) => {
    const res = await list([], [state]);
    expect(res.body.total).toBe(h.sim.world.domains.filter((d) => d.isActive === state).length);
  });
});

describe('packages (3, 9, 10)', () => {
  it('getPackages lists layer-7 and layer-4 packages as {label, value}', async () => {
    const res = await h.call('getPackages');
    const data = res.body.data as Array<{ label: string; value: string }>;
    expect(data.map((d) => d.value)).toEqual([...h.sim.world.l7Packages.map((p) => p.alias), ...h.sim.world.l4Packages.map((p) => p.alias)]);
  });

  it.each([['1'], ['0'], ['-1'], ['3'], ['4']])('filters layer-4 packages by activate %s', async (code) => {
    const res = await h.call('listLayer4Packages', { pageNum: 1, pageSize: 50, searchHeader: { activate: [code] } });
    const rows = (res.body.rows ?? []) as Row[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => String(r.activate) === code)).toBe(true);
  });

  it('details agree with the row: ruleCnt = consumptionPort, lastday from mday', async () => {
    const rows = ((await h.call('listLayer4Packages', { pageNum: 1, pageSize: 50 })).body.rows ?? []) as Row[];
    for (const row of rows) {
      const res = await h.call('getPackageDetails', {}, { pathParams: { oid: String(row.oid) } });
      const d = res.body.data as Row;
      expect(d.consumptionPort).toBe(row.ruleCnt);
      expect(d.isParsing).toBe('off');
      expect(d.mday).toBe(row.mday);
      if (row.mday === null) expect(row.lastday).toBeNull();
      else expect(row.lastday).toBe(Math.ceil((h.sim.tz.parseDateTime(String(row.mday)) - T0) / DAY));
    }
  });

  it('answers 404 for an unknown package', async () => {
    const res = await h.call('getPackageDetails', {}, { pathParams: { oid: 'nope' } });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe(404);
  });
});

describe('certificates (14) and cache records (15)', () => {
  it.each([
    ['7', 7],
    ['30', 30],
  ])('certEndDay %s lists unexpired certificates ending within %d days', async (days, n) => {
    const res = await h.call('describeHosting', { pageNum: 1, pageSize: 100, searchHeader: { certEndDay: days } });
    const expected = h.sim.world.certificates.filter((c) => c.endTime >= T0 && c.endTime <= T0 + n * DAY);
    expect(res.body.total).toBe(expected.length);
    expect(expected.length).toBeGreaterThan(0);
  });

  it('filters certificates by issuer, fuzzy', async () => {
    const res = await h.call('describeHosting', { pageNum: 1, pageSize: 100, filters: [{ label: 'issuerDN', value: ['dv'] }] });
    const rows = (res.body.rows ?? []) as Row[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => String(r.issuerDN).toLowerCase().includes('dv'))).toBe(true);
  });

  it('lists cache records of one type in a time range, newest first', async () => {
    const res = await h.call('getCacheRecordList', { type: '3', pageNum: 1, pageSize: 100, params: params(T0 - 2 * DAY, T0) });
    const rows = (res.body.rows ?? []) as Row[];
    const expected = h.sim.world.cacheRecords.filter((r) => r.type === 3 && r.ctime * 1000 >= T0 - 2 * DAY);
    expect(rows.map((r) => r.id)).toEqual(expected.sort((a, b) => b.ctime - a.ctime || b.id - a.id).map((r) => r.id));
  });
});
