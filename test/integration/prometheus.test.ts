// A real Prometheus (Debian's binary, loopback only, its own temp data dir,
// scrape_interval 250ms) scrapes the daemon's /metrics while the daemon polls
// the simulator. The test drives the cycles itself on the simulator's pinned
// clock (the daemon runs with `schedules: false`), waits after each cycle
// until Prometheus has stored a scrape of it, and then checks through
// Prometheus' HTTP API that increase() of the request and traffic counters
// equals the simulator's ground truth for exactly the buckets counted
// between the first and the last scrape, downtime back-fill included.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformClock } from '../../src/api/index.js';
import { DOMAIN_REQUESTS, DOMAIN_TRAFFIC_BYTES } from '../../src/collectors/access/metrics.js';
import { lastSettledStart } from '../../src/collectors/buckets.js';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import type { StatMetric } from '../../src/simulator/stats.js';
import { startPrometheus, type RangeSeries, type RunningPrometheus } from '../exporters/prometheus/prometheus-server.js';
import { lineSink } from '../support/capture.js';

/** 2026-03-02 12:00:00 in the platform zone (UTC+8). */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const MIN = 60_000;
/** The simulator's revision delay: a bucket is counted exactly when its value is final. */
const DELAY_MS = 3 * MIN;
const JOB = 'edge-exporter';
const REQUESTS = DOMAIN_REQUESTS.name;
const TRAFFIC = DOMAIN_TRAFFIC_BYTES.name;
/** Prometheus' scrape interval: the test waits for a scrape after each of its seven cycles (at 1 s, ~1 s each). */
const SCRAPE_MS = 250;
/** Bound on each wait for a scrape. */
const SCRAPE_WAIT_MS = 10_000;

/** What each counter series measures in the simulator's ground truth. */
const COUNTERS: readonly { name: string; selector: string; truth: StatMetric }[] = [
  { name: 'requests', selector: `${REQUESTS}{job="${JOB}"}`, truth: 'requests' },
  { name: 'edge traffic', selector: `${TRAFFIC}{job="${JOB}",source="edge"}`, truth: 'bytesSent' },
  { name: 'origin traffic', selector: `${TRAFFIC}{job="${JOB}",source="origin"}`, truth: 'upstreamBytesSent' },
];

function configText(apiUrl: string, stateDir: string): string {
  return `
upstream:
  api_url: ${JSON.stringify(apiUrl)}
  token: sim-token
  timeout: 5s
  retry: { attempts: 1 }
log: { level: warn }
collectors:
  defaults: { jitter: 0s }
  access: { interval: 1m, delay: ${DELAY_MS / MIN}m }
  usage: { enabled: false }
  topn: { enabled: false }
  cc_attack: { enabled: false }
  waf_trend: { enabled: false }
server: { listen: "127.0.0.1:0" }
state_dir: ${JSON.stringify(stateDir)}
`;
}

/** Samples as numbers: [ms, value]. Prometheus timestamps are seconds with millisecond precision. */
function samples(series: RangeSeries): [number, number][] {
  return series.values.map(([t, v]) => [Math.round(t * 1000), Number(v)]);
}

function dedupe(values: readonly number[]): number[] {
  return values.filter((v, i) => i === 0 || v !== values[i - 1]);
}

