// The Grafana dashboards in grafana/, read from their JSON files.
//
// Static: each file parses, declares what an import needs (the schema check
// is dashboards-schema.test.ts), has unique panel
// ids, the `datasource` variable and no hard-coded datasource, and its queries
// use only documented metric families, `$__rate_interval` for rates and the
// `$domain` / `$package` variables wherever a family has those labels.
//
// Against the demo: a real Prometheus (loopback, 1 s scrapes) scrapes a daemon
// that polls the simulator on a pinned clock with every collector enabled and
// forwards the WAF deny events to a test OTLP receiver; the test drives both
// (runOnce, forwardOnce) a minute of simulated time apart. The run also
// produces what the error panels show: an upstream 5xx that is retried, a
// 429 with Retry-After, a request waiting for the order rate limit, a failed delivery while the
// receiver is down. Then every query of every panel, with the variables
// substituted as Grafana does with "All" selected, must parse and return at
// least one series, as an instant query and, for time-series panels, as a
// range query.
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCollectors } from '../../src/daemon/wiring/collectors.js';
import { WAF_EVENTS_FAMILIES } from '../../src/collectors/waf-events/index.js';
import { configSchema, loadConfig, resolveCollectorOptions } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { SELF_METRICS } from '../../src/exporters/prometheus/self-metric-defs.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { startPrometheus, type RunningPrometheus } from '../exporters/prometheus/prometheus-server.js';
import { lineSink } from '../support/capture.js';

const GRAFANA_DIR = fileURLToPath(new URL('../../grafana/', import.meta.url));
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
const MIN = 60_000;
const TOKEN = 'sim-token';
const JOB = 'edge-exporter';
/** Query step, and so $__interval, in seconds. */
const STEP_S = 2;
/** Grafana's $__rate_interval floor for the default 15 s scrape interval: 4 x 15 s. */
const RATE_INTERVAL = '1m';
/** Bound on waiting for an event outside the test's control (a scrape, a delivery). */
const WAIT_MS = 15_000;
/** Every dashboard: the JSON files in grafana/. */
const FILES = readdirSync(GRAFANA_DIR).filter((f) => f.endsWith('.json')).sort();

// ------------------------------------------------------------ the JSON model (the fields read here)

interface Target {
  readonly refId: string;
  readonly expr?: string;
  /** false for instant-only queries (tables, stats). */
  readonly range?: boolean;
}

interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly targets?: readonly Target[];
  readonly panels?: readonly Panel[];
}

interface Variable {
  readonly name: string;
  readonly type: string;
  readonly query?: string | { readonly query: string };
  readonly includeAll?: boolean;
  readonly allValue?: string | null;
}

interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly __requires: readonly { readonly type: string; readonly id: string }[];
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly Variable[] };
}

async function load(file: string): Promise<Dashboard> {
  return JSON.parse(await readFile(join(GRAFANA_DIR, file), 'utf8')) as Dashboard;
}

/** Every panel, those inside collapsed rows included, rows too. */
function allPanels(panels: readonly Panel[]): Panel[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);
}

/** Each query with the panel it belongs to. */
function queriesOf(d: Dashboard): { panel: Panel; target: Target; expr: string }[] {
  return allPanels(d.panels).flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel, target, expr: target.expr ?? '' })));
}

function variableQuery(v: Variable): string {
  return typeof v.query === 'string' ? v.query : (v.query?.query ?? '');
}

/** Every value stored under a `datasource` key anywhere in the document. */
function datasourceRefs(node: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(node)) node.forEach((n) => datasourceRefs(n, out));
  else if (typeof node === 'object' && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'datasource') out.push(v);
      datasourceRefs(v, out);
    }
  }
  return out;
}

// ------------------------------------------------------------ the documented metric families

const FAMILY_LABELS: ReadonlyMap<string, readonly string[]> = (() => {
  const defaults = resolveCollectorOptions(configSchema.parse({ simulator: { enabled: true } }));
  const defs = [...allCollectors(defaults).flatMap((c) => c.families), ...WAF_EVENTS_FAMILIES, ...Object.values(SELF_METRICS)];
  const out = new Map<string, readonly string[]>();
  for (const def of defs) {
    out.set(def.name, def.labels);
    if ('type' in def && def.type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) out.set(def.name + s, [...def.labels, 'le']);
  }
  return out;
})();

