// Write operations that change the simulated account: certificate binding (2),
// layer-4 rules (11, 12) and URL warm-up (16). Each write is all-or-nothing:
// the whole request is checked before anything changes.
import { X509Certificate } from 'node:crypto';
import { ok, type HandlerTable, type SimRequest } from '../types.js';
import type { SimContext } from '../context.js';
import type { L4Package, L4Rule } from '../world.js';
import {
  BadRequest, BusinessError, guard, obj, oneOf, optArr, optBool, optStr, reqArr, reqInt, reqStr, strings, type Obj,
} from './common.js';
import { findL4 } from './inventory.js';

const AREAS = ['mainland', 'overseas', 'global'] as const;
const PORT_RE = /^\d{1,5}$/;

export function writeHandlers(ctx: SimContext): HandlerTable {
  return {
    batchUpdateDomainCertInfo: guard((req) => bindCertificate(ctx, req)),
    insertRule: guard((req) => insertRules(ctx, req)),
    updateRule: guard((req) => updateRule(ctx, req)),
    pushUrlsCache: guard((req) => pushUrls(ctx, req)),
  };
}

function bindCertificate(ctx: SimContext, req: SimRequest) {
  const b = obj(req.body);
  const ids = reqArr(b, 'domainIdList').map((v, i) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new BadRequest(`domainIdList[${i}] must be an integer`);
    return v;
  });
  if (ids.length === 0) throw new BadRequest('domainIdList must not be empty');
  const protocol = reqInt(b, 'protocol');
  if (protocol !== 0 && protocol !== 1) throw new BadRequest('protocol must be 0 or 1');
  const source = reqInt(b, 'source');
  if (source !== 0 && source !== 1) throw new BadRequest('source must be 0 or 1');
  const certEnd = source === 1 ? managedCertEnd(ctx, reqInt(b, 'certId')) : ownCertEnd(reqStr(b, 'sslCert'), reqStr(b, 'sslKey'));
  const missing = ids.filter((id) => !ctx.world.domains.some((d) => d.id === id));
  if (missing.length > 0) throw new BusinessError(`域名不存在: ${missing.join(',')}`);
  for (const d of ctx.world.domains.filter((x) => ids.includes(x.id))) {
    d.sslsupport = '1';
    d.protocol = protocol;
    d.certId = certEnd.certId;
    d.certEndTime = certEnd.endTime === null ? null : ctx.tz.formatDateTime(certEnd.endTime);
  }
  return ok();
}

function managedCertEnd(ctx: SimContext, certId: number): { certId: number; endTime: number } {
  const cert = ctx.world.certificates.find((c) => c.certId === certId);
  if (!cert) throw new BusinessError('证书不存在');
  // Only an issued certificate (status 3) can be deployed.
  if (cert.status !== 3) throw new BusinessError('证书未签发,无法部署');
  return { certId, endTime: cert.endTime };
}

/** A self-owned certificate: its expiry is read when it parses as X.509, else unknown (null, as in the sample). */
function ownCertEnd(sslCert: string, sslKey: string): { certId: null; endTime: number | null } {
  if (!sslCert.includes('BEGIN CERTIFICATE') || !sslKey.includes('PRIVATE KEY')) throw new BusinessError('证书或私钥格式错误');
  try {
    return { certId: null, endTime: Date.parse(new X509Certificate(sslCert).validTo) };
  } catch {
    return { certId: null, endTime: null };
  }
}

type RuleFields = Omit<L4Rule, 'ruleId'>;