describe('a real Prometheus scraping the daemon while it polls the simulator', () => {
  const log: string[] = [];
  /** Simulator time of each cycle, in order. */
  const cycleTimes: number[] = [];
  let sim: Simulator;
  let daemon: Daemon | undefined;
  let prometheus: RunningPrometheus | undefined;
  let stateDir: string | undefined;
  let offsetMinutes: number;

  /** Start of the newest bucket the access collector counts at simulator time `now` (its own plan). */
  const lastSettled = (now: number): number => lastSettledStart(now, '1m', DELAY_MS, offsetMinutes);
  /** Settled truth of the buckets counted after cycle `from` up to and including cycle `to`. */
  const counted = (metric: StatMetric, from: number, to: number, domain?: string): number => {
    const [a, b] = [cycleTimes[from], cycleTimes[to]];
    if (a === undefined || b === undefined) throw new Error(`no cycle ${from} or ${to}`);
    // The counter starts at 0 on the first cycle with the watermark on that cycle's last settled bucket;
    // later cycles add the 1-minute buckets after it, up to their own last settled one.
    const range = [lastSettled(a) + MIN, lastSettled(b) + MIN] as const;
    return domain === undefined ? sim.truth.total(metric, ...range) : sim.truth.domainTotal(domain, metric, ...range);
  };

  function running<T>(value: T | undefined, what: string): T {
    if (value === undefined) throw new Error(`${what} not started`);
    return value;
  }

  /** The daemon's own published requests counters: how many series and their sum. */
  function published(): { count: number; sum: number } {
    const family = running(daemon, 'daemon').view.snapshot().find((f) => f.def.name === REQUESTS);
    const series = family?.series ?? [];
    return { count: series.length, sum: series.reduce((acc, s) => acc + s.value, 0) };
  }

  /**
   * Waits (bounded) until Prometheus' newest scrape shows what the last cycle
   * published. Each cycle adds at least one settled bucket of requests, so the
   * sum identifies the cycle; data families change together (one generation),
   * so the traffic counters of that scrape are the same cycle's too.
   */
  async function waitForScrape(): Promise<void> {
    const want = published();
    const deadline = Date.now() + SCRAPE_WAIT_MS;
    let seen = 'nothing';
    for (;;) {
      const result = await running(prometheus, 'Prometheus').query(`${REQUESTS}{job="${JOB}"}`).catch((err: unknown) => {
        seen = String(err);
        return undefined;
      });
      if (result !== undefined) {
        const got = { count: result.length, sum: result.reduce((acc, r) => acc + Number(r.value[1]), 0) };
        if (got.count === want.count && got.sum === want.sum) return;
        seen = JSON.stringify(got);
      }
      if (Date.now() > deadline) throw new Error(`Prometheus did not scrape ${JSON.stringify(want)} within ${SCRAPE_WAIT_MS} ms; last seen ${seen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function cycle(): Promise<void> {
    const reports = await running(daemon, 'daemon').runOnce();
    const failed = reports.filter((r) => !r.ok);
    if (failed.length > 0) throw new Error(`cycle failed: ${JSON.stringify(failed)}\n${log.join('')}`);
    cycleTimes.push(sim.clock.now());
    await waitForScrape();
  }

  beforeAll(async () => {
    sim = createSimulator({ clock: { mode: 'fixed', start: T0 } });
    if (sim.truth.revisionDelayMs !== DELAY_MS) throw new Error(`the simulator revises buckets for ${sim.truth.revisionDelayMs} ms, the test assumes ${DELAY_MS}`);
    const { url } = await sim.listen('127.0.0.1', 0);
    stateDir = await mkdtemp(join(tmpdir(), 'edge-exporter-it-'));
    const config = loadConfig({ text: configText(url, stateDir), env: {} });
    offsetMinutes = platformClock(config.upstream.timezone).offsetMinutes;
    const logger = createLogger({
      level: config.log.level,
      destination: lineSink(log),
    });
    daemon = new Daemon({ config, logger, version: '0.0.0-test', clock: { now: () => sim.clock.now() }, schedules: false });
    const metrics = new URL(await daemon.start());
    prometheus = await startPrometheus([{ name: JOB, target: metrics.host, path: '/metrics' }], { scrapeIntervalMs: SCRAPE_MS });

    await cycle(); // the counters appear at 0
    for (let i = 0; i < 3; i++) {
      sim.clock.advance(MIN);
      await cycle();
    }
    // Downtime: five simulated minutes without a cycle (scrapes go on and see
    // the same values); the next cycle back-fills the six buckets settled since.
    sim.clock.advance(5 * MIN);
    for (let i = 0; i < 3; i++) {
      sim.clock.advance(MIN);
      await cycle();
    }
  }, 45_000);

  afterAll(async () => {
    await prometheus?.stop();
    await daemon?.stop();
    await sim?.close();
    if (stateDir !== undefined) await rm(stateDir, { recursive: true, force: true });
  });

  /** Each series' raw samples over the whole run, read at Prometheus' now. */
  async function raw(selector: string): Promise<Map<string, [number, number][]>> {
    const series = await running(prometheus, 'Prometheus').select(`${selector}[10m]`);
    return new Map(series.map((s) => [s.metric.domain ?? '', samples(s)]));
  }

  /** First and last sample time shared by every series of the selector (they appear and are scraped together). */
  function span(series: Map<string, [number, number][]>): { t1: number; t2: number; n: number } {
    const spans = new Set([...series.values()].map((s) => JSON.stringify({ t1: s[0]?.[0], t2: s.at(-1)?.[0], n: s.length })));
    expect(spans.size).toBe(1);
    const [only] = [...series.values()];
    const first = only?.[0];
    const last = only?.at(-1);
    if (first === undefined || last === undefined) throw new Error('no samples');
    return { t1: first[0], t2: last[0], n: only?.length ?? 0 };
  }

  it('ran seven cycles, one of them back-filling the six buckets settled over the downtime', () => {
    const newBuckets = cycleTimes.slice(1).map((t, k) => (lastSettled(t) - lastSettled(cycleTimes[k] ?? NaN)) / MIN);
    expect(newBuckets).toEqual([1, 1, 1, 6, 1, 1]);
  });

  it('stores one series per domain per counter, starting at 0 on the first cycle', async () => {
    for (const { selector } of COUNTERS) {
      const series = await raw(selector);
      expect([...series.keys()].sort()).toEqual([...sim.truth.domains()].sort());
      for (const values of series.values()) expect(values[0]?.[1]).toBe(0);
    }
  });

  it.each(COUNTERS)('$name: every cycle, downtime back-fill included, is a stored value equal to the settled truth so far', async ({ selector, truth }) => {
    const series = await raw(selector);
    for (const [domain, values] of series) {
      const expected = cycleTimes.map((_, k) => counted(truth, 0, k, domain));
      expect({ domain, values: dedupe(values.map(([, v]) => v)) }).toEqual({ domain, values: dedupe(expected) });
    }
  });

  it.each(COUNTERS)('$name: increase() from the first to the last scrape equals the truth of the buckets counted in between, per domain', async ({ selector, truth }) => {
    const p = running(prometheus, 'Prometheus');
    const series = await raw(selector);
    const { t1, t2, n } = span(series);
    // Prometheus 2.x range selectors are closed at both ends, [t − range, t]:
    // evaluated at t2 with range t2 − t1, the window holds the first and the
    // last sample exactly. increase() extrapolates only by the gaps between
    // the window's ends and its first/last sample, which are 0 here, so it is
    // last − first with no extrapolation. count_over_time() confirms the
    // window holds every sample, both ends included.
    const window = `[${t2 - t1}ms]`;
    const counts = await p.query(`count_over_time(${selector}${window})`, t2 / 1000);
    expect(counts.map((c) => Number(c.value[1]))).toEqual(counts.map(() => n));

    const increases = await p.query(`increase(${selector}${window})`, t2 / 1000);
    expect(increases).toHaveLength(series.size);
    const last = cycleTimes.length - 1;
    for (const r of increases) {
      const domain = r.metric.domain ?? '';
      const values = series.get(domain) ?? [];
      const rawDelta = (values.at(-1)?.[1] ?? NaN) - (values[0]?.[1] ?? NaN);
      expect({ domain, increase: Number(r.value[1]) }).toEqual({ domain, increase: counted(truth, 0, last, domain) });
      expect(Number(r.value[1])).toBe(rawDelta);
    }
  });

  it('sum over domains of increase() of the requests equals the simulator total', async () => {
    const p = running(prometheus, 'Prometheus');
    const selector = `${REQUESTS}{job="${JOB}"}`;
    const { t1, t2 } = span(await raw(selector));
    const [sum] = await p.query(`sum(increase(${selector}[${t2 - t1}ms]))`, t2 / 1000);
    const total = counted('requests', 0, cycleTimes.length - 1);
    expect(total).toBeGreaterThan(0);
    expect(Number(sum?.value[1])).toBe(total);
  });
});