/** Problems of one panel query against the house rules for dashboards. */
function lintQuery(expr: string, variables: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const m of expr.matchAll(/\b(?:rate|irate)\([^[]*\[([^\]]*)\]/g)) {
    if (m[1] !== '$__rate_interval') problems.push(`rate window [${m[1]}] is not [$__rate_interval]`);
  }
  for (const m of expr.matchAll(/\b(edge_[a-z0-9_]+)(\{[^}]*\})?/g)) {
    const [, name = '', selector = ''] = m;
    const labels = FAMILY_LABELS.get(name);
    if (!labels) {
      problems.push(`${name} is not a documented metric family`);
      continue;
    }
    if (variables.has('domain') && labels.includes('domain') && !selector.includes('domain=~"$domain"')) problems.push(`${name} without domain=~"$domain"`);
    if (variables.has('package') && labels.includes('package') && !selector.includes('package=~"$package"')) problems.push(`${name} without package=~"$package"`);
    if (variables.has('package') && labels.includes('oid') && !expr.includes('edge_l4_package_info{alias=~"$package"}')) problems.push(`${name} not joined to edge_l4_package_info{alias=~"$package"}`);
  }
  return problems;
}

describe('the dashboards in grafana/', () => {
  it('exist', () => {
    expect(FILES).toEqual(['edge-exporter-health.json', 'edge-inventory.json', 'edge-overview.json']);
  });

  it.each(FILES)('%s: importable, unique panel ids, the datasource variable, no hard-coded datasource, house query rules', async (file) => {
    const d = await load(file);
    expect(d.uid).toMatch(/^edge-exporter-/);
    const requires = new Set(d.__requires.map((r) => `${r.type}:${r.id}`));
    const panels = allPanels(d.panels);
    for (const need of ['grafana:grafana', 'datasource:prometheus', ...panels.filter((p) => p.type !== 'row').map((p) => `panel:${p.type}`)]) {
      expect(requires, need).toContain(need);
    }

    const ids = panels.map((p) => p.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);

    const variables = d.templating.list;
    expect(variables.filter((v) => v.type === 'datasource').map((v) => [v.name, variableQuery(v)])).toEqual([['datasource', 'prometheus']]);
    // Every datasource reference is the variable: nothing to edit after import or provisioning.
    expect(datasourceRefs(d).filter((ref) => JSON.stringify(ref) !== JSON.stringify(DATASOURCE))).toEqual([]);
    expect(JSON.stringify(d)).not.toMatch(/\$\{?DS_/);

    const names = new Set(variables.map((v) => v.name));
    const problems = panels
      .filter((p) => p.type !== 'row' && (p.targets ?? []).length === 0)
      .map((p) => `${p.title}: no query`)
      .concat(queriesOf(d).flatMap(({ panel, target, expr }) => lintQuery(expr, names).map((problem) => `${panel.title} ${target.refId}: ${problem}`)));
    expect(problems).toEqual([]);
  });
});

// ------------------------------------------------------------ substitution as Grafana does it

/** Grafana's escaping of one value of a multi-value or "All" variable inside a PromQL regex string. */
function regexValue(value: string): string {
  return value.replace(/\\/g, '\\\\\\\\').replace(/[$^*{}[\]'+?.()|]/g, '\\\\$&');
}

/** Replaces $name, ${name} and ${name:format}; throws on a name it does not know. */
function interpolate(text: string, vars: ReadonlyMap<string, string>): string {
  return text.replace(/\$\{(\w+)(?::\w+)?\}|\$(\w+)/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const value = vars.get(braced ?? bare ?? '');
    if (value === undefined) throw new Error(`unknown variable ${whole}`);
    return value;
  });
}

interface Window {
  readonly startS: number;
  readonly endS: number;
}

/** Grafana's built-in interval variables for a dashboard time range of `w`. */
function builtins(w: Window): Map<string, string> {
  const rangeS = Math.ceil(w.endS - w.startS);
  return new Map([
    ['__rate_interval', RATE_INTERVAL],
    ['__interval', `${STEP_S}s`],
    ['__interval_ms', String(STEP_S * 1000)],
    ['__range', `${rangeS}s`],
    ['__range_s', String(rangeS)],
    ['__range_ms', String(rangeS * 1000)],
  ]);
}

/** The demo with every collector on 1-minute buckets, WAF forwarding on, and the order rate limit at 1/s. */
function configText(apiUrl: string, otlpUrl: string, stateDir: string): string {
  return `
upstream:
  api_url: ${JSON.stringify(apiUrl)}
  token: ${TOKEN}
  timeout: 5s
  order_rate_limit: 1
  retry: { attempts: 2, min_delay: 10ms, max_delay: 50ms }
log: { level: warn }
collectors:
  defaults: { jitter: 0s, delay: 3m }
  access: { interval: 1m }
  usage: { interval: 1m }
  topn: { interval: 1m }
  cc_attack: { interval: 1m }
  waf_trend: { interval: 1m }
waf_events: { enabled: true, delay: 2m, overlap: 1m, max_window: 15m, start_from: 30m }
otlp: { endpoint: ${JSON.stringify(otlpUrl)}, timeout: 2s }
server: { listen: "127.0.0.1:0" }
state_dir: ${JSON.stringify(stateDir)}
`;
}

describe('every dashboard panel against a real Prometheus scraping the demo', () => {
  const log: string[] = [];
  let sim: Simulator | undefined;
  let receiver: OtlpReceiver | undefined;
  let daemon: Daemon | undefined;
  let prometheus: RunningPrometheus | undefined;
  let stateDir: string | undefined;
  let startedS = 0;

  function running<T>(value: T | undefined, what: string): T {
    if (value === undefined) throw new Error(`${what} not started`);
    return value;
  }

  async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${log.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Waits until Prometheus has scraped the daemon after now. */
  async function scraped(): Promise<void> {
    const after = Date.now() / 1000;
    await until('a scrape', async () => {
      const [last] = await running(prometheus, 'Prometheus').query(`timestamp(up{job="${JOB}"})`).catch(() => []);
      return Number(last?.value[1] ?? 0) > after;
    });
  }

  async function cycle(): Promise<void> {
    const reports = await running(daemon, 'daemon').runOnce();
    const failed = reports.filter((r) => !r.ok);
    if (failed.length > 0) throw new Error(`cycle failed: ${JSON.stringify(failed)}\n${log.join('')}`);
  }

  async function forward(): Promise<void> {
    const report = await running(daemon, 'daemon').forwardOnce();
    if (!report?.ok) throw new Error(`WAF forwarding failed: ${JSON.stringify(report)}\n${log.join('')}`);
  }

  /**
   * A start near the wall clock, whole hours back until the simulator's CC
   * attacks (bursts in some hours only) fall inside the 1-hour summary window
   * of every cycle run below; otherwise the ranking panels have no data at
   * some times of day.
   */
  function startWithAttacks(): number {
    const probe = createSimulator({});
    const now = Math.floor(Date.now() / MIN) * MIN - 20 * MIN;
    for (let back = 0; back < 48; back++) {
      const start = now - back * 60 * MIN;
      if (probe.truth.total('ccAttacks', start - 50 * MIN, start - 10 * MIN) > 0) return start;
    }
    throw new Error('the simulator had no CC attack in the last 48 hours');
  }

  beforeAll(async () => {
    // Pinned near the wall clock, so panels built on time() (days to expiry, age of the last success) read sensibly.
    sim = createSimulator({ clock: { mode: 'fixed', start: startWithAttacks() } });
    const { url } = await sim.listen('127.0.0.1', 0);
    receiver = await startOtlpReceiver();
    stateDir = await mkdtemp(join(tmpdir(), 'edge-exporter-dash-'));
    const config = loadConfig({ text: configText(url, receiver.url, stateDir), env: {} });
    const logger = createLogger({
      level: config.log.level,
      destination: lineSink(log),
    });
    const simulator = sim;
    daemon = new Daemon({ config, logger, version: '0.0.0-test', clock: { now: () => simulator.clock.now() }, schedules: false });
    const metrics = new URL(await daemon.start());
    prometheus = await startPrometheus([{ name: JOB, target: metrics.host, path: '/metrics' }]);
    startedS = Date.now() / 1000;

    // The first attempt of the first getPackages fails with a 503 and is retried.
    sim.faults.add({ status5xx: 503, count: 1, operations: ['getPackages'] });
    // One access request is throttled (429, Retry-After 1 s): the exporter pauses, lowers its rate and recovers.
    sim.faults.add({ retryAfter: 1, count: 1, operations: ['describeL7DataV2'] });
    await cycle();
    // Straight away again: the order list request waits for the 1/s order rate limit.
    await cycle();
    // The receiver is down for the first delivery, which fails and is retried once it is back.
    const rx = receiver;
    const d = daemon;
    rx.setDown(true);
    const forwarding = forward();
    await until('a failed WAF delivery', async () => (await d.renderText()).includes('edge_exporter_waf_export_failures_total{'));
    rx.setDown(false);
    await forwarding;
    await scraped();
    for (let i = 0; i < 4; i++) {
      sim.clock.advance(MIN);
      await cycle();
      await forward();
      await scraped();
    }
    // A second scrape of the last cycle, so that even a series it added has the two samples rate() needs.
    await scraped();
    if (rx.records().length === 0) throw new Error('no WAF deny event was delivered');
  }, 60_000);

  afterAll(async () => {
    await prometheus?.stop();
    await daemon?.stop();
    await receiver?.close();
    await sim?.close();
    if (stateDir !== undefined) await rm(stateDir, { recursive: true, force: true });
  });

  /** Values of a `label_values(selector, label)` variable query, over the window. */
  async function labelValues(query: string, w: Window): Promise<string[]> {
    const m = /^label_values\(\s*(?:(.+?)\s*,\s*)?([a-zA-Z_]\w*)\s*\)$/.exec(query);
    if (!m) throw new Error(`unsupported variable query ${query}`);
    const match = m[1] === undefined ? '' : `&match[]=${encodeURIComponent(m[1])}`;
    return running(prometheus, 'Prometheus').api<string[]>(`/label/${m[2]}/values?start=${w.startS}&end=${w.endS}${match}`);
  }

  /** The dashboard's variables with "All" selected: allValue where set, else every value as a regex alternation. */
  async function resolveVariables(d: Dashboard, w: Window, problems: string[]): Promise<Map<string, string>> {
    const vars = builtins(w);
    for (const v of d.templating.list) {
      if (v.type === 'datasource') continue; // used only in datasource references, never in an expression
      if (v.type !== 'query') throw new Error(`${d.title}: variable ${v.name} has unsupported type ${v.type}`);
      const values = await labelValues(interpolate(variableQuery(v), vars), w);
      if (values.length === 0) problems.push(`${d.title} / variable $${v.name}: ${variableQuery(v)} returned no values`);
      vars.set(v.name, v.includeAll && v.allValue ? v.allValue : `(${values.map(regexValue).join('|')})`);
    }
    return vars;
  }

  /** Runs one query: undefined when it parsed and returned a series, else why not. */
  async function check(expr: string, w: Window, range: boolean): Promise<string | undefined> {
    const q = encodeURIComponent(expr);
    const path = range ? `/query_range?query=${q}&start=${w.startS}&end=${w.endS}&step=${STEP_S}` : `/query?query=${q}&time=${w.endS}`;
    try {
      const data = await running(prometheus, 'Prometheus').api<{ result: readonly unknown[] }>(path);
      return data.result.length > 0 ? undefined : 'no data';
    } catch (err) {
      // The helper's message starts with the request path; the query is reported once, after it.
      return (err instanceof Error ? err.message : String(err)).replace(/^Prometheus API \S+: /, '');
    }
  }

  it('every panel query parses and returns data, with every variable resolving to values', async () => {
    // The dashboard time range: from Prometheus' start to now.
    const w = { startS: Math.floor(startedS), endS: Date.now() / 1000 };
    const problems: string[] = [];
    let count = 0;
    for (const file of FILES) {
      const d = await load(file);
      const vars = await resolveVariables(d, w, problems);
      for (const { panel, target, expr } of queriesOf(d)) {
        const where = `${d.title} / ${panel.title} / ${target.refId}`;
        let promql: string;
        try {
          promql = interpolate(expr, vars);
        } catch (err) {
          problems.push(`${where}: ${String(err)}`);
          continue;
        }
        // Every query is also run as an instant query (what a table or stat does); range ones over the window too.
        for (const range of target.range === false ? [false] : [false, true]) {
          count++;
          const problem = await check(promql, w, range);
          if (problem) problems.push(`${where} (${range ? 'range' : 'instant'}): ${problem} — ${promql}`);
        }
      }
    }
    expect(problems, `${problems.length} of ${count} panel queries failed:\n${problems.join('\n')}`).toEqual([]);
  }, 30_000);
});
