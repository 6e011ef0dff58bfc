// The simulated account: domains, packages, layer-4 rules, hosted certificates
// and cache records, built deterministically from a seed. The same
// {seed, domains, now} always gives the same world (ids included). Writes
// (certificate binding, rules, URL pushes) mutate this object; statistics and
// WAF logs are never stored but computed from the seed (stats.ts, waf.ts).
import type { PlatformClock } from '../api/time.js';
import { hash32, Rng } from './rng.js';
import { buildL4Packages, type L4Package } from './world-l4.js';
import { buildCacheRecords, buildCertificates, type CacheRecord, type Certificate } from './world-certs.js';
import { DAY_MS } from '../api/time.js';
import { ArgumentError } from '../shared/errors.js';

export { DAY_MS };

export type { L4Package, L4Rule } from './world-l4.js';
export type { CacheRecord, Certificate } from './world-certs.js';

/** Domain isActive codes: 0 configuring, 1 active/deploying, 2 paused. */
export type DomainState = '0' | '1' | '2';

export interface Domain {
  readonly id: number;
  readonly domainName: string;
  readonly alias: string;
  /** Alias of the layer-7 package the domain belongs to. */
  readonly doid: string;
  readonly isActive: DomainState;
  sslsupport: '0' | '1';
  readonly ip: string;
  readonly port: string;
  readonly cNamePre: string;
  readonly cNameSuf: string;
  readonly customerRemark: string;
  readonly coreId: string;
  readonly waf: string;
  /** Policy group id reported as wafId in WAF logs. */
  readonly wafId: string;
  readonly stopTime: string;
  readonly updateTime: string;
  certEndTime: string | null;
  /** Managed certificate bound by batchUpdateDomainCertInfo (not a row field). */
  certId: number | null;
  /** Origin protocol set by batchUpdateDomainCertInfo (not a row field). */
  protocol: number;
}

export interface L7Package {
  readonly oid: string;
  readonly alias: string;
  readonly name: string;
}

interface WorldOptions {
  seed: number;
  /** Number of domains (default 20). */
  domains?: number;
  /** Epoch ms the world is built at; relative dates (expiry, creation) hang off it. */
  now: number;
  tz: PlatformClock;
}

export interface World {
  readonly seed: number;
  readonly builtAt: number;
  readonly domains: Domain[];
  readonly l7Packages: L7Package[];
  readonly l4Packages: L4Package[];
  readonly certificates: Certificate[];
  readonly cacheRecords: CacheRecord[];
  /**
   * Domains taken out of the account (deleted, expired, moved away): listDomains
   * leaves them out until restored (`POST /__admin/domains`). Their data stays
   * computable, so one restored counts on from the same truth.
   */
  readonly removed: Set<string>;
  /** Next id handed out by insertRule / pushUrlsCache. */
  nextRuleId: number;
  nextCacheId: number;
}

const PREFIXES = ['www', 'api', 'img', 'static', 'live', 'm', 'shop', 'cdn'] as const;
const REMARKS = ['', '', '官网', '活动页', '图片站', 'app 接口'] as const;

export function createWorld(options: WorldOptions): World {
  const { seed, now, tz } = options;
  const count = options.domains ?? 20;
  if (!Number.isInteger(count) || count < 1) throw new ArgumentError(`domains must be a positive integer, got ${count}`);
  const l7Packages = buildL7Packages(seed, count);
  const certificates = buildCertificates({ seed, now, domainCount: count });
  const domains = buildDomains(seed, count, now, tz, l7Packages, certificates);
  const l4Packages = buildL4Packages(seed, now);
  const cacheRecords = buildCacheRecords(seed, now, domains.map((d) => d.domainName));
  const maxRule = Math.max(0, ...l4Packages.flatMap((p) => p.rules.map((r) => r.ruleId)));
  const maxCache = Math.max(0, ...cacheRecords.map((r) => r.id));
  return {
    seed, builtAt: now, domains, l7Packages, l4Packages, certificates, cacheRecords, removed: new Set(),
    nextRuleId: maxRule + 1, nextCacheId: maxCache + 1,
  };
}

function buildL7Packages(seed: number, domainCount: number): L7Package[] {
  const n = Math.max(2, Math.ceil(domainCount / 6));
  const base = 20_000_000 + (hash32(seed, 'l7') % 1_000_000) * 10;
  return Array.from({ length: n }, (_, k) => ({
    oid: `CDN${base + k}`,
    alias: `cdn-pkg-${String(k + 1).padStart(2, '0')}`,
    name: `全站加速套餐 ${String.fromCharCode(65 + (k % 26))}${k >= 26 ? k : ''}`,
  }));
}

/** isActive by position: every 10th domain (from the 5th) configuring, every 10th (from the 10th) paused. */
function domainState(i: number): DomainState {
  if (i % 10 === 4) return '0';
  if (i % 10 === 9) return '2';
  return '1';
}

function buildDomains(
  seed: number, count: number, now: number, tz: PlatformClock,
  packages: readonly L7Package[], certs: readonly Certificate[],
): Domain[] {
  const rng = new Rng(hash32(seed, 'domains'));
  const idBase = 1000 + (hash32(seed, 'domain-ids') % 9000) * 10;
  const managed = certs.filter((c) => c.status === 3);
  return Array.from({ length: count }, (_, i) => {
    const site = `site-${String(i + 1).padStart(3, '0')}`;
    const domainName = `${rng.pick(PREFIXES)}.${site}.example.com`;
    const isActive = domainState(i);
    const cert = rng.chance(0.6) ? (managed[i % Math.max(1, managed.length)] ?? null) : null;
    const origins = Array.from({ length: rng.int(1, 3) }, () => `198.51.100.${rng.int(2, 250)}`);
    const created = now - rng.int(30, 700) * DAY_MS - rng.int(0, DAY_MS / 1000) * 1000;
    return {
      id: idBase + i,
      domainName,
      alias: site,
      doid: packages[i % packages.length]?.alias ?? '',
      isActive,
      sslsupport: cert ? '1' : '0',
      ip: origins.join('\n'),
      port: rng.pick(['80', '443', '8080']),
      cNamePre: domainName.replaceAll('.', '-'),
      cNameSuf: '.edge-sim.example.net',
      customerRemark: rng.pick(REMARKS),
      coreId: `core-${(hash32(seed, domainName, 'core') % 0xffffff).toString(16).padStart(6, '0')}`,
      waf: rng.chance(0.8) ? '1' : '0',
      wafId: String(100_000 + (hash32(seed, domainName, 'waf') % 900_000)),
      stopTime: isActive === '2' ? tz.formatDateTime(now - rng.int(1, 20) * DAY_MS) : '',
      updateTime: tz.formatDateTime(created),
      certEndTime: cert ? tz.formatDateTime(cert.endTime) : null,
      certId: cert?.certId ?? null,
      protocol: 1,
    };
  });
}
