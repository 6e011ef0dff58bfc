// The one scrape client both the exporter and the nginx floor are measured
// with: undici over one keep-alive connection, sequential requests (as one
// Prometheus server scrapes a target), each timed from send to last body byte.
import { Pool } from 'undici';
import { since } from './stats.js';

/** Prometheus 2.x's default scrape Accept header: the exporter answers it with OpenMetrics. */
export const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

interface ScrapeOptions {
  /** Send Accept-Encoding: gzip (Prometheus does by default); the body is counted compressed, not inflated. */
  readonly gzip: boolean;
  readonly warmup: number;
  readonly count: number;
  /** Stop early after this long, so a slow target cannot run the benchmark away. */
  readonly maxSeconds: number;
}

export interface ScrapeRun {
  readonly latenciesMs: readonly number[];
  /** Body bytes on the wire of the last scrape. */
  readonly bytes: number;
  readonly contentType: string;
  readonly contentEncoding: string;
}

interface Fetched {
  readonly body: Buffer;
  readonly contentType: string;
  readonly contentEncoding: string;
}

function headers(gzip: boolean): Record<string, string> {
  return { accept: PROMETHEUS_ACCEPT, 'accept-encoding': gzip ? 'gzip' : 'identity' };
}

async function get(pool: Pool, gzip: boolean): Promise<Fetched> {
  const res = await pool.request({ path: '/metrics', method: 'GET', headers: headers(gzip) });
  const chunks: Buffer[] = [];
  for await (const chunk of res.body) chunks.push(Buffer.from(chunk));
  if (res.statusCode !== 200) throw new Error(`GET /metrics answered ${res.statusCode}`);
  const header = (name: string): string => String(res.headers[name] ?? '');
  return { body: Buffer.concat(chunks), contentType: header('content-type'), contentEncoding: header('content-encoding') };
}

/** One scrape's body, for writing the nginx floor's file. */
export async function fetchOnce(url: string, gzip: boolean): Promise<Fetched> {
  const pool = new Pool(url, { connections: 1 });
  try {
    return await get(pool, gzip);
  } finally {
    await pool.close();
  }
}

/**
 * Scrapes every target `count` times, alternating between them (and which
 * goes first in each round), so load from elsewhere on a shared machine falls
 * on all of them alike instead of on whichever ran during a busy spell.
 */
export async function scrapeInterleaved(urls: readonly string[], opts: ScrapeOptions): Promise<ScrapeRun[]> {
  const pools = urls.map((url) => new Pool(url, { connections: 1, pipelining: 1 }));
  const deadline = performance.now() + opts.maxSeconds * 1000;
  const latencies: number[][] = urls.map(() => []);
  const last: Array<Fetched | undefined> = urls.map(() => undefined);
  try {
    for (let i = 0; i < opts.warmup; i++) for (const pool of pools) await get(pool, opts.gzip);
    for (let round = 0; round < opts.count && performance.now() < deadline; round++) {
      const order = pools.map((_, i) => i);
      if (round % 2 === 1) order.reverse();
      for (const i of order) {
        const pool = pools[i];
        if (pool === undefined) continue;
        const start = performance.now();
        last[i] = await get(pool, opts.gzip);
        latencies[i]?.push(since(start));
      }
    }
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
  return urls.map((_, i) => ({
    latenciesMs: latencies[i] ?? [],
    bytes: last[i]?.body.length ?? 0,
    contentType: last[i]?.contentType ?? '',
    contentEncoding: last[i]?.contentEncoding ?? '',
  }));
}
