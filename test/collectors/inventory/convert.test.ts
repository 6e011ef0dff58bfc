// Pure conversions of the inventory (values, missing fields, empty answers),
// from hand-written bodies parsed with the client's answer schemas.
import { describe, expect, it } from 'vitest';
import { getCacheRecordListAnswer } from '../../../src/api/schemas/cache.js';
import { describeHostingAnswer } from '../../../src/api/schemas/certificates.js';
import { listDomainsAnswer } from '../../../src/api/schemas/domains.js';
import { describeHostAcceleratePackOrderAnswer, describeVQUserDataAnswer } from '../../../src/api/schemas/orders.js';
import { getPackageDetailsAnswer, getPackagesAnswer, listLayer4PackagesAnswer } from '../../../src/api/schemas/packages.js';
import { convertCacheRecords } from '../../../src/collectors/inventory/convert-cache.js';
import { convertCertificates } from '../../../src/collectors/inventory/convert-certificates.js';
import { convertDomains, domainCname } from '../../../src/collectors/inventory/convert-domains.js';
import { convertLiveOrders, convertLiveQuality } from '../../../src/collectors/inventory/convert-live.js';
import { convertLayer4Details, convertLayer4List, convertPackages } from '../../../src/collectors/inventory/convert-packages.js';
import * as M from '../../../src/collectors/inventory/metrics.js';
import type { Converted } from '../../../src/collectors/inventory/sample-set.js';
import { certRow, domainRow, expectedStates, family, l4Row, orderRow, paged, secs, states, tz } from './fixtures.js';

describe('layer-4 list', () => {
  it('exports info, expiry, days left and rules; string integers are read as numbers', () => {
    const rows = listLayer4PackagesAnswer.parse(paged([l4Row({ isTest: '0', ruleCnt: '5', lastday: '-2', mday: '2026-03-01 10:30:00' })], '1')).rows;
    const out = convertLayer4List(rows, tz);
    expect(family(out, M.L4_PACKAGE_INFO)).toEqual([
      { name: M.L4_PACKAGE_INFO.name, labels: { oid: 'L4-1', name: '四层套餐', alias: 'l4-alias', official: 'false' }, value: 1 },
    ]);
    expect(family(out, M.L4_PACKAGE_EXPIRY)).toEqual([{ name: M.L4_PACKAGE_EXPIRY.name, labels: { oid: 'L4-1' }, value: secs(2026, 3, 1, 10, 30) }]);
    expect(family(out, M.L4_PACKAGE_TIME_LEFT).map((s) => s.value)).toEqual([-2 * 86_400]);
    expect(family(out, M.L4_PACKAGE_RULES).map((s) => s.value)).toEqual([5]);
  });

  it.each([
    ['null mday and lastday', { mday: null, lastday: null }],
    ['missing mday and lastday', { mday: undefined, lastday: undefined }],
    ['empty mday', { mday: '', lastday: null }],
  ])('%s: no expiry and no days-left sample', (_, over) => {
    const out = convertLayer4List(listLayer4PackagesAnswer.parse(paged([l4Row(over)], 1)).rows, tz);
    expect(family(out, M.L4_PACKAGE_EXPIRY)).toEqual([]);
    expect(family(out, M.L4_PACKAGE_TIME_LEFT)).toEqual([]);
    expect(family(out, M.L4_PACKAGE_INFO)).toHaveLength(1);
    expect(out.issues).toEqual([]);
  });

  it('an unreadable mday gives no sample and an issue; a bare date is 00:00 of that date', () => {
    const rows = listLayer4PackagesAnswer.parse(paged([l4Row({ oid: 'a', mday: 'soon' }), l4Row({ oid: 'b', mday: '2026-05-01' })], 2)).rows;
    const out = convertLayer4List(rows, tz);
    expect(family(out, M.L4_PACKAGE_EXPIRY)).toEqual([{ name: M.L4_PACKAGE_EXPIRY.name, labels: { oid: 'b' }, value: secs(2026, 5, 1) }]);
    expect(out.issues).toMatchObject([{ family: M.L4_PACKAGE_EXPIRY.name, key: 'a', value: 'soon' }]);
  });

  it('official is "true" only for isTest 1', () => {
    const rows = listLayer4PackagesAnswer.parse(paged([l4Row({ oid: 'a', isTest: 1 }), l4Row({ oid: 'b', isTest: 0 }), l4Row({ oid: 'c', isTest: 7 })], 3)).rows;
    const out = convertLayer4List(rows, tz);
    expect(family(out, M.L4_PACKAGE_INFO).map((s) => [s.labels.oid, s.labels.official])).toEqual([['a', 'true'], ['b', 'false'], ['c', 'false']]);
    expect(out.issues).toHaveLength(1);
  });

  it('details: ports used and total; data null gives no sample', () => {
    const details = getPackageDetailsAnswer.parse({
      code: 200, msg: 'ok',
      data: { oid: 'L4-1', isTest: 1, name: 'n', nodes: [['203.0.113.1', 'node-1']], ctime: 1, utime: 2, packages: null, activate: 1, mday: null, consumptionPort: '4', totalPort: 20 },
    }).data;
    const empty = getPackageDetailsAnswer.parse({ code: 200, msg: 'ok', data: null }).data;
    const out = convertLayer4Details([{ oid: 'L4-1', details: details ?? null }, { oid: 'L4-2', details: empty ?? null }]);
    expect(family(out, M.L4_PACKAGE_PORTS_USED)).toEqual([{ name: M.L4_PACKAGE_PORTS_USED.name, labels: { oid: 'L4-1' }, value: 4 }]);
    expect(family(out, M.L4_PACKAGE_PORTS)).toEqual([{ name: M.L4_PACKAGE_PORTS.name, labels: { oid: 'L4-1' }, value: 20 }]);
    expect(out.issues).toMatchObject([{ key: 'L4-2' }]);
  });
});

