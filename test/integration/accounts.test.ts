// Several accounts in one real Daemon against simulators of their own
// (different seeds, domain counts, platform time zones, tokens; one throttling
// at 429): each account's counters equal its own simulator's truth, with
// `account` on every series; one account down or throttled leaves the others'
// counts and freshness as they would be alone; a reload adds and removes an
// account without a request sent again for the others; a restart restores
// every account's state; two accounts holding the same domain name stay
// apart; and no account's token reaches another's simulator, the log, the
// status page or /metrics.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DOMAIN_REQUESTS, DOMAIN_RESPONSES, DOMAIN_TRAFFIC_BYTES } from '../../src/collectors/access/metrics.js';
import { lastSettledStart } from '../../src/collectors/buckets.js';
import { seriesKey } from '../../src/collectors/series/keys.js';
import { PACKAGE_TRAFFIC_BYTES } from '../../src/collectors/usage/metrics.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import type { StatMetric } from '../../src/simulator/stats.js';
import { lineSink } from '../support/capture.js';
import { decodeMetricsWithProtoc, flattenPoints } from '../support/otlp-metrics-decode.js';
import { startOtlpMetricsReceiver } from '../support/otlp-metrics-receiver.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { labelsOf, startReceiver } from '../exporters/remote-write/support.js';
import { parseExposition, type Series } from './fault-rig.js';

/** 2026-03-02 12:00:00 at UTC+8. */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const MIN = 60_000;
const DELAY_MS = 3 * MIN;

interface AccountSpec {
  readonly name: string;
  readonly seed: number;
  readonly domains: number;
  /** The platform's UTC offset, and so the account's upstream.timezone. */
  readonly offset: string;
  readonly token: string;
}

const EU: AccountSpec = { name: 'eu', seed: 1, domains: 3, offset: '+08:00', token: 'eu-token-5a1c9e' };
const US: AccountSpec = { name: 'us', seed: 2, domains: 5, offset: '+09:00', token: 'us-token-77b2d4' };
const AP: AccountSpec = { name: 'ap', seed: 3, domains: 2, offset: '+08:00', token: 'ap-token-c03f18' };
/** Both worlds hold it (seeds 1 and 2), with traffic of their own. */
const SHARED_DOMAIN = 'img.site-001.example.com';

interface Upstream {
  readonly spec: AccountSpec;
  readonly sim: Simulator;
  readonly url: string;
}

const ACCESS_COUNTERS: ReadonlyArray<readonly [string, Record<string, string>, StatMetric]> = [
  [DOMAIN_REQUESTS.name, {}, 'requests'],
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'edge' }, 'bytesSent'],
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'origin' }, 'upstreamBytesSent'],
  ...(['1xx', '2xx', '3xx', '4xx', '5xx'] as const).map((c) => [DOMAIN_RESPONSES.name, { code_class: c }, `status${c}` as StatMetric] as const),
];

