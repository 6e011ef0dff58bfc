// What the state-directory daemon tests share: a config polling the
// simulator with the access collector alone, the simulator's ground truth of
// what the access counters must hold, and the counters read back from an
// exposition.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastSettledStart } from '../../src/collectors/buckets.js';
import type { Simulator } from '../../src/simulator/index.js';

export const MIN = 60_000;
/** The simulator's revision delay, and so the access collector's: a bucket is counted once it is final. */
export const DELAY_MS = 3 * MIN;
/** The platform zone is UTC+8; whole hours, so 1-minute buckets align on epoch minutes anyway. */
const OFFSET_MINUTES = 480;
export const TOKEN = 'state-test-token-3c1d';

interface ConfigOptions {
  readonly apiUrl: string;
  readonly stateDir: string;
  readonly recovery?: 'fail' | 'reset';
  readonly listen?: string;
  readonly extra?: readonly string[];
}

/** The access collector alone, counting 1-minute buckets once they are final. */
export function configText(o: ConfigOptions): string {
  return [
    `upstream: { api_url: "${o.apiUrl}", token: "${TOKEN}", timeout: 5s, retry: { attempts: 1 } }`,
    `state_dir: ${JSON.stringify(o.stateDir)}`,
    ...(o.recovery ? [`state_recovery: ${o.recovery}`] : []),
    `server: { listen: "${o.listen ?? '127.0.0.1:0'}" }`,
    'log: { level: info }',
    'collectors:',
    '  defaults: { jitter: 0s }',
    `  access: { interval: 1m, delay: ${DELAY_MS / MIN}m }`,
    ...['usage', 'topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }`),
    ...(o.extra ?? []),
  ].join('\n');
}

/** Start of the newest bucket the access collector counts at `now`. */
export const lastSettled = (now: number): number => lastSettledStart(now, '1m', DELAY_MS, OFFSET_MINUTES);

/**
 * What the access counters of a domain must have grown by between a cycle at
 * `from` and one at `to`: the buckets after the first one's last settled
 * bucket, up to the second one's.
 */
export function truthBetween(sim: Simulator, domain: string, from: number, to: number): { requests: number; edgeBytes: number } {
  const range = [lastSettled(from) + MIN, lastSettled(to) + MIN] as const;
  return { requests: sim.truth.domainTotal(domain, 'requests', ...range), edgeBytes: sim.truth.domainTotal(domain, 'bytesSent', ...range) };
}

/** Per domain, edge_domain_requests_total and the edge traffic counter of a text exposition. */
export function accessCounters(exposition: string): Map<string, { requests: number; edgeBytes: number }> {
  const out = new Map<string, { requests: number; edgeBytes: number }>();
  const entry = (domain: string) => out.get(domain) ?? out.set(domain, { requests: NaN, edgeBytes: NaN }).get(domain)!;
  for (const m of exposition.matchAll(/^edge_domain_requests_total\{domain="([^"]+)"\} (\S+)$/gm)) entry(m[1]!).requests = Number(m[2]);
  for (const m of exposition.matchAll(/^edge_domain_traffic_bytes_total\{domain="([^"]+)",source="edge"\} (\S+)$/gm)) entry(m[1]!).edgeBytes = Number(m[2]);
  return out;
}

/** Every entry of a state directory: file content, or `<dir>`. */
export function snapshot(stateDir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(stateDir)
      .sort()
      .map((name) => [name, lstatSync(join(stateDir, name)).isDirectory() ? '<dir>' : readFileSync(join(stateDir, name), 'utf8')]),
  );
}
