// The demo as users run it, through the real CLI path (main() in-process,
// `run --config <copy of config.example.yaml> --once`): its exposition passes
// `promtool check metrics` with no output and holds every family of the
// default config; two --once runs on the same state directory continue the
// same counters; and --once exits non-zero when every collector failed.
//
// The bundled simulator runs on the wall clock, so the test serves the same
// simulator itself (the example's seed, domain count and token) on a pinned
// clock and points the CLI at it with the documented EDGE_API_URL and
// EDGE_API_TOKEN overrides. `run` polls on the system clock, so Date (only
// Date: timers, sockets and promises stay real) is faked and moved in step
// with the simulator's clock.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { freePort } from '../support/ports.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseDocument } from 'yaml';
import { platformClock } from '../../src/api/index.js';
import { CODE_CLASSES, DOMAIN_REQUESTS, DOMAIN_RESPONSES, DOMAIN_TRAFFIC_BYTES } from '../../src/collectors/access/metrics.js';
import { lastSettledStart } from '../../src/collectors/buckets.js';
import { buildCollectors } from '../../src/daemon/wiring/collectors.js';
import type { Collector } from '../../src/collectors/collector.js';
import { main } from '../../src/cli/main.js';
import { packageVersion } from '../../src/cli/version.js';
import { loadConfig, resolveCollectorOptions, type Config } from '../../src/config/index.js';
import { COLLECTOR_KEYS } from '../../src/config/collector-options.js';
import { SELF_METRICS } from '../../src/exporters/prometheus/self-metric-defs.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import type { StatMetric } from '../../src/simulator/stats.js';
import { checkMetrics } from '../support/promtool.js';
import { Capture } from '../support/capture.js';

/** 2026-03-02 12:00:00 in the platform zone (UTC+8). */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const MIN = 60_000;
type CodeClass = (typeof CODE_CLASSES)[number];
/** The simulator's counter behind each status class of edge_domain_responses_total. */
const STATUS_TRUTH: Readonly<Record<CodeClass, StatMetric>> = { '1xx': 'status1xx', '2xx': 'status2xx', '3xx': 'status3xx', '4xx': 'status4xx', '5xx': 'status5xx' };
const EXAMPLE = new URL('../../config.example.yaml', import.meta.url);

