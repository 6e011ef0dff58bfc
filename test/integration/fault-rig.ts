// A real Daemon (schedules off, cycles driven by runOnce on the simulator's
// pinned clock) polling a loopback simulator with two metric collectors,
// access (describeL7DataV2 per domain) and usage (describeL7UsageData per
// package), plus what the upstream-fault tests read: /metrics parsed into
// series, the landing page, and the simulator's settled truth of exactly the
// buckets the counters should hold.
import { afterEach, expect, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DOMAIN_BANDWIDTH, DOMAIN_REQUEST_TIME, DOMAIN_REQUESTS, DOMAIN_RESPONSES, DOMAIN_TRAFFIC_BYTES,
} from '../../src/collectors/access/metrics.js';
import { lastSettledStart } from '../../src/collectors/buckets.js';
import { seriesKey } from '../../src/collectors/series/keys.js';
import type { RunReport } from '../../src/engine/reports.js';
import { PACKAGE_TRAFFIC_BYTES } from '../../src/collectors/usage/metrics.js';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Readings, type Simulator } from '../../src/simulator/index.js';
import { type FaultRule } from '../../src/simulator/faults.js';
import { type StatMetric } from '../../src/simulator/stats.js';
import { lineSink } from '../support/capture.js';

/** 2026-03-02 12:00:00 in the platform zone (UTC+8). */
export const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
export const MIN = 60_000;
/** The collectors' delay, equal to the simulator's revision delay: a bucket is counted exactly when it is final. */
export const DELAY_MS = 3 * MIN;
const UTC8 = 480;

export const ACCESS_OP = 'describeL7DataV2' as const;
export const USAGE_OP = 'describeL7UsageData' as const;

/** Series keys (seriesKey) and values. */
export type Series = Record<string, number>;

interface RigOptions {
  /** upstream.max_body_bytes (default: the config default, 32 MiB). */
  readonly maxBodyBytes?: number;
  readonly domains?: number;
  /** The simulator's alternative readings of the document (default: none). */
  readonly readings?: Partial<Readings>;
  /** YAML of collectors.defaults.audit (default: the config default). */
  readonly audit?: string;
  /** More `upstream:` keys, one `key: value` a line (default: none). */
  readonly upstream?: readonly string[];
  /** upstream.retry.attempts (default 1: a fault shows on its first request). */
  readonly retryAttempts?: number;
  /** collectors.defaults.delay as YAML (default DELAY_MS). */
  readonly delay?: string;
  /** More top-level sections, one YAML line each (e.g. an `otlp_metrics:` flow mapping; default none). */
  readonly extra?: readonly string[];
}

/**
 * upstream.timeout: how long a hanging request holds a cycle. Short enough
 * for a quick test, long enough that a clean answer on a loaded machine
 * never times out.
 */
const UPSTREAM_TIMEOUT_MS = 1000;

export interface Rig {
  readonly sim: Simulator;
  readonly daemon: Daemon;
  readonly url: string;
  /** The daemon's log lines (JSON, warn and above). */
  readonly log: string[];
  /** Simulator time of the first cycle: the counters start at 0 after its last settled bucket. */
  readonly firstCycleAt: number;
  /** Advances the simulator clock, then runs every collector once. */
  cycle(advanceMs?: number): Promise<RunReport[]>;
  /** Every series of /metrics (text format), by seriesKey. */
  scrape(): Promise<Series>;
  landing(): Promise<string>;
  /** Injects `rule` on the given operations (default: the access collector's only). */
  fault(rule: FaultRule, operations?: FaultRule['operations'] | 'all'): void;
  stop(): Promise<void>;
}

