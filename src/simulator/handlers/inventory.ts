// Read-only inventory operations: packages (3, 9, 10), domains (13), hosted
// certificates (14) and cache records (15). Lists are paged after filtering;
// `total` is the number of rows matching the query, before paging.
import { fail, ok, type HandlerTable, type SimRequest } from '../types.js';
import type { SimContext } from '../context.js';
import { DAY_MS, type Domain, type L4Package } from '../world.js';
import { daysToExpiry } from '../world-l4.js';
import {
  guard, obj, oneOf, optArr, optInt, optStr, pageOf, paging, reqArr, reqStr, searchFilters, strings, timeRange, BadRequest,
} from './common.js';

const ACTIVATE_CODES = ['0', '-1', '1', '3', '4'] as const;
const DOMAIN_STATES = ['0', '1', '2'] as const;
const CERT_END_DAYS = ['7', '30'] as const;
const CACHE_TYPES = ['1', '2', '3'] as const;

export function inventoryHandlers(ctx: SimContext): HandlerTable {
  return {
    getPackages: () => ok({
      data: [...ctx.world.l7Packages.map((p) => ({ label: p.name, value: p.alias })),
        ...ctx.world.l4Packages.map((p) => ({ label: p.packageName, value: p.alias }))],
    }),
    listLayer4Packages: guard((req) => listL4(ctx, req)),
    getPackageDetails: guard((req) => packageDetails(ctx, req)),
    listDomains: guard((req) => listDomains(ctx, req)),
    describeHosting: guard((req) => describeHosting(ctx, req)),
    getCacheRecordList: guard((req) => cacheRecords(ctx, req)),
  };
}

/** The oid label (and the sample's oid field) match a package by its oid or its alias. */
export function findL4(ctx: SimContext, oid: string): L4Package | undefined {
  return ctx.world.l4Packages.find((p) => p.oid === oid || p.alias === oid);
}

function listL4(ctx: SimContext, req: SimRequest) {
  const b = obj(req.body);
  const page = paging(b, true);
  let rows = searchFilters(ctx.world.l4Packages, optArr(b, 'filters'), {
    oid: (p) => [p.oid, p.alias],
    packageName: (p) => [p.packageName],
  });
  const header = b.searchHeader === undefined || b.searchHeader === null ? undefined : obj(b.searchHeader, 'searchHeader');
  if (header) {
    const wanted = strings(reqArr(header, 'activate'), 'searchHeader.activate').map((c) => oneOf(c, ACTIVATE_CODES, 'searchHeader.activate[]'));
    if (wanted.length > 0) rows = rows.filter((p) => wanted.some((w) => w === String(p.activate)));
  }
  const oid = optStr(b, 'oid');
  if (oid) rows = rows.filter((p) => p.oid === oid || p.alias === oid);
  rows.sort((a, b2) => b2.ctime - a.ctime || a.oid.localeCompare(b2.oid));
  return ok({ total: rows.length, rows: pageOf(rows, page).map((p) => l4Row(ctx, p, req.now)) });
}

function l4Row(ctx: SimContext, p: L4Package, now: number) {
  return {
    ctime: p.ctime, isTest: p.isTest, oid: p.oid, packageName: p.packageName, ruleCnt: p.rules.length,
    remark: p.remark, activate: p.activate, mday: p.mday === null ? null : ctx.tz.formatDateTime(p.mday),
    lastday: daysToExpiry(p.mday, now), alias: p.alias, cname: p.cname, bandwidth: p.bandwidth,
  };
}

function packageDetails(ctx: SimContext, req: SimRequest) {
  const p = findL4(ctx, req.pathParams.oid ?? '');
  // A path-addressed resource that does not exist: the document lists 404.
  if (!p) return fail(404, 404, '套餐不存在');
  return ok({
    data: {
      oid: p.oid, isTest: p.isTest, alias: p.alias, name: p.packageName, cname: p.cname, fdesc: p.fdesc,
      nodes: p.nodes.map((n) => [...n]), ctime: p.ctime, utime: p.utime,
      packages: ctx.world.l4Packages.map((x) => ({ name: x.packageName, alias: x.alias, oid: x.oid })),
      activate: p.activate, mday: p.mday === null ? null : ctx.tz.formatDateTime(p.mday),
      consumptionPort: p.rules.length, totalPort: p.totalPort, isParsing: 'off',
    },
  });
}

