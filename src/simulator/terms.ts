// Top-N dimensions (describeL7MostData and the CC-attack breakdowns). A
// domain's total over a range is split over a fixed, seeded set of terms per
// dimension with an exact integer split (largest remainder), so a dimension's
// values always add up to the domain's total and, summed over domains, to the
// all-domain total the trend operations report.
import { hash32 } from './rng.js';

export const MOST_METRICS = [
  'ip', 'http_user_agent', 'domain', 'url', 'status', 'request_method', 'referer', 'protocol', 'server_port',
  'ua_os_name', 'hostname', 'country_name', 'city_name', 'timezone', 'scheme',
] as const;
export type MostMetric = (typeof MOST_METRICS)[number];

const POOLS: Readonly<Record<Exclude<MostMetric, 'ip' | 'domain' | 'url' | 'status'>, readonly string[]>> = {
  http_user_agent: [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/124.0.0.0', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4) Safari/604.1',
    'Mozilla/5.0 (Linux; Android 14) Chrome/124.0.0.0 Mobile', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) Safari/605.1.15',
    'okhttp/4.12.0', 'curl/8.5.0', 'Googlebot/2.1 (+http://www.google.com/bot.html)',
  ],
  request_method: ['GET', 'POST', 'HEAD', 'OPTIONS', 'PUT'],
  referer: ['-', 'https://www.baidu.com/', 'https://www.google.com/', 'https://weibo.com/'],
  protocol: ['HTTP/1.1', 'HTTP/2.0', 'HTTP/3'],
  server_port: ['443', '80'],
  ua_os_name: ['Windows', 'Android', 'iOS', 'Mac OS X', 'Linux', 'Other'],
  hostname: ['edge-gz-01', 'edge-sh-02', 'edge-bj-01', 'edge-sz-03', 'edge-hk-01'],
  country_name: ['中国', '美国', '日本', '新加坡', '德国'],
  city_name: ['广州', '上海', '北京', '深圳', '杭州', '成都', '洛杉矶', '东京'],
  timezone: ['Asia/Shanghai', 'America/Los_Angeles', 'Asia/Tokyo', 'Asia/Singapore', 'Europe/Berlin'],
  scheme: ['https', 'http'],
};

const PATHS = ['/', '/index.html', '/static/app.js', '/static/app.css', '/img/banner.jpg', '/api/v1/items', '/video/live.m3u8', '/favicon.ico'];
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
type StatusClass = (typeof STATUS_CLASSES)[number];
const STATUS_CODES: Readonly<Record<StatusClass, readonly string[]>> = {
  '1xx': ['101'], '2xx': ['200', '206'], '3xx': ['304', '301', '302'], '4xx': ['404', '403', '499'], '5xx': ['502', '500', '504'],
};

/** The terms a domain's traffic spreads over for a dimension (without weights). */
export function termsFor(seed: number, metric: Exclude<MostMetric, 'status'>, domain: string): string[] {
  switch (metric) {
    case 'domain':
      return [domain];
    case 'url':
      return PATHS.map((p) => `${domain}${p}`);
    case 'ip': {
      // 12 client addresses per domain from a shared pool of 48, so some clients hit several domains.
      const first = hash32(seed, domain, 'ip-pool') % 48;
      return Array.from({ length: 12 }, (_, i) => clientIp((first + i * 5) % 48));
    }
    default:
      return [...POOLS[metric]];
  }
}

function clientIp(i: number): string {
  return `${['203.0.113', '198.51.100', '192.0.2'][i % 3]}.${20 + i}`;
}

/**
 * Splits `total` over `terms` by seeded, skewed weights: floor shares plus the
 * remainder one by one to the largest fractional parts (ties by position).
 */
export function split(seed: number, key: string, total: number, terms: readonly string[]): Map<string, number> {
  const weights = terms.map((t, i) => (1 + (hash32(seed, key, t) % 100)) / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const shares = weights.map((w, i) => ({ i, exact: (total * w) / sum }));
  const out = shares.map((s) => Math.floor(s.exact));
  let rest = total - out.reduce((a, b) => a + b, 0);
  const order = [...shares].sort((a, b) => (b.exact - Math.floor(b.exact)) - (a.exact - Math.floor(a.exact)) || a.i - b.i);
  for (const s of order) {
    if (rest <= 0) break;
    out[s.i] = (out[s.i] ?? 0) + 1;
    rest -= 1;
  }
  return new Map(terms.map((t, i) => [t, out[i] ?? 0]));
}

/** Status codes: each status class's count split over that class's codes. */
export function splitStatus(seed: number, domain: string, classes: Readonly<Record<StatusClass, number>>): Map<string, number> {
  const out = new Map<string, number>();
  for (const cls of STATUS_CLASSES) {
    for (const [code, v] of split(seed, `${domain}|status|${cls}`, classes[cls], STATUS_CODES[cls])) out.set(code, v);
  }
  return out;
}

/** Every status code term, for splitting traffic (not requests) by status. */
export const ALL_STATUS_CODES: readonly string[] = STATUS_CLASSES.flatMap((c) => STATUS_CODES[c]);

export function addTo(target: Map<string, number>, add: ReadonlyMap<string, number>): void {
  for (const [k, v] of add) target.set(k, (target.get(k) ?? 0) + v);
}
