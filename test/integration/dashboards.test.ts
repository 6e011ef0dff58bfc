// The Grafana dashboards in grafana/, read from their JSON files.
//
// Static: each file parses, declares what an import needs, has unique panel
// ids, the `datasource` and `job` variables and no hard-coded datasource, a
// text panel saying how late the data is, and its queries use only documented
// metric families, `$__rate_interval` for rates, `$job` in every selector, and
// the `$domain` / `$package` / `$l4_package` variables wherever a family has
// those labels. (The schema check, `$account` included, is dashboards-schema.test.ts.)
//
// Against two accounts: a real Prometheus (loopback, 250 ms scrapes) scrapes
// one daemon serving two named accounts, `eu` and `us`, each against a
// simulator of its own (other seed, time zone and token), both on pinned
// clocks moved together (the daemon reads the first one's), with every
// collector enabled; each account forwards its WAF deny events to the same
// test OTLP receiver. The test drives the daemon (runOnce, then forwardOnce
// for each account) a minute of simulated time apart, on healthy accounts
// first. The `$account` variable of every dashboard lists exactly the two
// accounts. Every query of every panel, with the variables substituted as
// Grafana does, once with "All" selected and then once with one value of each
// variable for each account in turn (`$account` that one, the other variables
// one of its values), must parse and return at least one series, as an
// instant query and, for time-series panels, as a range query, except the
// panels listed in EXPECTED_EMPTY, which must then have no data. With one
// account selected, a per-domain panel shows that account's series and none
// of the other's (the two worlds share domain names), so a query that ignored
// `$account` would fail. A second run turns on, in both accounts, what each
// of the expected-empty panels shows (an upstream 5xx that is retried, a 429
// with Retry-After that holds the next requests back, a failed delivery while
// the receiver is down, deny records ingested late that the delivery audit
// recovers; and OTLP metrics points refused, daemon-wide) and then they must
// return data too, at "All" and with each account selected. The daemon also
// pushes its metrics over OTLP to a test receiver, so the OTLP metrics panels
// read what the real sender reported.
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCollectors } from '../../src/daemon/wiring/collectors.js';
import { WAF_EVENTS_FAMILIES } from '../../src/forwarder/index.js';
import { configSchema, loadConfig, resolveCollectorOptions } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { SELF_METRICS } from '../../src/exporters/prometheus/self-metric-defs.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { startOtlpMetricsReceiver } from '../support/otlp-metrics-receiver.js';
import { startPrometheus, type RunningPrometheus } from '../exporters/prometheus/prometheus-server.js';
import { lineSink } from '../support/capture.js';

const GRAFANA_DIR = fileURLToPath(new URL('../../grafana/', import.meta.url));
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
const MIN = 60_000;
const JOB = 'edge-exporter';

interface AccountSpec {
  readonly name: string;
  readonly seed: number;
  /** The platform's UTC offset, and so the account's upstream.timezone. */
  readonly tz: string;
  readonly token: string;
}

/**
 * The daemon's accounts, in config order: the first is the one the daemon's
 * clock reads. Both worlds hold domains of the same names (the default 20 of
 * each seed), with traffic of their own.
 */
const ACCOUNTS: readonly AccountSpec[] = [
  { name: 'eu', seed: 1, tz: '+08:00', token: 'eu-token' },
  { name: 'us', seed: 2, tz: '+09:00', token: 'us-token' },
];
/** Query step, and so $__interval, in seconds. */
const STEP_S = 2;
/**
 * Prometheus' scrape interval: the test waits for a scrape after every
 * simulated minute, so a short one shortens every step (at 1 s each wait took ~1 s).
 */
const SCRAPE_MS = 250;
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
  readonly options?: { readonly content?: string };
  readonly targets?: readonly Target[];
  readonly panels?: readonly Panel[];
}

