// The history pushed over remote-write into a real Prometheus (Debian's
// package, --web.enable-remote-write-receiver): the daemon (the CLI, a child
// process whose clock follows the simulator's) counts through an upstream
// outage that it back-fills, is killed with SIGKILL while the receiver is
// unreachable, and pushes what was pending at its next start, once through a
// proxy that loses the receiver's first answer (so a page is sent twice).
// Through Prometheus' API the raw samples of each counter must sit on bucket
// boundaries, one minute apart with no gap, each one larger than the last by
// exactly the simulator's value for that bucket.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { accessCounters, configText, lastSettled, MIN, TOKEN } from '../daemon/state-fixtures.js';
import { freePort } from '../support/ports.js';
import { startPrometheus, type RunningPrometheus } from '../exporters/prometheus/prometheus-server.js';

/** 10 s into a platform minute, so a child's own seconds never cross into the next one. */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
const CLOCK_PRELOAD = fileURLToPath(new URL('../daemon/clock-offset.ts', import.meta.url));

/** pass: forward; down: answer 503 without forwarding; lose-answer: forward, then answer 503 once (the receiver has it). */
type ProxyMode = 'pass' | 'down' | 'lose-answer';

interface Proxy {
  readonly url: string;
  mode: ProxyMode;
  /** The receiver's answers to what was forwarded (status codes), and the requests refused while down. */
  readonly forwarded: number[];
  /** The bodies forwarded, as hex digests, in the same order. */
  readonly bodies: string[];
  refused: number;
  close(): Promise<void>;
}