async function startRig(options: RigOptions = {}): Promise<Rig> {
  const sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, domains: options.domains ?? 4, ...(options.readings ? { readings: options.readings } : {}) });
  if (sim.truth.revisionDelayMs !== DELAY_MS) throw new Error(`the simulator revises buckets for ${sim.truth.revisionDelayMs} ms, the rig assumes ${DELAY_MS}`);
  const { url: apiUrl } = await sim.listen('127.0.0.1', 0);
  const stateDir = await mkdtemp(join(tmpdir(), 'edge-upstream-faults-'));
  const text = `
upstream:
  api_url: ${JSON.stringify(apiUrl)}
  token: sim-token
  timeout: ${UPSTREAM_TIMEOUT_MS}ms
  retry: { attempts: ${options.retryAttempts ?? 1}, min_delay: 10ms, max_delay: 50ms }
${(options.upstream ?? []).map((line) => `  ${line}\n`).join('')}${options.maxBodyBytes === undefined ? '' : `  max_body_bytes: ${options.maxBodyBytes}\n`}log: { level: warn }
collectors:
  defaults: { jitter: 0s, delay: ${options.delay ?? `${DELAY_MS / MIN}m`}${options.audit === undefined ? '' : `, audit: ${options.audit}`} }
  access: { interval: 1m, summary_window: 10m }
  usage: { interval: 1m, summary_window: 10m }
  topn: { enabled: false }
  cc_attack: { enabled: false }
  waf_trend: { enabled: false }
  inventory: { enabled: false }
targets: { refresh: 1m }
server: { listen: "127.0.0.1:0" }
state_dir: ${JSON.stringify(stateDir)}
${(options.extra ?? []).join('\n')}
`;
  const config = loadConfig({ text, env: {} });
  const log: string[] = [];
  const logger = createLogger({
    level: config.log.level,
    destination: lineSink(log),
  });
  const daemon = new Daemon({ config, logger, version: '0.0.0-test', clock: { now: () => sim.clock.now() }, schedules: false });
  const stop = async (): Promise<void> => {
    await daemon.stop();
    await sim.close();
    await rm(stateDir, { recursive: true, force: true });
  };
  let url: string;
  try {
    url = await daemon.start();
  } catch (err) {
    await stop();
    throw err;
  }
  let firstCycleAt: number | undefined;
  const rig: Rig = {
    sim, daemon, url, log,
    get firstCycleAt() {
      if (firstCycleAt === undefined) throw new Error('no cycle has run yet');
      return firstCycleAt;
    },
    async cycle(advanceMs = 0) {
      sim.clock.advance(advanceMs);
      firstCycleAt ??= sim.clock.now();
      return daemon.runOnce();
    },
    async scrape() {
      const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
      if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
      return parseExposition(await res.text());
    },
    async landing() {
      const res = await fetch(`${url}/`, { signal: AbortSignal.timeout(5000) });
      return res.text();
    },
    fault(rule, operations = [ACCESS_OP]) {
      sim.faults.set([operations === 'all' ? rule : { ...rule, operations }]);
    },
    stop,
  };
  return rig;
}

