// The inventory collector against the simulator on a pinned clock, through a
// real EdgeClient. Expected values come from the simulator's world (and, for
// orders and reports, from one unpaged list call), never from the collector.
import { describe, expect, it } from 'vitest';
import { createInventoryCollector, type InventoryOptions } from '../../../src/collectors/inventory/index.js';
import * as M from '../../../src/collectors/inventory/metrics.js';
import type { CollectContext, Targets } from '../../../src/collectors/collector.js';
import { allTargets, byLabel, context as contextOf, current, DAY, family, T0, useSimulator, type LogRecord } from './helpers.js';
import { ArgumentError } from '../../../src/shared/errors.js';

const PAGE = 3;
const OPTIONS: InventoryOptions = { details: true, cacheWindowMs: DAY, pageSize: PAGE };
const h = useSimulator();
const client = () => h.client();
const context = (c: ReturnType<typeof client>, over: { enabled?: (family: string) => boolean; targets?: Targets; logs?: LogRecord[] } = {}): CollectContext =>
  contextOf(h.sim, c, over);

const DOMAIN_STATE_OF = { '0': 'configuring', '1': 'active', '2': 'paused' } as const;
const L4_STATE_OF: Record<string, string> = { '0': 'pending_payment', '-1': 'unsubscribed', '1': 'in_use', '3': 'closed', '4': 'configuring' };
const CERT_STATUS_OF = ['uploaded', 'pending_verification', 'processing', 'issued', 'verification_failed'];
const ORDER_STATUS_OF = ['not_activated', 'active', 'expired'];