function listDomains(ctx: SimContext, req: SimRequest) {
  const b = obj(req.body);
  const page = paging(b, false);
  const listed = ctx.world.domains.filter((d) => !ctx.world.removed.has(d.domainName));
  let rows = searchFilters(listed, reqArr(b, 'filters'), {
    domainName: (d) => [d.domainName],
    port: (d) => [d.port],
    doid: (d) => [d.doid],
    customerRemark: (d) => [d.customerRemark],
    oid: (d) => [d.doid],
  }, true);
  const header = obj(b.searchHeader, 'searchHeader');
  const states = strings(reqArr(header, 'isActive'), 'searchHeader.isActive').map((s) => oneOf(s, DOMAIN_STATES, 'searchHeader.isActive[]'));
  if (states.length > 0) rows = rows.filter((d) => states.includes(d.isActive));
  const domainId = optInt(b, 'domainId');
  if (domainId !== undefined) rows = rows.filter((d) => d.id === domainId);
  const searchValue = optStr(b, 'searchValue');
  if (searchValue) rows = rows.filter((d) => d.domainName.includes(searchValue));
  return ok({ total: rows.length, rows: pageOf(rows, page).map(domainRow) });
}

function domainRow(d: Domain) {
  return {
    id: d.id, sslsupport: d.sslsupport, domainName: d.domainName, ip: d.ip, port: d.port,
    cNamePre: d.cNamePre, cNameSuf: d.cNameSuf, doid: d.doid, isActive: d.isActive,
    customerRemark: d.customerRemark, alias: d.alias, coreId: d.coreId, waf: d.waf, stopTime: d.stopTime,
    updateTime: d.updateTime, certEndTime: d.certEndTime, wafInternalRulesList: null,
  };
}

function describeHosting(ctx: SimContext, req: SimRequest) {
  const b = obj(req.body);
  const page = paging(b, true);
  let rows = searchFilters(ctx.world.certificates, optArr(b, 'filters'), {
    alias: (c) => [c.alias],
    issuerDN: (c) => [c.issuerDN],
  });
  const header = b.searchHeader === undefined || b.searchHeader === null ? undefined : obj(b.searchHeader, 'searchHeader');
  if (header) {
    const days = optStr(header, 'certEndDay');
    if (days === undefined) throw new BadRequest('searchHeader.certEndDay is required');
    // '' means no expiry filter; 7/30 mean: not yet expired and expiring within that many days.
    if (days !== '') {
      const limit = Number(oneOf(days, CERT_END_DAYS, 'searchHeader.certEndDay')) * DAY_MS;
      rows = rows.filter((c) => c.endTime >= req.now && c.endTime <= req.now + limit);
    }
  }
  return ok({
    total: rows.length,
    rows: pageOf(rows, page).map((c) => ({
      certId: c.certId, status: c.status, dnsName: c.dnsName, alias: c.alias, sslcrt: c.sslcrt,
      subjectDN: c.subjectDN, issuerDN: c.issuerDN, beginTime: null,
      endTime: ctx.tz.formatDateTime(c.endTime), createTime: ctx.tz.formatDateTime(c.createTime),
    })),
  });
}

function cacheRecords(ctx: SimContext, req: SimRequest) {
  const b = obj(req.body);
  const type = Number(oneOf(reqStr(b, 'type'), CACHE_TYPES, 'type'));
  const page = paging(b, true);
  const { begin, end } = timeRange(b, ctx.requestTz);
  const search = optStr(b, 'search');
  // Both ends inclusive: ctime and the range are whole seconds.
  const rows = ctx.world.cacheRecords
    .filter((r) => r.type === type && r.ctime * 1000 >= begin && r.ctime * 1000 <= end && r.ctime * 1000 <= req.now)
    .filter((r) => !search || r.value.includes(search))
    .sort((a, b2) => b2.ctime - a.ctime || b2.id - a.id);
  return ok({ total: rows.length, rows: pageOf(rows, page).map(({ id, value, ctime, total, success }) => ({ id, value, ctime, total, success })) });
}
