// OTLP metrics across a kill -9 in the middle of a push: the daemon (the CLI,
// a child process whose clock follows the simulator's) counts, the receiver
// holds one request unanswered, the daemon is killed while it waits, and the
// next start pushes what was pending. Every bucket of every access counter
// reaches the receiver, and the only points it gets twice are those of the
// request it held: at most one batch re-sent.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { configText, lastSettled, MIN, TOKEN } from '../daemon/state-fixtures.js';
import { decodeMetricsWithProtoc, flattenPoints } from '../support/otlp-metrics-decode.js';
import { startOtlpMetricsReceiver } from '../support/otlp-metrics-receiver.js';
import { freePort } from '../support/ports.js';

type Point = ReturnType<typeof flattenPoints>[number];
type Receiver = Awaited<ReturnType<typeof startOtlpMetricsReceiver>>;

/** 10 s into a platform minute, so a child's own seconds never cross into the next one. */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
const CLOCK_PRELOAD = fileURLToPath(new URL('../daemon/clock-offset.ts', import.meta.url));
/** Points per request: a cycle of 3 domains' access counters takes several. */
const MAX_POINTS = 6;

let sim: Simulator;
let receiver: Receiver;
let dir: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  sim = createSimulator({ seed: 29, domains: 3, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
  receiver = await startOtlpMetricsReceiver();
  dir = mkdtempSync(join(tmpdir(), 'edge-otlp-metrics-kill-'));
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await receiver?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

function daemon(config: string, args: readonly string[]): { proc: ChildProcess; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--import', CLOCK_PRELOAD, 'src/cli/main.ts', 'run', '--config', config, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, EDGE_TEST_CLOCK_OFFSET_MS: String(sim.clock.now() - Date.now()) },
  });
  child = proc;
  proc.stderr?.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('close', (code, signal) => resolve({ code, signal })));
  return { proc, exited };
}

async function points(posts: Receiver['delivered'] extends () => infer R ? R : never): Promise<Point[]> {
  const out: Point[] = [];
  for (const post of posts) out.push(...flattenPoints(await decodeMetricsWithProtoc(post.body)));
  return out;
}

/** A point as the receiver stores it: its series and its bucket. */
const id = (p: Point): string => `${p.series}@${p.startMs}-${p.timeMs}`;

describe('OTLP metrics across a kill -9 mid-push', () => {
  it('every bucket arrives; the points sent twice are those of the one request held when the daemon died', async () => {
    const { url } = await sim.listen('127.0.0.1', 0);
    const config = join(dir, 'config.yaml');
    writeFileSync(config, configText({
      apiUrl: url,
      stateDir: join(dir, 'state'),
      // Delta: a point sent twice would count its bucket twice. A snapshot of the exporter's own families only at stop (interval 1h), so the held request is counted buckets.
      extra: [`otlp_metrics: { enabled: true, endpoint: "${receiver.url}", temporality: delta, max_points_per_send: ${MAX_POINTS}, batch_send_deadline: 0s, min_backoff: 10ms, max_backoff: 100ms, interval: 1h }`],
    }));
    const domains = sim.world.domains.map((d) => d.domainName).sort();

    // 1. Two cycles, pushed.
    await expect(daemon(config, ['--once']).exited).resolves.toEqual({ code: 0, signal: null });
    sim.clock.advance(MIN);
    await expect(daemon(config, ['--once']).exited).resolves.toEqual({ code: 0, signal: null });

    // 2. Three buckets later, a serving daemon counts them; the receiver holds its first request, and the daemon dies waiting.
    sim.clock.advance(3 * MIN);
    const held = receiver.holdNext();
    const serving = daemon(config, ['--listen', `127.0.0.1:${await freePort()}`]);
    const heldPost = await held.arrived;
    serving.proc.kill('SIGKILL');
    expect((await serving.exited).signal).toBe('SIGKILL');
    await held.disconnected;
    child = undefined;

    // 3. The next start pushes what was pending, the held request's points among it.
    sim.clock.advance(MIN);
    await expect(daemon(config, ['--once']).exited).resolves.toEqual({ code: 0, signal: null });

    const heldPoints = flattenPoints(await decodeMetricsWithProtoc(heldPost.body));
    // The worst case: the receiver stored the held request before the daemon died, only its answer was lost.
    const delivered = [...await points(receiver.delivered()), ...heldPoints];
    expect(heldPoints.length).toBeGreaterThan(0);
    expect(heldPoints.length).toBeLessThanOrEqual(MAX_POINTS);
    const seen = new Map<string, number>();
    for (const p of delivered.filter((q) => q.metric.startsWith('edge_domain_'))) seen.set(id(p), (seen.get(id(p)) ?? 0) + 1);
    const twice = [...seen].filter(([, n]) => n > 1).map(([k]) => k).sort();
    // At most one batch re-sent: only the held request's points came twice, each at most twice.
    expect(twice.every((k) => heldPoints.some((p) => id(p) === k))).toBe(true);
    expect([...seen.values()].every((n) => n <= 2)).toBe(true);
    // Not vacuous: the held request was never answered, so each of its points went again after the restart.
    const heldCounters = heldPoints.filter((p) => p.metric.startsWith('edge_domain_'));
    expect(heldCounters.length).toBeGreaterThan(0);
    expect(twice).toEqual([...new Set(heldCounters.map(id))].sort());

    // Every bucket of every access counter, from the series' 0 to the last counted, each the simulator's value.
    const first = lastSettled(T0) + MIN;
    const last = lastSettled(sim.clock.now());
    const buckets = Array.from({ length: (last - first) / MIN + 2 }, (_, i) => first - MIN + i * MIN);
    expect(buckets.length).toBe(6);
    expect(domains).toHaveLength(3);
    for (const domain of domains) {
      const own = delivered.filter((p) => p.metric === 'edge_domain_requests' && p.attributes.domain === domain);
      const byBucket = new Map<number, number>();
      for (const p of own) byBucket.set(p.startMs, p.value ?? NaN);
      expect([...byBucket.keys()].sort((a, b) => a - b), domain).toEqual(buckets);
      for (const bucket of buckets.slice(1)) expect(byBucket.get(bucket), `${domain} ${new Date(bucket).toISOString()}`).toBe(sim.truth.domainTotal(domain, 'requests', bucket, bucket + MIN));
    }
  }, 120_000);
});