describe('inventory collector against the simulator', () => {
  it('returns every family with the world values, paging every list to the end', async () => {
    const collector = createInventoryCollector(OPTIONS);
    const logs: LogRecord[] = [];
    const out = await collector.collect(context(client(), { logs }));
    const counts = h.sim.requestCounts();
    const world = h.sim.world;

    expect(out.errors).toEqual([]);
    expect(out.increments).toEqual([]);
    expect(out.watermarks).toEqual({});
    expect([...out.gauges.keys()].sort()).toEqual(M.INVENTORY_FAMILIES.map((f) => f.name).sort());
    expect(logs.filter((l) => l.level === 'warn')).toEqual([]);

    // Domains: one info series and exactly one state at 1 each.
    expect(family(out, M.DOMAIN_INFO).map((s) => s.labels)).toEqual(world.domains.map((d) => ({
      domain: d.domainName, package: d.doid, cname: `${d.cNamePre}${d.cNameSuf}`,
    })));
    const domainStates = current(family(out, M.DOMAIN_STATE), 'domain', 'state');
    expect(family(out, M.DOMAIN_STATE)).toHaveLength(world.domains.length * M.DOMAIN_STATES.length);
    for (const d of world.domains) expect(domainStates.get(d.domainName), d.domainName).toEqual([DOMAIN_STATE_OF[d.isActive]]);
    expect(Object.fromEntries(byLabel(family(out, M.DOMAIN_SSL_ENABLED), 'domain'))).toEqual(
      Object.fromEntries(world.domains.map((d) => [d.domainName, d.sslsupport === '1' ? 1 : 0])));
    const certEnd = new Map(world.certificates.map((c) => [c.certId, c.endTime / 1000]));
    const withCert = world.domains.filter((d) => d.certEndTime !== null);
    expect(withCert.length).toBeGreaterThan(0);
    expect(Object.fromEntries(byLabel(family(out, M.DOMAIN_CERT_EXPIRY), 'domain'))).toEqual(
      Object.fromEntries(withCert.map((d) => [d.domainName, certEnd.get(d.certId ?? -1)])));

    // Certificates.
    expect(Object.fromEntries(byLabel(family(out, M.CERTIFICATE_EXPIRY), 'cert_id'))).toEqual(
      Object.fromEntries(world.certificates.map((c) => [String(c.certId), c.endTime / 1000])));
    const certStates = current(family(out, M.CERTIFICATE_STATUS), 'cert_id', 'status');
    for (const c of world.certificates) expect(certStates.get(String(c.certId))).toEqual([CERT_STATUS_OF[c.status]]);
    expect(family(out, M.CERTIFICATE_INFO).map((s) => s.labels)).toEqual(world.certificates.map((c) => ({
      cert_id: String(c.certId), alias: c.alias, subject: c.subjectDN, issuer: c.issuerDN,
    })));

    // Layer-4 packages (the list is newest first, so compare as maps).
    const l4 = world.l4Packages;
    const of = (def: { name: string }) => Object.fromEntries(byLabel(family(out, def), 'oid'));
    expect(of(M.L4_PACKAGE_PORTS_USED)).toEqual(Object.fromEntries(l4.map((p) => [p.oid, p.rules.length])));
    expect(of(M.L4_PACKAGE_PORTS)).toEqual(Object.fromEntries(l4.map((p) => [p.oid, p.totalPort])));
    expect(of(M.L4_PACKAGE_RULES)).toEqual(Object.fromEntries(l4.map((p) => [p.oid, p.rules.length])));
    const expiring = l4.filter((p) => p.mday !== null);
    expect(expiring.length).toBeLessThan(l4.length);
    expect(of(M.L4_PACKAGE_EXPIRY)).toEqual(Object.fromEntries(expiring.map((p) => [p.oid, (p.mday ?? 0) / 1000])));
    expect(of(M.L4_PACKAGE_TIME_LEFT)).toEqual(Object.fromEntries(expiring.map((p) => [p.oid, Math.ceil(((p.mday ?? 0) - T0) / DAY) * 86_400])));
    const l4States = current(family(out, M.L4_PACKAGE_STATE), 'oid', 'state');
    for (const p of l4) expect(l4States.get(p.oid)).toEqual([L4_STATE_OF[String(p.activate)]]);
    expect(new Set(family(out, M.L4_PACKAGE_INFO).map((s) => `${s.labels.oid}/${s.labels.official}`))).toEqual(
      new Set(l4.map((p) => `${p.oid}/${p.isTest === 1}`)));

    // Packages: every getPackages option.
    expect(new Set(family(out, M.PACKAGE_INFO).map((s) => s.labels.package))).toEqual(new Set(allTargets(h.sim).packages));

    // Cache records created in [T0 - 1 day, T0], per type.
    const inWindow = world.cacheRecords.filter((r) => r.ctime * 1000 >= T0 - DAY && r.ctime * 1000 <= T0);
    const sums = (pick: (r: (typeof inWindow)[number]) => number) => ({
      url_preload: inWindow.filter((r) => r.type === 1).reduce((a, r) => a + pick(r), 0),
      url_refresh: inWindow.filter((r) => r.type === 2).reduce((a, r) => a + pick(r), 0),
      dir_refresh: inWindow.filter((r) => r.type === 3).reduce((a, r) => a + pick(r), 0),
    });
    const cache = (def: { name: string }) => Object.fromEntries(byLabel(family(out, def), 'type'));
    expect(inWindow.length).toBeGreaterThan(0);
    expect(cache(M.CACHE_TASK_URLS)).toEqual(sums((r) => r.total));
    expect(cache(M.CACHE_TASK_URLS_SUCCEEDED)).toEqual(sums((r) => r.success));
    expect(cache(M.CACHE_TASKS)).toEqual(sums(() => 1));

    // Orders and reports: the same lists read in one page each.
    const check = client();
    const orders = (await check.describeHostAcceleratePackOrder({ pageNum: 1, pageSize: 1000 })).rows;
    const reports = (await check.describeVQUserData({ pageNum: 1, pageSize: 1000 })).rows;
    expect(new Set(orders.map((o) => o.status))).toEqual(new Set([0, 1, 2]));
    const orderStates = current(family(out, M.LIVE_ORDER_STATUS), 'order_id', 'status');
    expect(orderStates.size).toBe(orders.length);
    for (const o of orders) expect(orderStates.get(o.orderId)).toEqual([ORDER_STATUS_OF[o.status]]);
    expect(Object.fromEntries(byLabel(family(out, M.LIVE_ORDER_END), 'order_id'))).toEqual(
      Object.fromEntries(orders.map((o) => [o.orderId, Date.parse(`${o.endTime.replace(' ', 'T')}+08:00`) / 1000])));
    const perUid = new Map<string, number>();
    for (const r of reports) perUid.set(r.uid, (perUid.get(r.uid) ?? 0) + 1);
    expect(Object.fromEntries(byLabel(family(out, M.LIVE_QUALITY_REPORTS), 'uid'))).toEqual(Object.fromEntries(perUid));
    expect(family(out, M.LIVE_QUALITY_LAST_REPORT)).toHaveLength(perUid.size);

    // Paging: every list read page by page to its total, one details call per package.
    // A list takes ceil(rows / page) requests, and one (answered empty) when it has no rows.
    const pages = (n: number) => Math.max(1, Math.ceil(n / PAGE));
    const ofType = (t: number) => pages(inWindow.filter((r) => r.type === t).length);
    expect(counts).toMatchObject({
      getPackages: 1, listLayer4Packages: pages(l4.length), getPackageDetails: l4.length, listDomains: pages(world.domains.length),
      describeHosting: pages(world.certificates.length), getCacheRecordList: ofType(1) + ofType(2) + ofType(3),
      describeHostAcceleratePackOrder: pages(orders.length), describeVQUserData: pages(reports.length),
    });
  });

  it('sums the cache records of a longer window', async () => {
    const out = await createInventoryCollector({ ...OPTIONS, cacheWindowMs: 8 * DAY }).collect(context(client()));
    const world = h.sim.world.cacheRecords;
    expect(Object.fromEntries(byLabel(family(out, M.CACHE_TASKS), 'type'))).toEqual({
      url_preload: world.filter((r) => r.type === 1).length, url_refresh: world.filter((r) => r.type === 2).length,
      dir_refresh: world.filter((r) => r.type === 3).length,
    });
  });

  it('a failing list costs only its own families; the error is reported', async () => {
    h.sim.faults.set([{ status5xx: 500, operations: ['describeHosting'] }]);
    const out = await createInventoryCollector(OPTIONS).collect(context(client()));
    for (const def of M.CERTIFICATE_FAMILIES) expect(out.gauges.has(def.name), def.name).toBe(false);
    const others = M.INVENTORY_FAMILIES.filter((f) => !M.CERTIFICATE_FAMILIES.some((c) => c.name === f.name));
    for (const def of others) expect(out.gauges.has(def.name), def.name).toBe(true);
    expect(out.errors).toHaveLength(1);
    expect(out.errors[0]).toMatchObject({ code: 'EDGE_HTTP', operation: 'describeHosting', status: 500 });
  });

  it('failing layer-4 details cost only the ports families', async () => {
    h.sim.faults.set([{ status5xx: 503, operations: ['getPackageDetails'], count: 1 }]);
    const out = await createInventoryCollector(OPTIONS).collect(context(client()));
    for (const def of M.L4_DETAIL_FAMILIES) expect(out.gauges.has(def.name)).toBe(false);
    for (const def of M.L4_LIST_FAMILIES) expect(family(out, def).length).toBeGreaterThan(0);
    expect(out.errors).toMatchObject([{ operation: 'getPackageDetails', status: 503 }]);
  });

  it('throws when every resource fails', async () => {
    h.sim.faults.set([{ status5xx: 500 }]);
    await expect(createInventoryCollector(OPTIONS).collect(context(client()))).rejects.toThrow(AggregateError);
  });

  it('denied families cost no request', async () => {
    const denied = (f: string) => f.startsWith('edge_certificate_') || f.startsWith('edge_live_') || f.startsWith('edge_cache_')
      || f === M.L4_PACKAGE_PORTS.name || f === M.L4_PACKAGE_PORTS_USED.name || f === M.DOMAIN_INFO.name;
    const out = await createInventoryCollector(OPTIONS).collect(context(client(), { enabled: (f) => !denied(f) }));
    const counts = h.sim.requestCounts();
    for (const op of ['describeHosting', 'describeHostAcceleratePackOrder', 'describeVQUserData', 'getCacheRecordList', 'getPackageDetails'] as const) {
      expect(counts[op], op).toBeUndefined();
    }
    // A resource with one allowed family is still read, and only the allowed families come back.
    expect(counts.listDomains).toBeGreaterThan(0);
    expect([...out.gauges.keys()].sort()).toEqual(M.INVENTORY_FAMILIES.map((f) => f.name).filter((f) => !denied(f)).sort());
  });

  it('without details, no details request and no ports families', async () => {
    const collector = createInventoryCollector({ ...OPTIONS, details: false });
    expect(collector.operations).not.toContain('getPackageDetails');
    expect(collector.families.map((f) => f.name)).not.toContain(M.L4_PACKAGE_PORTS.name);
    const out = await collector.collect(context(client()));
    expect(h.sim.requestCounts().getPackageDetails).toBeUndefined();
    expect(out.gauges.has(M.L4_PACKAGE_PORTS_USED.name)).toBe(false);
    expect(out.gauges.has(M.L4_PACKAGE_RULES.name)).toBe(true);
  });

  it('reports the whole account whatever the targets, and a domain gone upstream is gone from the next cycle', async () => {
    const collector = createInventoryCollector(OPTIONS);
    const names = h.sim.world.domains.map((d) => d.domainName);
    const first = await collector.collect(context(client(), { targets: { domains: names.slice(0, 4), packages: [] } }));
    expect(family(first, M.DOMAIN_INFO).map((s) => s.labels.domain)).toEqual(names);
    expect(family(first, M.PACKAGE_INFO).length).toBeGreaterThan(0);

    const gone = h.sim.world.domains.splice(1, 1)[0]?.domainName;
    h.sim.clock.advance(60_000);
    const next = await collector.collect(context(client()));
    const left = family(next, M.DOMAIN_STATE).map((s) => s.labels.domain);
    expect(left).not.toContain(gone);
    expect(new Set(left)).toEqual(new Set(names.filter((n) => n !== gone)));
  });

  it('`data: null` from getPackages empties the package family instead of failing', async () => {
    h.sim.faults.set([{ dataNull: true, operations: ['getPackages'] }]);
    const out = await createInventoryCollector(OPTIONS).collect(context(client()));
    expect(family(out, M.PACKAGE_INFO)).toEqual([]);
    expect(out.errors).toEqual([]);
  });
});

describe('createInventoryCollector', () => {
  it('names itself and lists its operations and families', () => {
    const c = createInventoryCollector({ details: true, cacheWindowMs: DAY });
    expect(c.name).toBe('inventory');
    expect(c.families).toEqual(M.INVENTORY_FAMILIES);
    expect([...c.operations].sort()).toEqual([
      'describeHostAcceleratePackOrder', 'describeHosting', 'describeVQUserData', 'getCacheRecordList',
      'getPackageDetails', 'getPackages', 'listDomains', 'listLayer4Packages',
    ]);
  });

  it.each([
    [{ details: false, cacheWindowMs: 0 }],
    [{ details: false, cacheWindowMs: Number.NaN }],
    [{ details: false, cacheWindowMs: DAY, pageSize: 0 }],
    [{ details: false, cacheWindowMs: DAY, maxPages: 1.5 }],
  ])('rejects %j', (options) => {
    expect(() => createInventoryCollector(options)).toThrow(ArgumentError);
  });
});
