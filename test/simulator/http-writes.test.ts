import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DAY, params, startSim, T0, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startSim();
});
beforeEach(() => h.sim.reset());
afterAll(() => h.close());

const inUse = () => {
  const p = h.sim.world.l4Packages.find((x) => x.activate === 1 && x.rules.length < x.totalPort);
  if (!p) throw new Error('no package in use');
  return p;
};
const rule = (node: string, hyPort: string) => ({
  hyPort, listenPort: '8080', node, originAddress: '198.51.100.7;198.51.100.8', protocolType: 'tcp', proxyProtocol: 'off', types: 'on', limitConn: '', remark: 'test',
});
const row = async (oid: string) =>
  ((await h.call('listLayer4Packages', { pageNum: 1, pageSize: 50, filters: [{ label: 'oid', value: [oid] }] })).body.rows ?? [])[0] as Record<string, unknown>;

describe('layer-4 rules (11, 12)', () => {
  it('insertRule adds rules: ruleCnt and consumptionPort follow', async () => {
    const p = inUse();
    const node = p.nodes[0]?.[1] ?? '';
    const before = p.rules.length;
    const res = await h.call('insertRule', { oid: p.oid, rules: [rule(node, '30001'), rule(node, '30002')] });
    expect(res.body).toMatchObject({ code: 200 });
    expect((await row(p.oid)).ruleCnt).toBe(before + 2);
    const details = await h.call('getPackageDetails', {}, { pathParams: { oid: p.oid } });
    expect((details.body.data as { consumptionPort: number }).consumptionPort).toBe(before + 2);
  });

  it('updateRule changes a rule in place', async () => {
    const p = inUse();
    const target = p.rules[0];
    if (!target) throw new Error('package without rules');
    const res = await h.call('updateRule', { ...rule(target.node, '31000'), ruleId: target.ruleId, remark: 'changed' });
    expect(res.body).toMatchObject({ code: 200 });
    expect(h.sim.world.l4Packages.flatMap((x) => x.rules).find((r) => r.ruleId === target.ruleId)).toMatchObject({ hyPort: '31000', remark: 'changed' });
    expect((await row(p.oid)).ruleCnt).toBe(p.rules.length);
  });

  it.each([
    ['an unknown package', () => ({ oid: 'nope', rules: [] }), '套餐不存在'],
    ['an unknown node', () => ({ oid: inUse().oid, rules: [rule('no-node', '30001')] }), '实例不存在: no-node'],
    ['a port already used', () => ({ oid: inUse().oid, rules: [rule(inUse().nodes[0]?.[1] ?? '', inUse().rules[0]?.hyPort ?? '')] }), '转发端口已被占用'],
  ])('insertRule refuses %s with a business error', async (_, body, msg) => {
    const res = await h.call('insertRule', body());
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(500);
    expect(res.body.msg).toContain(msg);
  });

  it.each([
    ['a missing field', { ...rule('n', '1'), hyPort: undefined }],
    ['a bad protocolType', { ...rule('n', '1'), protocolType: 'sctp' }],
    ['a bad port', { ...rule('n', '70000') }],
  ])('insertRule refuses %s with HTTP 400', async (_, r) => {
    const res = await h.call('insertRule', { oid: inUse().oid, rules: [r] });
    expect(res.status).toBe(400);
  });

  it('updateRule of an unknown ruleId is a business error', async () => {
    const res = await h.call('updateRule', { ...rule('n', '1'), ruleId: 1 });
    expect(res.body).toEqual({ code: 500, msg: '规则不存在' });
  });

  it('inserting beyond the package ports is refused and changes nothing', async () => {
    const p = inUse();
    const node = p.nodes[0]?.[1] ?? '';
    const free = p.totalPort - p.rules.length;
    const rules = Array.from({ length: free + 1 }, (_, i) => rule(node, String(40000 + i)));
    const res = await h.call('insertRule', { oid: p.oid, rules });
    expect(res.body.code).toBe(500);
    expect((await row(p.oid)).ruleCnt).toBe(p.totalPort - free);
  });
});