/** Parses the text exposition into seriesKey -> value (comments skipped). */
export function parseExposition(text: string): Series {
  const out: Series = {};
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!m) throw new Error(`unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1] ?? ''] = (l[2] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    out[seriesKey(m[1] ?? '', labels)] = Number(m[3]);
  }
  return out;
}

/** The series of `families` only. */
export function pick(series: Series, families: readonly string[]): Series {
  return Object.fromEntries(Object.entries(series).filter(([key]) => families.some((f) => key.startsWith(`${f}{`))));
}

export const ACCESS_COUNTER_FAMILIES = [DOMAIN_REQUESTS.name, DOMAIN_TRAFFIC_BYTES.name, DOMAIN_RESPONSES.name];
export const USAGE_COUNTER_FAMILIES = [PACKAGE_TRAFFIC_BYTES.name];
/** Every family the access collector publishes starts with this (counters and gauges). */
const ACCESS_PREFIX = 'edge_domain_';

/** What each access counter series measures in the simulator's truth. */
const ACCESS_COUNTERS: ReadonlyArray<readonly [string, Record<string, string>, StatMetric]> = [
  [DOMAIN_REQUESTS.name, {}, 'requests'],
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'edge' }, 'bytesSent'],
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'origin' }, 'upstreamBytesSent'],
  ...(['1xx', '2xx', '3xx', '4xx', '5xx'] as const).map((c) => [DOMAIN_RESPONSES.name, { code_class: c }, `status${c}` as StatMetric] as const),
];

/** Start of the newest bucket the collectors count at simulator time `now`. */
export function lastSettled(now: number): number {
  return lastSettledStart(now, '1m', DELAY_MS, UTC8);
}

/** The 1-minute buckets counted by a cycle at `now` when the counters started at the first cycle: [from, to). */
function countedRange(rig: Rig, now = rig.sim.clock.now()): readonly [number, number] {
  return [lastSettled(rig.firstCycleAt) + MIN, lastSettled(now) + MIN];
}

/** Every access counter series, from the settled truth over the counted range. */
export function accessTruth(rig: Rig, now?: number): Series {
  const [from, to] = countedRange(rig, now);
  const out: Series = {};
  for (const domain of rig.sim.truth.domains()) {
    for (const [family, labels, metric] of ACCESS_COUNTERS) {
      out[seriesKey(family, { domain, ...labels })] = rig.sim.truth.domainTotal(domain, metric, from, to);
    }
  }
  return out;
}

/**
 * Every usage counter series. The collector asks for every getPackages value:
 * a layer-7 package alias stands for its domains; a layer-4 alias names no
 * domain with traffic, so its series are 0.
 */
export function usageTruth(rig: Rig, now?: number): Series {
  const [from, to] = countedRange(rig, now);
  const { world, truth } = rig.sim;
  const out: Series = {};
  for (const pkg of [...world.l7Packages, ...world.l4Packages].map((p) => p.alias)) {
    const domains = world.domains.filter((d) => d.doid === pkg).map((d) => d.domainName);
    out[seriesKey(PACKAGE_TRAFFIC_BYTES.name, { package: pkg, direction: 'in' })] = truth.total('inBytes', from, to, domains);
    out[seriesKey(PACKAGE_TRAFFIC_BYTES.name, { package: pkg, direction: 'out' })] = truth.total('bytesSent', from, to, domains);
  }
  return out;
}

/** The self-metric series the fault tests read. */
export const self = {
  up: (collector: string) => seriesKey('edge_exporter_collector_up', { collector }),
  runs: (collector: string, outcome: 'success' | 'error') => seriesKey('edge_exporter_collector_runs_total', { collector, outcome }),
  requests: (operation: string, outcome: string) => seriesKey('edge_exporter_upstream_requests_total', { operation, outcome }),
  lag: (collector: string) => seriesKey('edge_exporter_collector_data_lag_seconds', { collector }),
};

export const ACCESS_LATEST_GAUGES = [DOMAIN_BANDWIDTH.name, DOMAIN_REQUEST_TIME.name];

/** Every domain's latest-bucket gauges (bandwidth per source, request time), from the settled truth. */
export function accessGaugeTruth(rig: Rig, now = rig.sim.clock.now()): Series {
  const { truth } = rig.sim;
  const bucket = lastSettled(now);
  const out: Series = {};
  for (const domain of truth.domains()) {
    for (const [source, metric] of [['edge', 'bytesSent'], ['origin', 'upstreamBytesSent']] as const) {
      out[seriesKey(DOMAIN_BANDWIDTH.name, { domain, source })] = truth.bandwidth(truth.bucket(domain, metric, '1m', bucket), '1m') / 8;
    }
    out[seriesKey(DOMAIN_REQUEST_TIME.name, { domain })] = truth.requestTime(domain, '1m', bucket) / 1000;
  }
  return out;
}

/** Series whose key starts with `prefix` (a family name prefix). */
function withPrefix(series: Series, prefix: string): Series {
  return Object.fromEntries(Object.entries(series).filter(([key]) => key.startsWith(prefix)));
}

/** A rig per test, stopped after it (also when the test failed). */
export function useRigs(): (options?: RigOptions) => Promise<Rig> {
  const started: Rig[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((r) => r.stop()));
  });
  return async (options) => {
    const rig = await startRig(options);
    started.push(rig);
    return rig;
  };
}

function byCollector(reports: readonly RunReport[]): Record<string, RunReport> {
  return Object.fromEntries(reports.map((r) => [r.collector, r]));
}

/** Both collectors succeeded with no failed request. */
export function expectClean(reports: readonly RunReport[]): void {
  expect(reports.map((r) => ({ collector: r.collector, ok: r.ok, partialErrors: r.partialErrors, error: r.error })).sort((a, b) => a.collector.localeCompare(b.collector)))
    .toEqual(['access', 'usage'].map((collector) => ({ collector, ok: true, partialErrors: 0, error: undefined })));
}

/** Every counter equals the settled truth of the buckets counted so far (the last cycle's clock). */
export function expectTruth(m: Series, rig: Rig): void {
  expect(pick(m, ACCESS_COUNTER_FAMILIES)).toEqual(accessTruth(rig));
  expect(pick(m, USAGE_COUNTER_FAMILIES)).toEqual(usageTruth(rig));
}

/**
 * Two clean cycles a minute apart (the counters start at 0, then count the
 * first settled bucket). Returns the scrape after them.
 */
export async function warmUp(rig: Rig): Promise<Series> {
  expectClean(await rig.cycle());
  expectClean(await rig.cycle(MIN));
  const m = await rig.scrape();
  expectTruth(m, rig);
  expect(Object.values(pick(m, ACCESS_COUNTER_FAMILIES)).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  expect(m[self.up('access')]).toBe(1);
  return m;
}

/** A fault that must take a collector down (up 0, the code on the landing page) and leave its series as they were. */
export interface DownFault {
  readonly name: string;
  readonly rule: FaultRule;
  /** `access`: only the access collector's operation; `all`: every operation (every collector goes down). */
  readonly scope: 'access' | 'all';
  /** The run's error code (RunReport, landing page). */
  readonly code: string;
  /** The `outcome` of edge_exporter_upstream_requests_total each faulted request adds (one per domain and cycle; `success` when the fault is in the data). */
  readonly requestOutcome?: string;
  /** The upstream never answers: a scrape must answer while the cycle is still stuck. */
  readonly hangs?: boolean;
}

const FAULTED_CYCLES = 2;
/** Generous functional bound for /metrics while the upstream misbehaves. */
const SCRAPE_BOUND_MS = 2000;

/** The landing page's table row of one collector. */
function landingRow(page: string, collector: string): string {
  return page.split('\n').find((line) => line.startsWith(`<tr id="job-${collector}">`)) ?? `(no row for ${collector})`;
}

/**
 * The fault matrix for faults that take a collector down: two clean cycles,
 * two faulted ones (each checked while it runs and after), recovery with
 * exact back-fill, and one more cycle to show nothing is counted twice.
 */
export async function expectDownAndBack(rig: Rig, fault: DownFault): Promise<void> {
  const down = fault.scope === 'all' ? ['access', 'usage'] : ['access'];
  const good = await warmUp(rig);
  const lastGoodAccess = withPrefix(good, ACCESS_PREFIX);
  const lastGoodUsage = pick(good, USAGE_COUNTER_FAMILIES);
  const successes = good[self.runs('access', 'success')];
  const domains = rig.sim.truth.domains().length;
  const packages = Object.keys(usageTruth(rig)).length / 2;
  rig.fault(fault.rule, fault.scope === 'all' ? 'all' : [ACCESS_OP]);

  for (let k = 1; k <= FAULTED_CYCLES; k++) {
    const asked = rig.sim.requestCounts()[ACCESS_OP] ?? 0;
    let settled = false;
    const running = rig.cycle(MIN).finally(() => {
      settled = true;
    });
    // While this cycle's access requests are out (hanging, for `hang`), /metrics answers with the last good values.
    await vi.waitFor(() => expect(rig.sim.requestCounts()[ACCESS_OP]).toBe(asked + domains), { timeout: SCRAPE_BOUND_MS });
    const started = performance.now();
    const during = await rig.scrape();
    expect(performance.now() - started).toBeLessThan(SCRAPE_BOUND_MS);
    expect(withPrefix(during, ACCESS_PREFIX)).toEqual(lastGoodAccess);
    if (fault.hangs) expect(settled, 'the cycle was still waiting on the upstream during the scrape').toBe(false);

    const reports = byCollector(await running);
    for (const name of ['access', 'usage']) {
      if (down.includes(name)) expect(reports[name], name).toMatchObject({ ok: false, error: { code: fault.code } });
      else expect(reports[name], name).toMatchObject({ ok: true, partialErrors: 0 });
    }
    const m = await rig.scrape();
    // Not dropped, not reset: every access series (counters and gauges) exactly as before the fault.
    expect(withPrefix(m, ACCESS_PREFIX)).toEqual(lastGoodAccess);
    expect(m[self.up('access')]).toBe(0);
    expect(m[self.runs('access', 'error')]).toBe(k);
    expect(m[self.runs('access', 'success')]).toBe(successes);
    if (fault.requestOutcome !== undefined) {
      const made = (op: string) => (m[self.requests(op, fault.requestOutcome ?? '')] ?? 0) - (good[self.requests(op, fault.requestOutcome ?? '')] ?? 0);
      expect(made(ACCESS_OP)).toBe(k * domains);
      if (fault.scope === 'all') expect(made(USAGE_OP)).toBe(k * packages);
    }
    // The log names the code too (structured, for the operator's log search).
    expect(rig.log.some((line) => line.includes('"collector":"access"') && line.includes(`"code":"${fault.code}"`))).toBe(true);
    const page = await rig.landing();
    for (const name of ['access', 'usage']) {
      if (down.includes(name)) expect(landingRow(page, name)).toContain(`<code>${fault.code}</code> `);
      else expect(landingRow(page, name)).toContain('class="success"');
    }
    if (fault.scope === 'all') {
      expect(m[self.up('usage')]).toBe(0);
      expect(pick(m, USAGE_COUNTER_FAMILIES)).toEqual(lastGoodUsage);
    } else {
      // The other collector carries on, exactly.
      expect(m[self.up('usage')]).toBe(1);
      expect(pick(m, USAGE_COUNTER_FAMILIES)).toEqual(usageTruth(rig));
    }
  }

  rig.sim.faults.clear();
  await expectRecovered(rig);
}

/**
 * After the fault: every collector up, every counter the truth over exactly
 * [first watermark, new watermark) — the faulted minutes back-filled, nothing
 * twice — and the same one cycle later.
 */
export async function expectRecovered(rig: Rig): Promise<void> {
  for (let i = 0; i < 2; i++) {
    expectClean(await rig.cycle(MIN));
    const m = await rig.scrape();
    expect([m[self.up('access')], m[self.up('usage')]]).toEqual([1, 1]);
    expectTruth(m, rig);
    expect(pick(m, ACCESS_LATEST_GAUGES)).toEqual(accessGaugeTruth(rig));
    // Caught up: the newest bucket counted is the last settled one.
    expect(m[self.lag('access')]).toBe(DELAY_MS / 1000);
  }
}