function offsetMinutes(offset: string): number {
  const m = /^([+-])(\d\d):(\d\d)$/.exec(offset);
  if (!m) throw new Error(`bad offset ${offset}`);
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** The access and usage counters of `up` counted from the cycle at `from` to the one at `to`, each series with `account`. */
function truth(up: Upstream, fromCycle: number, toCycle: number): Series {
  const settled = (now: number): number => lastSettledStart(now, '1m', DELAY_MS, offsetMinutes(up.spec.offset));
  const from = settled(fromCycle) + MIN;
  const to = settled(toCycle) + MIN;
  const account = up.spec.name;
  const out: Series = {};
  const { truth: t, world } = up.sim;
  for (const domain of t.domains()) {
    for (const [family, labels, metric] of ACCESS_COUNTERS) out[seriesKey(family, { account, domain, ...labels })] = t.domainTotal(domain, metric, from, to);
  }
  for (const pkg of [...world.l7Packages, ...world.l4Packages].map((p) => p.alias)) {
    const domains = world.domains.filter((d) => d.doid === pkg).map((d) => d.domainName);
    out[seriesKey(PACKAGE_TRAFFIC_BYTES.name, { account, package: pkg, direction: 'in' })] = t.total('inBytes', from, to, domains);
    out[seriesKey(PACKAGE_TRAFFIC_BYTES.name, { account, package: pkg, direction: 'out' })] = t.total('bytesSent', from, to, domains);
  }
  return out;
}

const COUNTER_FAMILIES = [DOMAIN_REQUESTS.name, DOMAIN_TRAFFIC_BYTES.name, DOMAIN_RESPONSES.name, PACKAGE_TRAFFIC_BYTES.name];

/** The counter series of the account named `account`. */
function countersOf(m: Series, account: string): Series {
  return Object.fromEntries(Object.entries(m).filter(([key]) => COUNTER_FAMILIES.some((f) => key.startsWith(`${f}{`)) && key.includes(`account="${account}"`)));
}

function accountYaml(up: Upstream): string {
  return [
    `  - name: ${up.spec.name}`,
    '    upstream:',
    `      api_url: ${JSON.stringify(up.url)}`,
    `      token: ${up.spec.token}`,
    `      timezone: "${up.spec.offset}"`,
  ].join('\n');
}

function configText(ups: readonly Upstream[], stateDir: string, extra: readonly string[] = []): string {
  return `
upstream:
  timeout: 1000ms
  retry: { attempts: 1, min_delay: 10ms, max_delay: 50ms }
log: { level: info }
collectors:
  defaults: { jitter: 0s, delay: 3m }
  access: { interval: 1m, summary_window: 10m }
  usage: { interval: 1m, summary_window: 10m }
  topn: { enabled: false }
  cc_attack: { enabled: false }
  waf_trend: { enabled: false }
  inventory: { enabled: false }
targets: { refresh: 1m }
server: { listen: "127.0.0.1:0" }
state_dir: ${JSON.stringify(stateDir)}
${extra.join('\n')}
accounts:
${ups.map(accountYaml).join('\n')}
`;
}

interface Rig {
  readonly ups: readonly Upstream[];
  readonly stateDir: string;
  readonly log: string[];
  daemon: Daemon;
  url: string;
  /** The config text the next reload or start reads. */
  text: string;
  /** Advances every simulator's clock, then runs every account's collectors once. */
  cycle(advanceMs?: number): Promise<void>;
  scrape(): Promise<Series>;
  page(): Promise<string>;
  /** Stops the daemon and starts a new one on the same state directory and config. */
  restart(): Promise<void>;
}

const rigs: Rig[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) {
    await rig.daemon.stop();
    await Promise.all(rig.ups.map((u) => u.sim.close()));
    await rm(rig.stateDir, { recursive: true, force: true });
  }
});

async function upstream(spec: AccountSpec): Promise<Upstream> {
  const sim = createSimulator({
    seed: spec.seed, domains: spec.domains, tz: spec.offset,
    clock: { mode: 'fixed', start: T0 },
    tokens: [{ token: spec.token, permissions: '*' }],
  });
  const { url } = await sim.listen('127.0.0.1', 0);
  return { spec, sim, url };
}

/** A daemon over `specs` (all simulators started; the config lists `listed`, all by default). */
async function rig(specs: readonly AccountSpec[], listed?: readonly string[], extra: readonly string[] = []): Promise<Rig> {
  const ups = await Promise.all(specs.map(upstream));
  const stateDir = await mkdtemp(join(tmpdir(), 'edge-accounts-'));
  const log: string[] = [];
  const first = ups[0];
  if (!first) throw new Error('no account');
  const make = (text: string): Daemon => {
    const read = (): Config => loadConfig({ text: r.text, env: {} });
    return new Daemon({
      config: loadConfig({ text, env: {} }),
      logger: createLogger({ level: 'info', destination: lineSink(log) }),
      version: '0.0.0-test',
      clock: { now: () => first.sim.clock.now() },
      schedules: false,
      reloadConfig: read,
    });
  };
  const text = configText(ups.filter((u) => listed?.includes(u.spec.name) ?? true), stateDir, extra);
  const r: Rig = {
    ups, stateDir, log, text,
    daemon: make(text),
    url: '',
    async cycle(advanceMs = 0) {
      for (const u of ups) u.sim.clock.advance(advanceMs);
      await r.daemon.runOnce();
    },
    async scrape() {
      const res = await fetch(`${r.url}/metrics`, { signal: AbortSignal.timeout(5000) });
      expect(res.status).toBe(200);
      return parseExposition(await res.text());
    },
    async page() {
      const res = await fetch(`${r.url}/`, { signal: AbortSignal.timeout(5000) });
      return res.text();
    },
    async restart() {
      await r.daemon.stop();
      r.daemon = make(r.text);
      r.url = await r.daemon.start();
    },
  };
  rigs.push(r);
  r.url = await r.daemon.start();
  return r;
}