async function startProxy(target: string): Promise<Proxy> {
  const state = { mode: 'pass' as ProxyMode, forwarded: [] as number[], bodies: [] as string[], refused: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (state.mode === 'down') {
        state.refused++;
        res.writeHead(503).end('down for the test');
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'content-encoding', 'x-prometheus-remote-write-version', 'user-agent']) {
        const v = req.headers[name];
        if (typeof v === 'string') headers[name] = v;
      }
      const body = Buffer.concat(chunks);
      void fetch(`${target}/api/v1/write`, { method: 'POST', headers, body }).then(async (answer) => {
        state.forwarded.push(answer.status);
        state.bodies.push(createHash('sha256').update(body).digest('hex'));
        const text = await answer.text();
        if (state.mode === 'lose-answer' && answer.ok) {
          state.mode = 'pass';
          res.writeHead(503).end('answer lost for the test');
          return;
        }
        res.writeHead(answer.status).end(text);
      }, (err: unknown) => res.writeHead(502).end(String(err)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no proxy address');
  return Object.assign(state, {
    url: `http://127.0.0.1:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as Proxy;
}

let sim: Simulator;
let prometheus: RunningPrometheus;
let proxy: Proxy;
let dir: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  sim = createSimulator({ seed: 23, domains: 3, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
  prometheus = await startPrometheus([], { remoteWriteReceiver: true });
  await prometheus.waitReady(30_000);
  proxy = await startProxy(prometheus.url);
  dir = mkdtempSync(join(tmpdir(), 'edge-remote-write-'));
}, 60_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await proxy?.close();
  await prometheus?.stop();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  readonly proc: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function daemon(config: string, args: readonly string[]): Run {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--import', CLOCK_PRELOAD, 'src/cli/main.ts', 'run', '--config', config, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, EDGE_TEST_CLOCK_OFFSET_MS: String(sim.clock.now() - Date.now()) },
  });
  child = proc;
  const output = { stdout: '', stderr: '' };
  proc.stdout?.setEncoding('utf8').on('data', (t: string) => (output.stdout += t));
  proc.stderr?.setEncoding('utf8').on('data', (t: string) => (output.stderr += t));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('close', (code, signal) => resolve({ code, signal })));
  return { proc, output, exited };
}

async function once(config: string): Promise<Run> {
  const run = daemon(config, ['--once']);
  const exit = await run.exited;
  child = undefined;
  return Object.assign(run, { exit });
}

/** Samples in the ledger file's pages that remote-write-acks.json does not confirm: what a next start would push. */
const pending = (stateDir: string): number => {
  const read = <T>(name: string): T | undefined => (existsSync(join(stateDir, name)) ? (JSON.parse(readFileSync(join(stateDir, name), 'utf8')) as { data: T }).data : undefined);
  const settled = read<{ settled: Record<string, number> }>('remote-write-acks.json')?.settled.access ?? 0;
  const pages = read<{ history?: { pages: { seq: number; samples: unknown[] }[] } }>('ledger-access.json')?.history?.pages ?? [];
  // A page's samples are [series, timestamp, value] triples.
  return pages.filter((p) => p.seq > settled).reduce((n, p) => n + p.samples.length / 3, 0);
};

const selfMetric = (text: string, name: string): number | undefined => {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

describe('remote-write into a real Prometheus', () => {
  it('every counted bucket at its own time, no gap, each step the simulator\'s bucket: across an outage and a kill -9', async () => {
    const { url } = await sim.listen('127.0.0.1', 0);
    const stateDir = join(dir, 'state');
    const config = join(dir, 'config.yaml');
    writeFileSync(config, configText({
      apiUrl: url,
      stateDir,
      // Pages of 5 samples: a cycle's samples (3 domains, several counters each) go in several requests.
      extra: [`remote_write: { url: "${proxy.url}/api/v1/write", batch_send_deadline: 0s, min_backoff: 20ms, max_backoff: 200ms, max_samples_per_send: 5 }`],
    }));
    const domains = sim.world.domains.map((d) => d.domainName).sort();

    // 1. The first cycle: every counter's 0 at the end of the last settled bucket; then one bucket.
    await expect(once(config).then((r) => r.exited)).resolves.toEqual({ code: 0, signal: null });
    sim.clock.advance(MIN);
    await expect(once(config).then((r) => r.exited)).resolves.toEqual({ code: 0, signal: null });

    // 2. An upstream outage of two cycles, then one that back-fills the three buckets.
    sim.faults.set([{ status5xx: 503, operations: ['describeL7DataV2'] }]);
    for (let i = 0; i < 2; i++) {
      sim.clock.advance(MIN);
      await expect(once(config).then((r) => r.exited)).resolves.toEqual({ code: 1, signal: null });
    }
    sim.faults.clear();
    sim.clock.advance(MIN);
    await expect(once(config).then((r) => r.exited)).resolves.toEqual({ code: 0, signal: null });
    expect(pending(stateDir)).toBe(0);

    // 3. The receiver unreachable: the serving daemon counts two buckets, cannot push them, and is killed.
    proxy.mode = 'down';
    sim.clock.advance(2 * MIN);
    const refusedBefore = proxy.refused;
    const port = await freePort();
    const serving = daemon(config, ['--listen', `127.0.0.1:${port}`]);
    await expect.poll(() => proxy.refused - refusedBefore, { timeout: 30_000 }).toBeGreaterThan(1);
    const stranded = pending(stateDir);
    expect(stranded).toBeGreaterThan(0);
    // /metrics serves on, and says what waits and that it is being retried.
    const exposition = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(selfMetric(exposition, 'edge_exporter_remote_write_samples_pending')).toBe(stranded);
    expect(selfMetric(exposition, 'edge_exporter_remote_write_samples_retried_total')).toBeGreaterThan(0);
    expect(accessCounters(exposition).size).toBe(domains.length);
    serving.proc.kill('SIGKILL');
    expect((await serving.exited).signal).toBe('SIGKILL');
    child = undefined;

    // 4. Back up, but the receiver's first answer is lost: that page goes twice, and Prometheus takes the duplicate.
    proxy.mode = 'lose-answer';
    const forwardedBefore = proxy.forwarded.length;
    sim.clock.advance(MIN);
    const final = await once(config);
    await expect(final.exited).resolves.toEqual({ code: 0, signal: null });
    expect(pending(stateDir)).toBe(0);
    const answers = proxy.forwarded.slice(forwardedBefore);
    // The request whose answer was lost went again, byte for byte, and Prometheus took it again: every answer was a success (no 400 for out of order or duplicate).
    const bodies = proxy.bodies.slice(forwardedBefore);
    expect(bodies[1]).toBe(bodies[0]);
    expect(new Set(bodies).size).toBe(bodies.length - 1);
    expect(answers.every((s) => s >= 200 && s < 300)).toBe(true);
    expect(proxy.forwarded.every((s) => s >= 200 && s < 300)).toBe(true);

    // 5. The raw samples, per domain, from the first counter's 0 to the last bucket.
    const end = sim.clock.now();
    const first = lastSettled(T0) + MIN;
    const last = lastSettled(end) + MIN;
    const expectedTimes = Array.from({ length: (last - first) / MIN + 1 }, (_, i) => first + i * MIN);
    expect(expectedTimes.length).toBe(8);
    for (const [metric, field, selector] of [
      ['edge_domain_requests_total', 'requests', ''],
      ['edge_domain_traffic_bytes_total', 'bytesSent', ',source="edge"'],
    ] as const) {
      for (const domain of domains) {
        const series = await prometheus.select(`${metric}{domain="${domain}"${selector}}[1h]`, end / 1000);
        expect(series.length, `${metric} ${domain}`).toBe(1);
        const [only] = series;
        expect(only?.metric.job).toBe('edge-exporter');
        const points = (only?.values ?? []).map(([t, v]) => [Math.round(t * 1000), Number(v)] as const);
        expect(points.map(([t]) => t), `${metric} ${domain}: on bucket boundaries, one minute apart, no gap`).toEqual(expectedTimes);
        expect(points[0]?.[1]).toBe(0);
        const steps = points.slice(1).map(([, v], i) => v - (points[i]?.[1] ?? NaN));
        const truth = expectedTimes.slice(1).map((t) => sim.truth.domainTotal(domain, field, t - MIN, t));
        expect(steps, `${metric} ${domain}: each step is the simulator's bucket`).toEqual(truth);
      }
    }
    // The newest pushed sample of each counter is what /metrics showed after the last cycle.
    const scraped = accessCounters(final.output.stdout);
    for (const domain of domains) {
      const [pushedRequests] = await prometheus.query(`edge_domain_requests_total{domain="${domain}"}`, end / 1000);
      expect(Number(pushedRequests?.value[1])).toBe(scraped.get(domain)?.requests);
    }
    // Not vacuous: traffic in the buckets, and the back-filled and stranded buckets among them.
    expect(domains.every((d) => sim.truth.domainTotal(d, 'requests', first, last) > 0)).toBe(true);
    expect(stranded).toBeGreaterThanOrEqual(2 * domains.length);
  }, 120_000);
});