function readRule(raw: unknown, path: string): RuleFields {
  const r = obj(raw, path);
  const port = (key: string): string => {
    const v = reqStr(r, key);
    if (!PORT_RE.test(v) || Number(v) < 1 || Number(v) > 65535) throw new BadRequest(`${path}.${key} must be a port number`);
    return v;
  };
  const limit = r.limitConn;
  if (!(limit === undefined || limit === null || limit === '' || (typeof limit === 'number' && Number.isSafeInteger(limit) && limit >= 0))) {
    throw new BadRequest(`${path}.limitConn must be a non-negative integer or ''`);
  }
  return {
    hyPort: port('hyPort'),
    listenPort: port('listenPort'),
    node: reqStr(r, 'node'),
    originAddress: reqStr(r, 'originAddress'),
    protocolType: oneOf(reqStr(r, 'protocolType'), ['tcp', 'udp'] as const, `${path}.protocolType`),
    proxyProtocol: oneOf(reqStr(r, 'proxyProtocol'), ['off', 'on'] as const, `${path}.proxyProtocol`),
    types: oneOf(reqStr(r, 'types'), ['off', 'on'] as const, `${path}.types`),
    limitConn: typeof limit === 'number' ? limit : '',
    remark: optStr(r, 'remark') ?? '',
  };
}

/** Business checks a rule must pass inside its package (ports are one per rule). */
function checkRule(p: L4Package, rule: RuleFields, others: readonly { hyPort: string }[]): void {
  if (!p.nodes.some(([, id]) => id === rule.node)) throw new BusinessError(`实例不存在: ${rule.node}`);
  if (others.some((o) => o.hyPort === rule.hyPort)) throw new BusinessError(`转发端口已被占用: ${rule.hyPort}`);
}

function usablePackage(ctx: SimContext, oid: string): L4Package {
  const p = findL4(ctx, oid);
  if (!p) throw new BusinessError('套餐不存在');
  // Rules can be changed on packages in use (1) or being configured (4) only.
  if (p.activate !== 1 && p.activate !== 4) throw new BusinessError('套餐状态不允许配置规则');
  return p;
}

function insertRules(ctx: SimContext, req: SimRequest) {
  const b = obj(req.body);
  const p = usablePackage(ctx, reqStr(b, 'oid'));
  const fresh = (optArr(b, 'rules') ?? []).map((r, i) => readRule(r, `rules[${i}]`));
  fresh.forEach((rule, i) => checkRule(p, rule, [...p.rules, ...fresh.slice(0, i)]));
  if (p.rules.length + fresh.length > p.totalPort) throw new BusinessError('可用端口数量不足');
  for (const rule of fresh) p.rules.push({ ruleId: ctx.world.nextRuleId++, ...rule });
  if (fresh.length > 0) p.utime = Math.floor(req.now / 1000);
  return ok();
}

function updateRule(ctx: SimContext, req: SimRequest) {
  const b: Obj = obj(req.body);
  const ruleId = reqInt(b, 'ruleId');
  const fields = readRule(b, 'body');
  const p = ctx.world.l4Packages.find((x) => x.rules.some((r) => r.ruleId === ruleId));
  const rule = p?.rules.find((r) => r.ruleId === ruleId);
  if (!p || !rule) throw new BusinessError('规则不存在');
  usablePackage(ctx, p.oid);
  checkRule(p, fields, p.rules.filter((r) => r !== rule));
  Object.assign(rule, fields);
  p.utime = Math.floor(req.now / 1000);
  return ok();
}

/** Each URL becomes a preload record (type 1); it succeeds when its host is a domain of the account. */
function pushUrls(ctx: SimContext, req: SimRequest) {
  const b = obj(req.body);
  const urls = strings(reqArr(b, 'urls'), 'urls');
  if (urls.length === 0) throw new BadRequest('urls must not be empty');
  const area = optStr(b, 'area');
  if (area !== undefined) oneOf(area, AREAS, 'area');
  optBool(b, 'parseM3U8');
  optBool(b, 'urlEncode');
  const hosts = new Set(ctx.world.domains.map((d) => d.domainName));
  const ctime = Math.floor(req.now / 1000);
  for (const value of urls) {
    ctx.world.cacheRecords.push({ id: ctx.world.nextCacheId++, type: 1, value, ctime, total: 1, success: hosts.has(hostOf(value)) ? 1 : 0 });
  }
  return ok();
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
