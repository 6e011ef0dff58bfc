// Hosted certificates and cache refresh/preload records of the simulated
// account. Certificate expiries are spread around "now" on purpose so the
// 7-day and 30-day expiry filters, expired certificates and every status code
// all have examples.
import { hash32, Rng } from './rng.js';
import { DAY_MS, HOUR_MS } from '../api/time.js';

export interface Certificate {
  readonly certId: number;
  /** 0 uploaded, 1 pending verification, 2 processing, 3 issued, 4 verification failed. */
  readonly status: number;
  readonly dnsName: string;
  readonly alias: string;
  readonly sslcrt: string;
  readonly subjectDN: string;
  readonly issuerDN: string;
  /** Expiry, epoch ms (whole seconds). */
  readonly endTime: number;
  /** Submission, epoch ms (whole seconds). */
  readonly createTime: number;
}

/** Cache record type: 1 URL preload, 2 URL refresh, 3 directory refresh. */
export type CacheType = 1 | 2 | 3;

export interface CacheRecord {
  readonly id: number;
  readonly type: CacheType;
  readonly value: string;
  /** Epoch seconds. */
  readonly ctime: number;
  readonly total: number;
  readonly success: number;
}

/** [days from now until expiry, status]: expired, within 7 days, within 30 days, later. */
const CERT_EXPIRIES: ReadonlyArray<readonly [number, number]> = [
  [-20, 3], [-1, 3], [2, 3], [5, 0], [6, 3], [12, 3], [25, 1], [29, 3], [60, 2], [120, 3], [300, 4], [400, 3],
];
const ISSUERS = ['Encryption Everywhere DV TLS CA - G2', 'GeoTrust CN RSA CA G1', 'DigiCert Secure Site OV CA', 'RapidSSL TLS RSA CA G1'] as const;

interface CertOptions {
  seed: number;
  now: number;
  domainCount: number;
}

export function buildCertificates({ seed, now, domainCount }: CertOptions): Certificate[] {
  const rng = new Rng(hash32(seed, 'certs'));
  const idBase = 7000 + (hash32(seed, 'cert-ids') % 1000) * 10;
  const extra = Math.max(0, Math.ceil(domainCount / 2) - CERT_EXPIRIES.length);
  const expiries = [...CERT_EXPIRIES, ...Array.from({ length: extra }, () => [rng.int(31, 400), 3] as const)];
  return expiries.map(([days, status], k) => {
    const site = `site-${String((k % domainCount) + 1).padStart(3, '0')}.example.com`;
    const endTime = second(now + days * DAY_MS + rng.int(1, 20) * HOUR_MS);
    const validity = rng.pick([90, 365]) * DAY_MS;
    const createTime = second(Math.min(endTime - validity, now - rng.int(1, 30) * DAY_MS));
    return {
      certId: idBase + k,
      status,
      dnsName: `${site},www.${site}`,
      alias: `cert-${site.slice(0, 8)}-${k + 1}`,
      sslcrt: fakePem(seed, k),
      subjectDN: `*.${site}`,
      issuerDN: rng.pick(ISSUERS),
      endTime,
      createTime,
    };
  });
}

function second(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

function fakePem(seed: number, k: number): string {
  const body = Array.from({ length: 4 }, (_, i) => hash32(seed, 'pem', k, i).toString(36)).join('');
  const base64 = Buffer.from(`simulated certificate ${body}`).toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`;
}

const PATHS = ['/index.html', '/static/app.js', '/static/app.css', '/img/banner.jpg', '/video/intro.m3u8'] as const;
const DIRS = ['/static/', '/img/', '/download/'] as const;
const PER_TYPE = 20;

export function buildCacheRecords(seed: number, now: number, domains: readonly string[]): CacheRecord[] {
  const rng = new Rng(hash32(seed, 'cache'));
  const nowS = Math.floor(now / 1000);
  const drafts = ([1, 2, 3] as const).flatMap((type) =>
    Array.from({ length: PER_TYPE }, () => {
      const host = domains[rng.int(0, domains.length - 1)] ?? 'www.example.com';
      const total = type === 3 ? rng.int(1, 40) : 1;
      return {
        type,
        value: `https://${host}${type === 3 ? rng.pick(DIRS) : rng.pick(PATHS)}`,
        ctime: nowS - rng.int(60, 7 * 86_400),
        total,
        success: rng.chance(0.85) ? total : rng.int(0, total - 1),
      };
    }));
  // Ids grow with time, as an auto-increment key would.
  drafts.sort((a, b) => a.ctime - b.ctime || a.type - b.type);
  const idBase = 90_000 + (hash32(seed, 'cache-ids') % 10_000) * 10;
  return drafts.map((d, i) => ({ id: idBase + i, ...d }));
}