describe('domains', () => {
  it('info, SSL flag and certificate expiry', () => {
    const rows = listDomainsAnswer.parse(paged([
      domainRow({ certEndTime: '2026-09-01 08:00:00' }),
      domainRow({ id: 2, domainName: 'b.example.com', sslsupport: 0, doid: 'pkg-2', certEndTime: null, cNameSuf: null }),
    ], 2)).rows;
    const out = convertDomains(rows, tz);
    expect(family(out, M.DOMAIN_INFO).map((s) => s.labels)).toEqual([
      { domain: 'www.example.com', package: 'pkg-1', cname: 'www-example-com.cdn.example.net' },
      { domain: 'b.example.com', package: 'pkg-2', cname: 'www-example-com' },
    ]);
    expect(family(out, M.DOMAIN_SSL_ENABLED).map((s) => [s.labels.domain, s.value])).toEqual([['www.example.com', 1], ['b.example.com', 0]]);
    expect(family(out, M.DOMAIN_CERT_EXPIRY)).toEqual([
      { name: M.DOMAIN_CERT_EXPIRY.name, labels: { domain: 'www.example.com' }, value: secs(2026, 9, 1, 8) },
    ]);
  });

  it.each([
    ['pre', '.suf.net', 'pre.suf.net'], ['pre', 'suf.net', 'pre.suf.net'], ['pre.', '.suf.net', 'pre.suf.net'],
    [null, 'suf.net', 'suf.net'], ['pre', null, 'pre'], [null, null, ''],
  ])('cname of %j + %j is %j', (pre, suf, cname) => {
    expect(domainCname(pre, suf)).toBe(cname);
  });

  it('drops a repeated row (a list shifted while paged), keeping the first', () => {
    const rows = listDomainsAnswer.parse(paged([domainRow({}), domainRow({ domainName: 'x.example.com' }), domainRow({ isActive: '2' })], 3)).rows;
    const out = convertDomains(rows, tz);
    expect(family(out, M.DOMAIN_INFO).map((s) => s.labels.domain)).toEqual(['www.example.com', 'x.example.com']);
    expect(states(out, M.DOMAIN_STATE, 'domain', 'www.example.com')).toEqual(expectedStates(M.DOMAIN_STATE, 'active'));
    expect(out.issues).toMatchObject([{ reason: expect.stringContaining('duplicate') }]);
  });
});

describe('certificates', () => {
  it('info labels and expiry from endTime', () => {
    const out = convertCertificates(describeHostingAnswer.parse(paged([certRow({ certId: '7002', alias: null })], 1)).rows, tz);
    expect(family(out, M.CERTIFICATE_INFO)).toEqual([{
      name: M.CERTIFICATE_INFO.name, labels: { cert_id: '7002', alias: '', subject: '*.example.com', issuer: 'Some CA' }, value: 1,
    }]);
    expect(family(out, M.CERTIFICATE_EXPIRY).map((s) => s.value)).toEqual([secs(2026, 6, 30, 12)]);
  });
});

describe('cache records', () => {
  it('sums total and success and counts rows per type; an idle type is 0', () => {
    const preload = getCacheRecordListAnswer.parse(paged([
      { id: 1, value: 'https://a/x', ctime: 1772400000, total: 1, success: 1 },
      { id: 2, value: 'https://a/y', ctime: '1772400001', total: '1', success: 0 },
    ], 2)).rows;
    const dirs = getCacheRecordListAnswer.parse(paged([{ id: 3, value: 'https://a/d/', ctime: 1772400002, total: 12, success: 10 }], 1)).rows;
    const out = convertCacheRecords({ '1': preload, '2': [], '3': dirs });
    const byType = (def: { name: string }) => Object.fromEntries(family(out, def).map((s) => [s.labels.type, s.value]));
    expect(byType(M.CACHE_TASK_URLS)).toEqual({ url_preload: 2, url_refresh: 0, dir_refresh: 12 });
    expect(byType(M.CACHE_TASK_URLS_SUCCEEDED)).toEqual({ url_preload: 1, url_refresh: 0, dir_refresh: 10 });
    expect(byType(M.CACHE_TASKS)).toEqual({ url_preload: 2, url_refresh: 0, dir_refresh: 1 });
  });
});