describe('certificates on domains (2)', () => {
  it('binds a managed certificate to several domains', async () => {
    const cert = h.sim.world.certificates.find((c) => c.status === 3 && c.endTime > T0 + 30 * DAY);
    const targets = h.sim.world.domains.filter((d) => d.sslsupport === '0').slice(0, 2);
    const res = await h.call('batchUpdateDomainCertInfo', { domainIdList: targets.map((d) => d.id), protocol: 1, source: 1, certId: cert?.certId });
    expect(res.body).toMatchObject({ code: 200 });
    const rows = ((await h.call('listDomains', { filters: [], searchHeader: { isActive: [] }, pageSize: 100 })).body.rows ?? []) as Array<Record<string, unknown>>;
    for (const d of targets) {
      expect(rows.find((r) => r.id === d.id)).toMatchObject({ sslsupport: '1', certEndTime: h.sim.tz.formatDateTime(cert?.endTime ?? 0) });
    }
  });

  it.each([
    ['source 1 without certId', { source: 1 }, 400],
    ['source 0 without key', { source: 0, sslCert: '-----BEGIN CERTIFICATE-----' }, 400],
    ['a bad protocol', { source: 1, certId: 1, protocol: 2 }, 400],
    ['an empty domain list', { source: 1, certId: 1, domainIdList: [] }, 400],
  ])('refuses %s', async (_, extra, status) => {
    const res = await h.call('batchUpdateDomainCertInfo', { domainIdList: [h.sim.world.domains[0]?.id], protocol: 0, ...extra });
    expect(res.status).toBe(status);
  });

  it.each([
    ['an unknown domain', () => ({ domainIdList: [1], source: 1, certId: h.sim.world.certificates[0]?.certId }), '域名不存在: 1'],
    ['an unknown certificate', () => ({ domainIdList: [h.sim.world.domains[0]?.id], source: 1, certId: 1 }), '证书不存在'],
    ['a certificate not issued', () => ({ domainIdList: [h.sim.world.domains[0]?.id], source: 1, certId: h.sim.world.certificates.find((c) => c.status !== 3)?.certId }), '证书未签发,无法部署'],
    ['a self-owned certificate without PEM', () => ({ domainIdList: [h.sim.world.domains[0]?.id], source: 0, sslCert: 'x', sslKey: 'y' }), '证书或私钥格式错误'],
  ])('refuses %s with a business error', async (_, body, msg) => {
    const res = await h.call('batchUpdateDomainCertInfo', { protocol: 0, ...body() });
    expect(res.body).toEqual({ code: 500, msg });
  });
});

describe('URL warm-up (16)', () => {
  it('adds one preload record per URL, successful for the account domains', async () => {
    const domain = h.sim.world.domains[0]?.domainName ?? '';
    h.sim.clock.set(T0 + 1000);
    const res = await h.call('pushUrlsCache', { urls: [`https://${domain}/a.js`, 'https://elsewhere.example.org/b.js'], area: 'mainland', parseM3U8: false, urlEncode: true });
    h.sim.clock.set(T0);
    expect(res.body).toMatchObject({ code: 200 });
    const list = await h.call('getCacheRecordList', { type: '1', pageNum: 1, pageSize: 2, params: params(T0, T0 + 1000), search: '' });
    h.sim.clock.set(T0 + 1000);
    const later = await h.call('getCacheRecordList', { type: '1', pageNum: 1, pageSize: 2, params: params(T0, T0 + 1000) });
    h.sim.clock.set(T0);
    expect(list.body.total).toBe(0);
    expect(later.body.rows).toEqual([
      expect.objectContaining({ value: 'https://elsewhere.example.org/b.js', total: 1, success: 0, ctime: (T0 + 1000) / 1000 }),
      expect.objectContaining({ value: `https://${domain}/a.js`, total: 1, success: 1 }),
    ]);
  });

  it.each([
    ['no urls', {}],
    ['an empty list', { urls: [] }],
    ['an unknown area', { urls: ['https://a.example.com/'], area: 'moon' }],
    ['a non-boolean flag', { urls: ['https://a.example.com/'], parseM3U8: 'yes' }],
  ])('refuses %s with HTTP 400', async (_, body) => {
    expect((await h.call('pushUrlsCache', body)).status).toBe(400);
  });
});