function up(r: Rig, name: string): Upstream {
  const found = r.ups.find((u) => u.spec.name === name);
  if (!found) throw new Error(`no account ${name}`);
  return found;
}

describe('several accounts in one daemon', () => {
  it('counts each account against its own simulator, every series with account; the same domain name in two accounts stays apart', async () => {
    const r = await rig([EU, US, AP]);
    const start = T0;
    await r.cycle();
    await r.cycle(MIN);
    await r.cycle(MIN);
    const m = await r.scrape();
    for (const u of r.ups) {
      const expected = truth(u, start, start + 2 * MIN);
      expect(Object.keys(expected).length).toBe(u.spec.domains * ACCESS_COUNTERS.length + 2 * (u.sim.world.l7Packages.length + u.sim.world.l4Packages.length));
      expect(countersOf(m, u.spec.name)).toEqual(expected);
      expect(Object.values(expected).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    }
    // No data series without its account.
    const unlabelled = Object.keys(m).filter((k) => /^edge_(domain|package)_/.test(k) && !k.includes('account="'));
    expect(unlabelled).toEqual([]);
    // The shared name: two series, each its own account's truth, and they differ.
    const eu = m[seriesKey(DOMAIN_REQUESTS.name, { account: 'eu', domain: SHARED_DOMAIN })];
    const us = m[seriesKey(DOMAIN_REQUESTS.name, { account: 'us', domain: SHARED_DOMAIN })];
    expect(eu).toBe(up(r, 'eu').sim.truth.domainTotal(SHARED_DOMAIN, 'requests', lastSettledStart(start, '1m', DELAY_MS, 480) + MIN, lastSettledStart(start + 2 * MIN, '1m', DELAY_MS, 480) + MIN));
    expect(us).toBeGreaterThan(0);
    expect(us).not.toBe(eu);
    // Self-metrics by account; the daemon's own without it.
    for (const name of ['eu', 'us', 'ap']) {
      expect(m[seriesKey('edge_exporter_collector_up', { account: name, collector: 'access' })]).toBe(1);
      expect(m[seriesKey('edge_exporter_upstream_requests_total', { account: name, operation: 'describeL7DataV2', outcome: 'success' })]).toBe(up(r, name).sim.budget.received().filter((q) => q.operation === 'describeL7DataV2').length);
    }
    expect(Object.keys(m).filter((k) => k.startsWith('edge_exporter_build_info{'))).toHaveLength(1);
    expect(Object.keys(m).some((k) => k.startsWith('edge_exporter_build_info{') && k.includes('account='))).toBe(false);
    // Each account's state in a directory of its own.
    expect((await readdir(join(r.stateDir, 'accounts'))).sort()).toEqual(['ap', 'eu', 'us']);
    // Each account's log lines say whose they are.
    for (const name of ['eu', 'us', 'ap']) expect(r.log.some((l) => l.includes(`"account":"${name}"`) && l.includes('"component":"targets"'))).toBe(true);
  }, 60_000);

  it('one account throttled at 429 and one down leave the third\'s counts and freshness as they would be alone', async () => {
    const r = await rig([EU, US, AP]);
    await r.cycle();
    up(r, 'ap').sim.budget.set({ perSecond: 2, retryAfterSeconds: 1 });
    up(r, 'us').sim.faults.set([{ status5xx: 500 }]);
    await r.cycle(MIN);
    await r.cycle(MIN);
    const m = await r.scrape();
    const eu = up(r, 'eu');
    expect(countersOf(m, 'eu')).toEqual(truth(eu, T0, T0 + 2 * MIN));
    // Fresh: the newest bucket counted is the last settled one, as with eu alone.
    const lag = m[seriesKey('edge_exporter_collector_data_lag_seconds', { account: 'eu', collector: 'access' })];
    expect(lag).toBe((T0 + 2 * MIN - (lastSettledStart(T0 + 2 * MIN, '1m', DELAY_MS, 480) + MIN)) / 1000);
    expect(m[seriesKey('edge_exporter_collector_up', { account: 'eu', collector: 'access' })]).toBe(1);
    expect(m[seriesKey('edge_exporter_collector_up', { account: 'us', collector: 'access' })]).toBe(0);
    // The 429s are ap's alone: its throttle counter and rate moved, eu's did not.
    const throttled = Object.entries(m).filter(([k]) => k.startsWith('edge_exporter_upstream_throttled_total{'));
    expect(throttled.length).toBeGreaterThan(0);
    expect(throttled.every(([k]) => k.includes('account="ap"'))).toBe(true);
    // eu keeps no budget of its own (+Inf, which the parser reads as NaN); ap's 429s set one.
    const text = await (await fetch(`${r.url}/metrics`)).text();
    expect(text).toContain('edge_exporter_upstream_rate_limit_per_second{account="eu"} +Inf\n');
    expect(m[seriesKey('edge_exporter_upstream_rate_limit_per_second', { account: 'ap' })]).toBeGreaterThan(0);
    expect(m[seriesKey('edge_exporter_upstream_rate_limit_per_second', { account: 'ap' })]).toBeLessThan(Number.POSITIVE_INFINITY);
    expect(eu.sim.budget.received().filter((q) => q.refused)).toEqual([]);
  }, 90_000);

  it('a reload adds and removes an account without asking the others anything again or touching their counters', async () => {
    const r = await rig([EU, US], ['eu']);
    await r.cycle();
    await r.cycle(MIN);
    const before = await r.scrape();
    expect(countersOf(before, 'us')).toEqual({});
    const eu = up(r, 'eu');
    const asked = eu.sim.budget.received().length;
    r.text = configText(r.ups, r.stateDir);
    expect(await r.daemon.reload()).toEqual({ ok: true });
    expect(eu.sim.budget.received().length).toBe(asked);
    const added = await r.scrape();
    expect(countersOf(added, 'eu')).toEqual(countersOf(before, 'eu'));
    // us counts from its first cycle on (the next one, a minute on).
    const usStart = eu.sim.clock.now() + MIN;
    await r.cycle(MIN);
    await r.cycle(MIN);
    const both = await r.scrape();
    expect(countersOf(both, 'eu')).toEqual(truth(eu, T0, T0 + 3 * MIN));
    expect(countersOf(both, 'us')).toEqual(truth(up(r, 'us'), usStart, usStart + MIN));
    expect(r.log.some((l) => l.includes('"configuration reloaded"') && l.includes('"us":"added"'))).toBe(true);

    const askedBoth = eu.sim.budget.received().length;
    r.text = configText([eu], r.stateDir);
    expect(await r.daemon.reload()).toEqual({ ok: true });
    expect(eu.sim.budget.received().length).toBe(askedBoth);
    const removed = await r.scrape();
    expect(countersOf(removed, 'us')).toEqual({});
    expect(Object.keys(removed).filter((k) => k.includes('account="us"'))).toEqual([]);
    expect(countersOf(removed, 'eu')).toEqual(countersOf(both, 'eu'));
    // Its state stays on disk, for its return or for removal by hand.
    expect(await readdir(join(r.stateDir, 'accounts', 'us'))).toContain('ledger-access.json');

    // Listed again, it resumes from that state: the minutes it was away are back-filled, nothing counted twice.
    r.text = configText(r.ups, r.stateDir);
    expect(await r.daemon.reload()).toEqual({ ok: true });
    await r.cycle(MIN);
    const back = await r.scrape();
    expect(countersOf(back, 'us')).toEqual(truth(up(r, 'us'), usStart, usStart + 2 * MIN));
    expect(countersOf(back, 'eu')).toEqual(truth(eu, T0, T0 + 4 * MIN));
  }, 90_000);

  it('a restart restores every account\'s state: counters continue where they were', async () => {
    const r = await rig([EU, US]);
    await r.cycle();
    await r.cycle(MIN);
    await r.restart();
    await r.cycle(MIN);
    const m = await r.scrape();
    for (const u of r.ups) expect(countersOf(m, u.spec.name)).toEqual(truth(u, T0, T0 + 2 * MIN));
  }, 60_000);

  it('keeps each token to its own account: refused nowhere, and never in the log, the status page or /metrics', async () => {
    const r = await rig([EU, US]);
    // us answers 401 to anything but its own token: had eu's token reached it, or the reverse, a collector would fail.
    await r.cycle();
    await r.cycle(MIN);
    const m = await r.scrape();
    for (const name of ['eu', 'us']) {
      expect(m[seriesKey('edge_exporter_upstream_requests_total', { account: name, operation: 'describeL7DataV2', outcome: 'success' })]).toBeGreaterThan(0);
      expect(Object.keys(m).filter((k) => k.startsWith('edge_exporter_upstream_requests_total{') && k.includes(`account="${name}"`) && !k.includes('outcome="success"'))).toEqual([]);
    }
    // A wrong token on eu: its error is told, without either token.
    up(r, 'eu').sim.setTokens([{ token: 'rotated-elsewhere', permissions: '*' }]);
    await r.cycle(MIN);
    const page = await r.page();
    const text = await (await fetch(`${r.url}/metrics`)).text();
    for (const out of [page, text, r.log.join('\n')]) {
      expect(out).not.toContain(EU.token);
      expect(out).not.toContain(US.token);
    }
    expect(page).toContain('id="account-eu"');
    expect(page).toContain('id="account-us"');
    const euSection = page.slice(page.indexOf('id="account-eu"'), page.indexOf('id="account-us"'));
    expect(euSection).toMatch(/EDGE_AUTH|401|token/i);
    const usSection = page.slice(page.indexOf('id="account-us"'));
    expect(usSection).not.toMatch(/class="error">error/);
  }, 60_000);

  it('pushes every account over one remote-write and one OTLP metrics pipe, each sample with its account; WAF records carry it as a resource attribute', async () => {
    const rw = await startReceiver();
    const om = await startOtlpMetricsReceiver();
    const logs = await startOtlpReceiver();
    try {
      const r = await rig([EU, US], undefined, [
        `remote_write: { url: "${rw.url}", batch_send_deadline: 0s, min_backoff: 10ms, max_backoff: 50ms }`,
        `otlp_metrics: { enabled: true, endpoint: "${om.url}", temporality: cumulative, batch_send_deadline: 0s, min_backoff: 10ms, max_backoff: 50ms, interval: 1s }`,
        `otlp: { endpoint: "${logs.url}", timeout: 5s }`,
        'waf_events: { enabled: true, interval: 30s, start_from: 10m, page_size: 100 }',
      ]);
      await r.cycle();
      await r.cycle(MIN);
      await r.cycle(MIN);
      for (const name of ['eu', 'us']) await r.daemon.forwardOnce(name);
      // The shared pipes' routes are logged once, not once per account; each account's WAF route with its account.
      expect(r.log.filter((l) => l.includes('"msg":"remote_write: http'))).toHaveLength(1);
      expect(r.log.filter((l) => l.includes('"msg":"otlp_metrics: http'))).toHaveLength(1);
      expect(r.log.filter((l) => l.includes('"msg":"otlp: http')).map((l) => /"account":"(\w+)"/.exec(l)?.[1]).sort()).toEqual(['eu', 'us']);
      const m = await r.scrape();
      await r.daemon.stop();

      // Remote-write: the newest sample of each requests series is its account's counter; none without an account.
      const newest = new Map<string, number>();
      for (const series of rw.requests.flatMap((req) => req.series)) {
        const labels = labelsOf(series);
        if (labels.__name__ !== DOMAIN_REQUESTS.name) continue;
        expect(labels.account === 'eu' || labels.account === 'us', JSON.stringify(labels)).toBe(true);
        const { __name__: name, job, ...rest } = labels;
        expect(job).toBe('edge-exporter');
        for (const x of series.samples) newest.set(seriesKey(name ?? '', rest), x.value);
      }
      const requests = (account: string) => Object.fromEntries(Object.entries(countersOf(m, account)).filter(([k]) => k.startsWith(`${DOMAIN_REQUESTS.name}{`)));
      const expected = { ...requests('eu'), ...requests('us') };
      expect(Object.keys(expected)).toHaveLength(EU.domains + US.domains);
      expect(Object.fromEntries(newest)).toEqual(expected);

      // OTLP metrics: the same numbers, the account an attribute of each point.
      const points = [];
      for (const post of om.delivered()) points.push(...flattenPoints(await decodeMetricsWithProtoc(post.body)));
      const last = new Map<string, number>();
      for (const p of points.filter((x) => x.metric === 'edge_domain_requests')) {
        last.set(seriesKey(DOMAIN_REQUESTS.name, { account: String(p.attributes.account), domain: String(p.attributes.domain) }), Number(p.value));
      }
      expect(Object.fromEntries(last)).toEqual(expected);
      // Per-account self-metrics carry it there too; the pipes' own do not.
      expect(points.some((p) => p.metric === 'edge_exporter_collector_up' && p.attributes.account === 'us')).toBe(true);
      expect(points.filter((p) => p.metric.startsWith('edge_exporter_otlp_metrics_')).every((p) => p.attributes.account === undefined)).toBe(true);

      // OTLP logs: every record's resource names its account, and its domain is that account's.
      const records = logs.records();
      const accounts = new Set(records.map((x) => x.resource.account));
      expect(accounts).toEqual(new Set(['eu', 'us']));
      for (const record of records) {
        const world = up(r, String(record.resource.account)).sim.world.domains.map((d) => d.domainName);
        expect(world).toContain(record.attributes['server.address']);
      }
    } finally {
      await Promise.all([rw.close(), om.close(), logs.close()]);
    }
  }, 90_000);

  it('a reload that breaks one account keeps that one on its previous config, naming it, and applies the other\'s change', async () => {
    const r = await rig([EU, US]);
    await r.cycle();
    await r.cycle(MIN);
    const before = await r.scrape();
    const us = up(r, 'us');
    const asked = us.sim.budget.received().length;
    // eu names a CA file that is not there; us turns its usage collector off.
    r.text = r.text
      .replace(`      timezone: "${EU.offset}"`, `      timezone: "${EU.offset}"\n      tls: { ca_file: ${JSON.stringify(join(r.stateDir, 'no-such-ca.pem'))} }`)
      .replace(`      timezone: "${US.offset}"`, `      timezone: "${US.offset}"\n    collectors:\n      usage: { enabled: false }`);
    const outcome = await r.daemon.reload();
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.message).toMatch(/^account eu: cannot read upstream\.tls\.ca_file .*no-such-ca\.pem: no such file or directory \(ENOENT\) \(every other account's change was applied\)$/);
    // us swapped one collector out in place: nothing asked again, its usage series gone, its access counters as they were.
    expect(us.sim.budget.received().length).toBe(asked);
    const after = await r.scrape();
    expect(Object.keys(after).filter((k) => k.startsWith(`${PACKAGE_TRAFFIC_BYTES.name}{account="us"`))).toEqual([]);
    expect(Object.keys(after).filter((k) => k.startsWith(`${PACKAGE_TRAFFIC_BYTES.name}{account="eu"`)).length).toBeGreaterThan(0);
    // eu runs on, on its previous config: its next cycle counts exactly.
    await r.cycle(MIN);
    const m = await r.scrape();
    expect(countersOf(m, 'eu')).toEqual(truth(up(r, 'eu'), T0, T0 + 2 * MIN));
    expect(countersOf(before, 'us')).not.toEqual({});
  }, 60_000);

  it('refuses a reload that starts or ends the accounts: list, naming it, and runs on', async () => {
    const r = await rig([EU]);
    await r.cycle();
    const eu = up(r, 'eu');
    r.text = `
upstream:
  api_url: ${JSON.stringify(eu.url)}
  token: ${EU.token}
server: { listen: "127.0.0.1:0" }
state_dir: ${JSON.stringify(r.stateDir)}
`;
    const outcome = await r.daemon.reload();
    expect(outcome).toEqual({ ok: false, message: expect.stringMatching(/^accounts: starting or ending the accounts: list/) as unknown as string });
    expect((await r.scrape())[seriesKey('edge_exporter_collector_up', { account: 'eu', collector: 'access' })]).toBe(1);
  }, 60_000);

  it('keeps each account\'s schedule: a small account runs on every tick while a large one\'s run hangs', async () => {
    // Real clocks and real schedules: every second for access, the only collector.
    const big = createSimulator({ seed: 4, domains: 40, tokens: [{ token: 'big-token-6b1e', permissions: '*' }] });
    const small = createSimulator({ seed: 5, domains: 2, tokens: [{ token: 'small-token-0c7d', permissions: '*' }] });
    const stateDir = await mkdtemp(join(tmpdir(), 'edge-accounts-fair-'));
    const [bigUrl, smallUrl] = [(await big.listen('127.0.0.1', 0)).url, (await small.listen('127.0.0.1', 0)).url];
    // The large account's upstream holds every statistics answer for a minute: its first access run stays in flight.
    big.faults.set([{ latencyMs: 60_000, operations: ['describeL7DataV2'] }]);
    const daemon = new Daemon({
      config: loadConfig({
        text: `
upstream: { retry: { attempts: 1 } }
log: { level: warn }
collectors:
  defaults: { jitter: 0s }
  access: { schedule: "* * * * * *" }
  usage: { enabled: false }
  topn: { enabled: false }
  cc_attack: { enabled: false }
  waf_trend: { enabled: false }
  inventory: { enabled: false }
server: { listen: "127.0.0.1:0" }
state_dir: ${JSON.stringify(stateDir)}
accounts:
  - name: big
    upstream: { api_url: ${JSON.stringify(bigUrl)}, token: big-token-6b1e, timeout: 120s }
  - name: small
    upstream: { api_url: ${JSON.stringify(smallUrl)}, token: small-token-0c7d }
`,
        env: {},
      }),
      logger: createLogger({ level: 'warn', destination: lineSink([]) }),
      version: '0.0.0-test',
    });
    try {
      const url = await daemon.start();
      const runs = async (account: string): Promise<number> => {
        const m = parseExposition(await (await fetch(`${url}/metrics`)).text());
        return m[seriesKey('edge_exporter_collector_runs_total', { account, collector: 'access', outcome: 'success' })] ?? 0;
      };
      // Three runs of the small account after its first: three ticks kept while the large one's first run hangs.
      await expect.poll(() => runs('small'), { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(4);
      expect(await runs('big')).toBe(0);
      const page = await (await fetch(`${url}/`)).text();
      const bigSection = page.slice(page.indexOf('id="account-big"'), page.indexOf('id="account-small"'));
      expect(bigSection).toMatch(/class="running">running/);
    } finally {
      await daemon.stop();
      await Promise.all([big.close(), small.close()]);
      await rm(stateDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('sends a page once when its account is rebuilt by a reload while the page is on the wire', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The first request is answered only after the reload; every other at once.
    const rw = await startReceiver(async (index) => {
      if (index === 0) await held;
      return { status: 204 };
    });
    try {
      const r = await rig([EU, US], undefined, [`remote_write: { url: "${rw.url}", batch_send_deadline: 0s, min_backoff: 10ms, max_backoff: 50ms }`]);
      await r.cycle();
      await r.cycle(MIN);
      await rw.received(1);
      // eu's upstream changes (a longer timeout): its parts are rebuilt, its ledger restored, while its page is on the wire.
      r.text = r.text.replace(`      timezone: "${EU.offset}"`, `      timezone: "${EU.offset}"\n      timeout: 2000ms`);
      expect(await r.daemon.reload()).toEqual({ ok: true });
      expect(r.log.some((l) => l.includes('"configuration reloaded"') && l.includes('"eu":"rebuilt"'))).toBe(true);
      release();
      await r.cycle(MIN);
      await r.daemon.stop();
      const sent = rw.requests.flatMap((req) => req.series.flatMap((series) => series.samples.map((x) => `${JSON.stringify(labelsOf(series))}@${x.timestamp}`)));
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.filter((key, i) => sent.indexOf(key) !== i)).toEqual([]);
      // And nothing was lost: eu's requests counter reached the receiver at every bucket counted.
      const euRequests = new Set(sent.filter((k) => k.includes('"account":"eu"') && k.includes(DOMAIN_REQUESTS.name)).map((k) => k.split('@')[1]));
      expect(euRequests.size).toBe(3);
    } finally {
      release();
      await rw.close();
    }
  }, 60_000);
});