interface Variable {
  readonly name: string;
  readonly type: string;
  readonly query?: string | { readonly query: string };
  readonly includeAll?: boolean;
  readonly multi?: boolean;
  readonly allValue?: string | null;
  readonly current?: { readonly value?: string | readonly string[] };
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

/** Metric names in an expression: documented families and the Prometheus / process series the health dashboard reads. */
const METRIC_NAME = /\b((?:edge|process|scrape|nodejs)_[a-zA-Z0-9_]+)\b(?!\s*\()(\{[^}]*\})?/g;

/** Problems of one panel or variable query against the house rules for dashboards. */
function lintQuery(expr: string, variables: ReadonlyMap<string, Variable>): string[] {
  const problems: string[] = [];
  for (const m of expr.matchAll(/\b(?:rate|irate)\([^[]*\[([^\]]*)\]/g)) {
    if (m[1] !== '$__rate_interval') problems.push(`rate window [${m[1]}] is not [$__rate_interval]`);
  }
  // A multi-value job variable is a regex; a single-value one is matched exactly.
  const job = variables.get('job')?.multi === true ? 'job=~"$job"' : 'job="$job"';
  for (const m of expr.matchAll(METRIC_NAME)) {
    const [, name = '', selector = ''] = m;
    // Every selector names the job: one store may hold the exporter's series under a scrape job and a push job.
    if (!selector.includes(job)) problems.push(`${name} without ${job}`);
    if (!name.startsWith('edge_')) continue;
    const labels = FAMILY_LABELS.get(name);
    if (!labels) {
      problems.push(`${name} is not a documented metric family`);
      continue;
    }
    if (variables.has('domain') && labels.includes('domain') && !selector.includes('domain=~"$domain"')) problems.push(`${name} without domain=~"$domain"`);
    if (variables.has('package') && labels.includes('package') && !selector.includes('package=~"$package"')) problems.push(`${name} without package=~"$package"`);
    // Layer-4 series carry an oid; the package they belong to is the alias on edge_l4_package_info, its own variable.
    if (variables.has('l4_package') && labels.includes('oid') && !/edge_l4_package_info\{[^}]*alias=~"\$l4_package"/.test(expr)) problems.push(`${name} not joined to edge_l4_package_info{alias=~"$l4_package"}`);
  }
  if (/alias=~"\$package"/.test(expr)) problems.push('a layer-4 alias filtered by the layer-7 $package');
  return problems;
}

describe('the dashboards in grafana/', () => {
  it('exist', () => {
    expect(FILES).toEqual(['edge-exporter-health.json', 'edge-inventory.json', 'edge-overview.json']);
  });

  it.each(FILES)('%s: importable, unique panel ids, the datasource and job variables, no hard-coded datasource, the delay text, house query rules', async (file) => {
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
    // The job: a query variable over the exporter's own series, starting on the scrape job the bundled set-ups use.
    const job = variables.find((v) => v.name === 'job');
    expect(job?.type).toBe('query');
    expect(variableQuery(job ?? { name: '', type: '' })).toMatch(/^label_values\(edge_[a-z_]+, job\)$/);
    expect(job?.current?.value).toBe(JOB);
    // One text panel says how late the data is, naming the `delay` key.
    expect(panels.filter((p) => p.type === 'text' && /`delay`/.test(p.options?.content ?? '') && /collectors\.defaults\.delay/.test(p.options?.content ?? ''))).toHaveLength(1);

    const byName = new Map(variables.map((v) => [v.name, v]));
    const problems = panels
      .filter((p) => p.type !== 'row' && p.type !== 'text' && (p.targets ?? []).length === 0)
      .map((p) => `${p.title}: no query`)
      .concat(queriesOf(d).flatMap(({ panel, target, expr }) => lintQuery(expr, byName).map((problem) => `${panel.title} ${target.refId}: ${problem}`)))
      // A variable's own query need not filter by itself or its siblings, only by the job.
      .concat(variables.filter((v) => v.type === 'query' && v.name !== 'job').flatMap((v) => lintQuery(variableQuery(v), new Map(job ? [['job', job]] : [])).map((problem) => `variable ${v.name}: ${problem}`)));
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

/** Grafana's rendering of selected values: a regex alternation for multi-value or "All", the value itself for a single-value variable. */
function formatValue(v: Variable, selected: readonly string[]): string {
  if (v.multi !== true && v.includeAll !== true) return selected[0] ?? '';
  const escaped = selected.map(regexValue);
  return escaped.length === 1 ? (escaped[0] ?? '') : `(${escaped.join('|')})`;
}

/**
 * The one-value run picks, where listed here, the value named by the first
 * series of this query (the variables before it substituted), so that one
 * value can show data in every panel it filters: a domain of the selected
 * account with a hosted certificate, among the most attacked and with WAF
 * denies, and its package. (Joined on the account too: both accounts hold
 * domains of the same names.) The account is the run's; other variables take
 * their saved value, else the first listed.
 */
const BUSY_DOMAIN =
  'edge_domain_info{job="$job", account=~"$account"} and on (account, domain) edge_domain_certificate_expiry_timestamp_seconds{job="$job"} and on (account, domain) edge_cc_top_domain_attack_requests{job="$job"} and on (account, domain) edge_waf_denied_requests_total{job="$job"}';
const PICK: ReadonlyMap<string, string> = new Map([
  ['package', BUSY_DOMAIN],
  ['domain', `${BUSY_DOMAIN} and on (account, package) edge_domain_info{job="$job", account=~"$account", package=~"$package"}`],
]);

/** How a run sets the variables: "all" (All where offered) or "one" (one value each), with one account selected or, undefined, All. */
interface Run {
  readonly label: string;
  readonly mode: 'all' | 'one';
  readonly account?: string;
}

/** The runs every panel query goes through: All, then one value of each variable with each account selected in turn. */
const RUNS: readonly Run[] = [{ label: 'all', mode: 'all' }, ...ACCOUNTS.map((a): Run => ({ label: `one, account ${a.name}`, mode: 'one', account: a.name }))];

/**
 * Panels with no data on a healthy account, by dashboard and title, with what
 * gives them data; the second run produces each of these.
 */
const EXPECTED_EMPTY: ReadonlyMap<string, string> = new Map([
  ['Edge / Exporter health / Upstream errors by operation and outcome', 'an upstream 5xx or 429'],
  ['Edge / Exporter health / Retries by operation', 'an upstream 5xx, retried'],
  ['Edge / Exporter health / Throttled answers by operation', 'a 429 with Retry-After'],
  ['Edge / Exporter health / Rate-limit waits by operation', 'a request held back by the request budget: after a 429, until its Retry-After'],
  ['Edge / Exporter health / WAF export failures by code', 'the OTLP receiver down'],
  ['Edge / Exporter health / OTLP metrics points given up by reason', 'points the OTLP metrics receiver refused'],
]);

/**
 * Panels that must have no data in the one-value runs, and why: the domain
 * picked in each account is an active one (it has traffic, attacks and
 * denies). The "All" run shows the accounts' inactive domains.
 */
const EMPTY_FOR_ONE_VALUE: ReadonlyMap<string, string> = new Map([['Edge / Inventory / Domains not active', 'the picked domain is active']]);

/** One entry of `accounts:`: the account's own upstream, the rest inherited. */
function accountYaml(spec: AccountSpec, apiUrl: string): string {
  return [
    `  - name: ${spec.name}`,
    '    upstream:',
    `      api_url: ${JSON.stringify(apiUrl)}`,
    `      token: ${spec.token}`,
    `      timezone: "${spec.tz}"`,
  ].join('\n');
}

/** The two accounts, each with every collector on 1-minute buckets and WAF forwarding on (inherited from the top level). */
function configText(apiUrls: readonly string[], otlpUrl: string, metricsUrl: string, stateDir: string): string {
  return `
upstream:
  timeout: 5s
  retry: { attempts: 2, min_delay: 10ms, max_delay: 50ms }
  # A budget far above what an account sends, so a 429 halves it to a rate that still holds nothing back
  # but its Retry-After. With none, a 429 halves the rate the daemon was sending at that moment (to ~5/s
  # here): the cycle's remaining ~60 requests then took 12 s. Every panel shows the same series either way.
  rate_limit: 10000
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
otlp_metrics: { enabled: true, endpoint: ${JSON.stringify(metricsUrl)}, batch_send_deadline: 0s, min_backoff: 10ms, max_backoff: 100ms }
server: { listen: "127.0.0.1:0" }
state_dir: ${JSON.stringify(stateDir)}
accounts:
${ACCOUNTS.map((a, i) => accountYaml(a, apiUrls[i] ?? '')).join('\n')}
`;
}

/** A sample line of `family` for `account` in an exposition, with a value of 1 or more. */
function positive(exposition: string, family: string, account: string): boolean {
  return new RegExp(`^${family}\\{(?:[^}]*,)?account="${account}"[,}].* [1-9]`, 'm').test(exposition);
}

describe('every dashboard panel against a real Prometheus scraping a daemon of two accounts', () => {
  const log: string[] = [];
  /** Each account's simulator, in ACCOUNTS order. */
  const sims: Simulator[] = [];
  let receiver: OtlpReceiver | undefined;
  let metricsReceiver: Awaited<ReturnType<typeof startOtlpMetricsReceiver>> | undefined;
  let daemon: Daemon | undefined;
  let prometheus: RunningPrometheus | undefined;
  let stateDir: string | undefined;
  /** The healthy run, as a dashboard time range. */
  let healthy: Window = { startS: 0, endS: 0 };

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

  /** Waits until Prometheus has scraped the daemon after `afterMs` (default now). */
  async function scraped(afterMs = Date.now()): Promise<void> {
    const after = afterMs / 1000;
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

  /** The cycle's points pushed over OTLP: nothing pending once the receiver confirmed them (the sender pushes on its own). */
  async function otlpMetricsPushed(): Promise<void> {
    await until('the OTLP metrics push', async () => /^edge_exporter_otlp_metrics_points_pending 0$/m.test(await running(daemon, 'daemon').renderText()));
  }

  /** Polls the WAF events of the account named `account`. */
  async function forward(account: string): Promise<void> {
    const report = await running(daemon, 'daemon').forwardOnce(account);
    if (!report?.ok) throw new Error(`WAF forwarding of ${account} failed: ${JSON.stringify(report)}\n${log.join('')}`);
  }

  /** Every account's WAF events, one account after the other. */
  async function forwardAll(): Promise<void> {
    for (const a of ACCOUNTS) await forward(a.name);
  }

  /** Moves every simulator's clock on by the same amount: the daemon reads the first one's. */
  function advance(ms: number): void {
    if (sims.length === 0) throw new Error('simulators not started');
    for (const s of sims) s.clock.advance(ms);
  }

  /**
   * More scrapes, so that a series the last step added (first scraped before
   * now) has the two samples rate() needs before the last step of a range
   * query: a query ending after the scrape waited for here has its last step
   * less than STEP_S before its end, so more than two scrape intervals after now.
   */
  async function settled(): Promise<void> {
    await scraped(Date.now() + STEP_S * 1000 + 2 * SCRAPE_MS);
  }

  /** `count` cycles a simulated minute apart, each forwarded and scraped. */
  async function minutes(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      advance(MIN);
      await cycle();
      await otlpMetricsPushed();
      await forwardAll();
      await scraped();
    }
    await settled();
  }

  /**
   * A start near the wall clock, whole hours back until both simulators' CC
   * attacks (bursts in some hours only) fall inside the 1-hour summary window
   * of every cycle run below; otherwise the ranking panels have no data at
   * some times of day, or for one account.
   */
  function startWithAttacks(): number {
    const probes = ACCOUNTS.map((a) => createSimulator({ seed: a.seed, tz: a.tz }));
    const now = Math.floor(Date.now() / MIN) * MIN - 20 * MIN;
    for (let back = 0; back < 48; back++) {
      const start = now - back * 60 * MIN;
      if (probes.every((p) => p.truth.total('ccAttacks', start - 50 * MIN, start - 10 * MIN) > 0)) return start;
    }
    throw new Error('the simulators had no CC attack in the same hour in the last 48 hours');
  }

  beforeAll(async () => {
    // Pinned near the wall clock, so panels built on time() (days to expiry, age of the last success) read sensibly.
    const start = startWithAttacks();
    const urls: string[] = [];
    for (const a of ACCOUNTS) {
      const s = createSimulator({ seed: a.seed, tz: a.tz, clock: { mode: 'fixed', start }, tokens: [{ token: a.token, permissions: '*' }] });
      sims.push(s);
      urls.push((await s.listen('127.0.0.1', 0)).url);
    }
    receiver = await startOtlpReceiver();
    metricsReceiver = await startOtlpMetricsReceiver();
    stateDir = await mkdtemp(join(tmpdir(), 'edge-exporter-dash-'));
    const config = loadConfig({ text: configText(urls, receiver.url, metricsReceiver.url, stateDir), env: {} });
    const logger = createLogger({
      level: config.log.level,
      destination: lineSink(log),
    });
    const [first] = sims;
    if (!first) throw new Error('no account');
    // One engine clock for every account: the first simulator's, and every simulator is moved by the same amount.
    daemon = new Daemon({ config, logger, version: '0.0.0-test', clock: { now: () => first.clock.now() }, schedules: false });
    const metrics = new URL(await daemon.start());
    prometheus = await startPrometheus([{ name: JOB, target: metrics.host, path: '/metrics' }], { scrapeIntervalMs: SCRAPE_MS });
    const startS = Math.floor(Date.now() / 1000);

    // Healthy accounts: every request answered at once, every delivery taken.
    await cycle();
    await otlpMetricsPushed();
    await forwardAll();
    await scraped();
    await minutes(4);
    const records = receiver.records();
    for (const a of ACCOUNTS) if (!records.some((r) => r.resource.account === a.name)) throw new Error(`no WAF deny event of ${a.name} was delivered`);
    healthy = { startS, endS: Date.now() / 1000 };
  }, 60_000);

  afterAll(async () => {
    await prometheus?.stop();
    await daemon?.stop();
    await receiver?.close();
    await metricsReceiver?.close();
    await Promise.all(sims.map((s) => s.close()));
    if (stateDir !== undefined) await rm(stateDir, { recursive: true, force: true });
  });

  /** Values of a `label_values(selector, label)` variable query, over the window. */
  async function labelValues(query: string, w: Window): Promise<string[]> {
    const m = /^label_values\(\s*(?:(.+?)\s*,\s*)?([a-zA-Z_]\w*)\s*\)$/.exec(query);
    if (!m) throw new Error(`unsupported variable query ${query}`);
    const match = m[1] === undefined ? '' : `&match[]=${encodeURIComponent(m[1])}`;
    return running(prometheus, 'Prometheus').api<string[]>(`/label/${m[2]}/values?start=${w.startS}&end=${w.endS}${match}`);
  }

  /** The value PICK names for `name`, if it lists one; throws when its query finds none. */
  async function pick(name: string, vars: ReadonlyMap<string, string>, w: Window): Promise<string | undefined> {
    const query = PICK.get(name);
    if (query === undefined) return undefined;
    const [first] = await running(prometheus, 'Prometheus').query(interpolate(query, vars), w.endS);
    const value = first?.metric[name];
    if (value === undefined) throw new Error(`no value of $${name} has data in every panel it filters: ${interpolate(query, vars)} is empty`);
    return value;
  }

  /**
   * The dashboard's variables, each in turn as Grafana resolves it (a
   * variable's query sees the ones before it). `$account` is the run's
   * account, where it names one. Otherwise "all": "All" where the variable
   * has it (allValue where set, else every value), else its saved value.
   * "one": a single value, as PICK says, else the saved one, else the first listed.
   */
  async function resolveVariables(d: Dashboard, w: Window, run: Run, problems: string[]): Promise<Map<string, string>> {
    const vars = builtins(w);
    for (const v of d.templating.list) {
      if (v.type === 'datasource') continue; // used only in datasource references, never in an expression
      if (v.type !== 'query') throw new Error(`${d.title}: variable ${v.name} has unsupported type ${v.type}`);
      const values = await labelValues(interpolate(variableQuery(v), vars), w);
      if (values.length === 0) problems.push(`${d.title} / variable $${v.name} (${run.label}): ${variableQuery(v)} returned no values`);
      if (v.name === 'account' && run.account !== undefined) {
        if (!values.includes(run.account)) problems.push(`${d.title} / variable $account (${run.label}): lists ${values.join(', ')}, not ${run.account}`);
        vars.set(v.name, formatValue(v, [run.account]));
        continue;
      }
      const saved = typeof v.current?.value === 'string' && values.includes(v.current.value) ? v.current.value : undefined;
      if (run.mode === 'all' && v.includeAll === true) vars.set(v.name, v.allValue ? v.allValue : formatValue(v, values));
      else vars.set(v.name, formatValue(v, [(await pick(v.name, vars, w)) ?? saved ?? values[0] ?? '']));
    }
    return vars;
  }

  /** Runs one query: undefined when it parsed and returned a series, 'no data' when it returned none, else the error. */
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

  /**
   * Every query of the panels `which` selects, with the variables as `run`
   * sets them: the problems found and how many query runs there were. A panel
   * expected empty must have no data; every other one, data.
   */
  async function runPanels(w: Window, run: Run, which: (key: string) => boolean, expectEmpty: (key: string) => boolean): Promise<{ problems: string[]; count: number; values: string[] }> {
    const problems: string[] = [];
    const values: string[] = [];
    let count = 0;
    for (const file of FILES) {
      const d = await load(file);
      const vars = await resolveVariables(d, w, run, problems);
      values.push(...d.templating.list.filter((v) => v.type === 'query').map((v) => `${d.title} $${v.name}=${vars.get(v.name)}`));
      for (const { panel, target, expr } of queriesOf(d)) {
        const key = `${d.title} / ${panel.title}`;
        if (!which(key)) continue;
        const where = `${key} / ${target.refId} (${run.label})`;
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
          const empty = expectEmpty(key);
          if (empty ? problem !== 'no data' : problem !== undefined) {
            problems.push(`${where} ${range ? 'range' : 'instant'}: ${empty ? `expected empty, got ${problem ?? 'data'}` : problem} — ${promql}`);
          }
        }
      }
    }
    return { problems, count, values };
  }

  it('the expected-empty list names real panels', async () => {
    const keys = new Set<string>();
    for (const file of FILES) {
      const d = await load(file);
      for (const p of allPanels(d.panels)) keys.add(`${d.title} / ${p.title}`);
    }
    expect([...EXPECTED_EMPTY.keys(), ...EMPTY_FOR_ONE_VALUE.keys()].filter((k) => !keys.has(k))).toEqual([]);
  });

  it.each(FILES)('%s: the $account variable lists the two accounts', async (file) => {
    const d = await load(file);
    const account = d.templating.list.find((v) => v.name === 'account');
    if (!account) throw new Error(`${d.title}: no account variable`);
    const vars = await resolveVariables(d, healthy, { label: 'all', mode: 'all' }, []);
    expect((await labelValues(interpolate(variableQuery(account), vars), healthy)).sort()).toEqual(ACCOUNTS.map((a) => a.name).sort());
  });

  it.each(RUNS)('healthy accounts, variables at $label: every panel has data except the expected-empty ones, which have none', async (run) => {
    const empty = (key: string): boolean => EXPECTED_EMPTY.has(key) || (run.mode === 'one' && EMPTY_FOR_ONE_VALUE.has(key));
    const { problems, count, values } = await runPanels(healthy, run, () => true, empty);
    expect(problems, `${problems.length} of ${count} panel queries failed, with\n${values.join('\n')}\n\n${problems.join('\n')}`).toEqual([]);
  }, 30_000);

  it('with one account selected, a per-domain panel shows that account\'s series and none of the other\'s', async () => {
    const d = await load('edge-overview.json');
    const [peak] = queriesOf(d).filter(({ panel, target }) => panel.title === 'Peak and 95th-percentile bandwidth by domain' && target.refId === 'A');
    if (!peak) throw new Error('no peak bandwidth query');
    /** The domains the panel shows, by account. */
    const shown = async (run: Run): Promise<Map<string, Set<string>>> => {
      const problems: string[] = [];
      const vars = await resolveVariables(d, healthy, run, problems);
      expect(problems).toEqual([]);
      const out = new Map<string, Set<string>>();
      for (const row of await running(prometheus, 'Prometheus').query(interpolate(peak.expr, vars), healthy.endS)) {
        const account = row.metric.account ?? '(none)';
        out.set(account, (out.get(account) ?? new Set()).add(row.metric.domain ?? ''));
      }
      return out;
    };
    // At All, both accounts' domains, some of the same name: a query that ignored $account would show the other's with one selected.
    const all = await shown({ label: 'all', mode: 'all' });
    expect([...all.keys()].sort()).toEqual(ACCOUNTS.map((a) => a.name).sort());
    const [eu, us] = ACCOUNTS.map((a) => [...(all.get(a.name) ?? [])]);
    expect(eu?.filter((domain) => us?.includes(domain)).length).toBeGreaterThan(0);
    // Every other variable at All, the account alone selected: its domains, none of the other account's.
    for (const a of ACCOUNTS) {
      const one = await shown({ label: `all but account ${a.name}`, mode: 'all', account: a.name });
      expect([...one.keys()], a.name).toEqual([a.name]);
      expect(one.get(a.name), a.name).toEqual(all.get(a.name));
    }
  });

  it.each(RUNS)('the WAF rule panels name every rule they show by its description and category (edge_waf_rule_info), variables at $label', async (run) => {
    const d = await load('edge-overview.json');
    const vars = await resolveVariables(d, healthy, run, []);
    const joins = queriesOf(d).filter(({ expr }) => expr.includes('edge_waf_rule_info'));
    expect(joins.map(({ panel }) => panel.title).sort()).toEqual(['Denied requests by rule (top 10)', 'Top denied rules']);
    for (const { panel, expr } of joins) {
      const rows = await running(prometheus, 'Prometheus').query(interpolate(expr, vars), healthy.endS);
      expect(rows.length, panel.title).toBeGreaterThan(0);
      // The join matched: no rule fell through to the fallback without its description (each account stays under the series cap).
      for (const row of rows) expect(row.metric.description, `${panel.title}: rule ${row.metric.rule_id}`).toMatch(/\S/);
      if (expr.includes('category')) for (const row of rows) expect(row.metric.category, `${panel.title}: rule ${row.metric.rule_id}`).toMatch(/\S/);
    }
  });

  it('with upstream errors, throttling, a failed delivery, late deny records and refused OTLP metrics points, the expected-empty panels have data', async () => {
    const [rx, d] = [running(receiver, 'receiver'), running(daemon, 'daemon')];
    // In both accounts, a third of the deny records is ingested 4 minutes late, past delay + overlap (3 minutes here): the final
    // pass misses them, and a check of the delivery audit once they are in finds their buckets short and delivers them.
    for (const s of sims) s.readings.merge({ wafLateIngest: { fraction: 1 / 3, minMs: 4 * MIN, maxMs: 4 * MIN } });
    const recovered = async (): Promise<boolean> => {
      const text = await d.renderText();
      return ACCOUNTS.every((a) => positive(text, 'edge_exporter_waf_events_recovered_total', a.name));
    };
    for (let i = 0; i < 10 && !(await recovered()); i++) {
      advance(MIN);
      await forwardAll();
    }
    if (!(await recovered())) throw new Error(`the audit recovered no late deny record of some account in 10 minutes\n${log.join('')}`);
    for (const s of sims) {
      // The first attempt of a getPackages fails with a 503 and is retried.
      s.faults.add({ status5xx: 503, count: 1, operations: ['getPackages'] });
      // One access request is throttled (429, Retry-After 1 s): the exporter pauses (the requests after it wait), lowers its rate and recovers.
      s.faults.add({ retryAfter: 1, count: 1, operations: ['describeL7DataV2'] });
    }
    // The OTLP metrics receiver refuses the cycle's first request (a 4xx other than 429): its points are given up.
    running(metricsReceiver, 'OTLP metrics receiver').script([400]);
    advance(MIN);
    await cycle();
    await until('OTLP metrics points refused', async () => (await d.renderText()).includes('edge_exporter_otlp_metrics_points_failed_total{reason="refused"}'));
    // The receiver is down for a delivery of each account, which fails and is retried once it is back.
    for (const a of ACCOUNTS) {
      rx.setDown(true);
      const forwarding = forward(a.name);
      await until(`a failed WAF delivery of ${a.name}`, async () => positive(await d.renderText(), 'edge_exporter_waf_export_failures_total', a.name));
      rx.setDown(false);
      await forwarding;
    }
    await settled();
    const w = { startS: healthy.startS, endS: Date.now() / 1000 };
    const problems: string[] = [];
    let count = 0;
    for (const r of RUNS) {
      const run = await runPanels(w, r, (key) => EXPECTED_EMPTY.has(key), () => false);
      problems.push(...run.problems);
      count += run.count;
    }
    expect(count).toBeGreaterThan(0);
    expect(problems, `${problems.length} of ${count} queries failed:\n${problems.join('\n')}`).toEqual([]);
  }, 60_000);
});