interface Series {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The data lines of a text exposition (label values are kept escaped; these tests compare them as written). */
function parseExposition(text: string): Series[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \S+)?$/.exec(line);
      if (!match) throw new Error(`unparsable exposition line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
      return { name: match[1] ?? '', labels, value: Number(match[3]) };
    });
}

function key(s: { name: string; labels: Readonly<Record<string, string>> }): string {
  return `${s.name}${JSON.stringify(Object.entries(s.labels).sort(([a], [b]) => a.localeCompare(b)))}`;
}

/** A copy of config.example.yaml (comments kept) with `state_dir` and any other keys changed. */
async function exampleCopy(dir: string, changes: readonly [path: string[], value: unknown][]): Promise<string> {
  const doc = parseDocument(await readFile(EXAMPLE, 'utf8'));
  for (const [path, value] of changes) doc.setIn(path, value);
  const file = join(dir, 'config.yaml');
  await writeFile(file, doc.toString());
  return file;
}

interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly series: Series[];
}

async function cliRunOnce(configFile: string, env: Record<string, string>): Promise<RunResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await main(['run', '--config', configFile, '--once'], { stdout, stderr, env }, new AbortController().signal);
  return { code, stdout: stdout.text, stderr: stderr.text, series: code === 2 ? [] : parseExposition(stdout.text) };
}

describe('the demo through `edge-exporter run --once`', () => {
  const dirs: string[] = [];
  let sim: Simulator;
  let env: Record<string, string>;
  let demo: Config;

  const tempDir = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'edge-exporter-demo-'));
    dirs.push(dir);
    return dir;
  };

  /** A copy of the example config with its own state directory. */
  const demoConfig = async (changes: readonly [path: string[], value: unknown][] = []): Promise<string> => {
    const dir = await tempDir();
    return exampleCopy(dir, [[['state_dir'], join(dir, 'state')], ...changes]);
  };

  /** `run --once` at the simulator's current time. */
  function runAtSimTime(configFile: string, runEnv = env): Promise<RunResult> {
    vi.setSystemTime(sim.clock.now());
    return cliRunOnce(configFile, runEnv);
  }

  const collectors = (): Collector[] => buildCollectors(resolveCollectorOptions(demo)).map((p) => p.collector);

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    demo = loadConfig({ file: await demoConfig(), env: {} });
    const { seed, domains, token } = demo.simulator;
    sim = createSimulator({ seed, domains, tokens: [{ token, permissions: '*' }], clock: { mode: 'fixed', start: T0 } });
    const { url } = await sim.listen('127.0.0.1', 0);
    env = { EDGE_API_URL: url, EDGE_API_TOKEN: token };
  });

  beforeEach(() => sim.clock.set(T0));

  afterAll(async () => {
    vi.useRealTimers();
    await sim?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('passes `promtool check metrics` with no output, with every family of the default config and the self-metrics', async () => {
    expect(collectors()).toHaveLength(COLLECTOR_KEYS.length); // the demo enables every collector

    const { code, stdout, stderr, series } = await runAtSimTime(await demoConfig());
    expect(code, stderr).toBe(0);
    expect(await checkMetrics(stdout)).toEqual({ ok: true, output: '' });

    const present = new Set(series.map((s) => s.name));
    const families = collectors().flatMap((c) => c.families.map((f) => f.name));
    expect(families.filter((f) => !present.has(f))).toEqual([]);

    const up = series.filter((s) => s.name === SELF_METRICS.collectorUp.name);
    expect(up.map((s) => [s.labels.collector, s.value]).sort()).toEqual(collectors().map((c) => [c.name, 1]).sort());
    const build = series.filter((s) => s.name === SELF_METRICS.buildInfo.name);
    expect(build).toEqual([{ name: SELF_METRICS.buildInfo.name, labels: { version: packageVersion(), node_version: process.version }, value: 1 }]);
  });

  it('continues the same counters over --once runs sharing the state directory', async () => {
    // Three runs on one state directory: the first starts the counters at 0,
    // the second counts what settled since, the third adds to those values;
    // so both the watermarks and the counter values come back from the state.
    const configFile = await demoConfig();
    const runs: { at: number; result: RunResult }[] = [];
    for (const step of [0, 7 * MIN, 11 * MIN]) {
      sim.clock.advance(step);
      const result = await runAtSimTime(configFile);
      expect(result.code, result.stderr).toBe(0);
      runs.push({ at: sim.clock.now(), result });
    }

    const counterFamilies = new Set(collectors().flatMap((c) => c.families.filter((f) => f.type === 'counter').map((f) => f.name)));
    const counters = runs.map(({ result }) => new Map(result.series.filter((s) => counterFamilies.has(s.name)).map((s) => [key(s), s.value])));
    expect(new Set(runs[0]?.result.series.filter((s) => counterFamilies.has(s.name)).map((s) => s.name))).toEqual(counterFamilies);
    for (let i = 1; i < counters.length; i++) {
      const [before, after] = [counters[i - 1] ?? new Map<string, number>(), counters[i] ?? new Map<string, number>()];
      expect([...before.keys()].filter((k) => !after.has(k))).toEqual([]); // no counter series lost
      expect([...before].filter(([k, v]) => !((after.get(k) ?? -1) >= v))).toEqual([]); // none went down
    }

    // Exactly: each run adds the settled truth of the 1-minute buckets that settled since the previous one.
    const access = resolveCollectorOptions(demo).access;
    const offset = platformClock(demo.upstream.timezone).offsetMinutes;
    const settled = (now: number): number => lastSettledStart(now, access.interval, access.delay, offset);
    const truthOf: readonly [name: string, labels: Record<string, string>, metric: StatMetric][] = [
      [DOMAIN_REQUESTS.name, {}, 'requests'],
      [DOMAIN_TRAFFIC_BYTES.name, { source: 'edge' }, 'bytesSent'],
      [DOMAIN_TRAFFIC_BYTES.name, { source: 'origin' }, 'upstreamBytesSent'],
      ...CODE_CLASSES.map((c): [string, Record<string, string>, StatMetric] => [DOMAIN_RESPONSES.name, { code_class: c }, STATUS_TRUTH[c]]),
    ];
    expect(access.interval).toBe('1m'); // truth.domainTotal sums 1-minute buckets
    expect(access.delay).toBeGreaterThanOrEqual(sim.truth.revisionDelayMs); // so a counted bucket holds its final value
    expect([...(counters[0]?.values() ?? [])].every((v) => v === 0)).toBe(true); // first sight: every counter starts at 0
    for (let i = 1; i < runs.length; i++) {
      const [prev, next] = [runs[i - 1], runs[i]];
      if (prev === undefined || next === undefined) throw new Error('missing run');
      const from = settled(prev.at) + MIN;
      const to = settled(next.at) + MIN;
      for (const domain of sim.truth.domains()) {
        for (const [name, labels, metric] of truthOf) {
          const k = key({ name, labels: { domain, ...labels } });
          expect({ k, value: counters[i]?.get(k) }).toEqual({ k, value: (counters[i - 1]?.get(k) ?? NaN) + sim.truth.domainTotal(domain, metric, from, to) });
        }
      }
    }
  });

  it('exits non-zero when every collector failed (upstream unreachable)', async () => {
    const file = await demoConfig([
      [['upstream', 'timeout'], '1s'],
      [['upstream', 'retry', 'attempts'], 1],
    ]);
    const closed = { EDGE_API_URL: `http://127.0.0.1:${await freePort()}`, EDGE_API_TOKEN: 'sim-token' };
    const { code, series, stderr } = await runAtSimTime(file, closed);
    expect(code, stderr).toBe(1);
    const up = series.filter((s) => s.name === SELF_METRICS.collectorUp.name);
    expect(up.map((s) => [s.labels.collector, s.value]).sort()).toEqual(collectors().map((c) => [c.name, 0]).sort());
  });
});