describe('live orders and quality reports', () => {
  it('order end from endTime; a bare end date is its last second', () => {
    const rows = describeHostAcceleratePackOrderAnswer.parse(paged([orderRow({}), orderRow({ orderId: 'o2', endTime: '2026-05-31' })], 2)).rows;
    const out = convertLiveOrders(rows, tz);
    expect(family(out, M.LIVE_ORDER_END).map((s) => [s.labels.order_id, s.value])).toEqual([
      ['20260302000001', secs(2026, 4, 30, 23, 59, 59)], ['o2', secs(2026, 5, 31, 23, 59, 59)],
    ]);
  });

  it('reports per uid with the newest report time (createTime, else date)', () => {
    const rows = describeVQUserDataAnswer.parse(paged([
      { dataId: 11, uid: 'u1', date: '2026-02-20', createTime: '2026-02-20 09:15:00' },
      { dataId: '12', uid: 'u1', date: '2026-02-25', createTime: '2026-02-25 18:00:00' },
      { dataId: 13, uid: 'u2', date: '2026-02-10' },
      { dataId: 14, uid: 'u3', date: 'yesterday' },
    ], 4)).rows;
    const out = convertLiveQuality(rows, tz);
    expect(family(out, M.LIVE_QUALITY_REPORTS).map((s) => [s.labels.uid, s.value])).toEqual([['u1', 2], ['u2', 1], ['u3', 1]]);
    expect(family(out, M.LIVE_QUALITY_LAST_REPORT).map((s) => [s.labels.uid, s.value])).toEqual([
      ['u1', secs(2026, 2, 25, 18)], ['u2', secs(2026, 2, 10)],
    ]);
    expect(out.issues).toMatchObject([{ key: '14' }]);
  });
});

describe('empty answers', () => {
  const families = (out: Converted) => Object.fromEntries([...out.families].map(([name, samples]) => [name, samples.length]));

  it.each([
    ['getPackages data: null', () => convertPackages(getPackagesAnswer.parse({ code: 200, msg: 'ok', data: null }).data), M.PACKAGE_FAMILIES],
    ['getPackages data missing', () => convertPackages(getPackagesAnswer.parse({ code: 200 }).data), M.PACKAGE_FAMILIES],
    ['layer-4 rows: null', () => convertLayer4List(listLayer4PackagesAnswer.parse(paged(null, 0)).rows, tz), M.L4_LIST_FAMILIES],
    ['layer-4 details of none', () => convertLayer4Details([]), M.L4_DETAIL_FAMILIES],
    ['domains []', () => convertDomains(listDomainsAnswer.parse(paged([], 0)).rows, tz), M.DOMAIN_FAMILIES],
    ['certificates rows: null', () => convertCertificates(describeHostingAnswer.parse(paged(null)).rows, tz), M.CERTIFICATE_FAMILIES],
    ['orders []', () => convertLiveOrders(describeHostAcceleratePackOrderAnswer.parse(paged([], 0)).rows, tz), M.LIVE_ORDER_FAMILIES],
    ['reports rows: null', () => convertLiveQuality(describeVQUserDataAnswer.parse(paged(null, 0)).rows, tz), M.LIVE_QUALITY_FAMILIES],
  ])('%s: every family present and empty', (_, convert, defs) => {
    expect(families(convert())).toEqual(Object.fromEntries(defs.map((d) => [d.name, 0])));
  });

  it('cache with no records: three zero series per family', () => {
    const out = convertCacheRecords({ '1': [], '2': [], '3': [] });
    for (const def of M.CACHE_FAMILIES) expect(family(out, def).map((s) => s.value)).toEqual([0, 0, 0]);
  });

  it('getPackages options become info series; a numeric value is text, a repeated one dropped', () => {
    const data = getPackagesAnswer.parse({ code: 200, data: [{ label: 'A', value: 'p1' }, { label: 'B', value: 2 }, { label: 'A2', value: 'p1' }] }).data;
    expect(family(convertPackages(data), M.PACKAGE_INFO).map((s) => s.labels)).toEqual([{ package: 'p1', name: 'A' }, { package: '2', name: 'B' }]);
  });
});

describe('metric definitions', () => {
  it('every family is an edge_ gauge with a help text and allowed label names', () => {
    const forbidden = ['instance', 'job', 'zone', 'region', 'service', 'env'];
    for (const def of M.INVENTORY_FAMILIES) {
      expect(def.name).toMatch(/^edge_[a-z0-9_]+$/);
      expect(def.type).toBe('gauge');
      expect(def.name.endsWith('_total')).toBe(false);
      expect(def.help.length).toBeGreaterThan(10);
      expect(def.labels.filter((l) => forbidden.includes(l))).toEqual([]);
    }
    expect(new Set(M.INVENTORY_FAMILIES.map((d) => d.name)).size).toBe(M.INVENTORY_FAMILIES.length);
  });

  it('state-set help lists every documented state', () => {
    for (const def of [M.L4_PACKAGE_STATE, M.DOMAIN_STATE, M.CERTIFICATE_STATUS, M.LIVE_ORDER_STATUS]) {
      for (const s of def.states) expect(def.help).toContain(s.state);
      expect(def.labels.at(-1)).toBe(def.stateLabel);
    }
  });
});
