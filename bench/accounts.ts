// Several accounts in one daemon against one daemon per account (issue 38):
// 10 simulators (seeds 1-10, --domains each, default 100, each its own token,
// on loopback, the real clock) serve in this process; then, one case after
// the other, never together,
//   A. one `edge-exporter run` whose `accounts:` lists the 10 accounts, and
//   B. 10 `edge-exporter run`, one plain single-account config each (its own
//      state_dir, 127.0.0.1:0),
// both with the access and usage collectors at 1m (jitter 0, the others off),
// started 30 s after a minute boundary and stopped once every account's
// access and usage have run --cycles times (the run at start-up plus one at
// each minute boundary since: the same buckets for both cases), /metrics
// scraped every 15 s as Prometheus would (every second once the last
// boundary is past, to stop soon after the last run). Measures per case: peak RSS (the
// kernel's VmHWM from /proc; case B the sum of the 10 and each one), RSS at
// the end, and the daemons' CPU (user + system, every thread, from /proc),
// start-up (to "serving metrics") and running (after it) apart. Checks the
// work was the same: 1,000 edge_domain_requests_total series in both (10 ×
// 100), every account's collectors run as often, as many upstream requests,
// and each account's counters exactly its simulator's truth over the
// buckets counted (found by search: the minutes the daemon saw depend on
// when it started), the same number of buckets in both cases.
// Linux only (reads /proc). `npm run bench -- accounts [--cycles=N] [--domains=N] [--built]`.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DOMAIN_REQUESTS } from '../src/collectors/access/metrics.js';
import { createSimulator, type Simulator } from '../src/simulator/index.js';
import { startDaemon, type DaemonProcess } from './lib/daemon-process.js';
import { parseSamples, type ScrapedSample } from './lib/exposition.js';
import { processCpu } from './lib/proc-cpu.js';
import { procMemory } from './lib/proc-mem.js';
import { fmtBytes, fmtInt, median, since, table } from './lib/stats.js';

const ACCOUNTS = 10;
const MIN = 60_000;
const SCRAPE_MS = 15_000;
/** Seconds past the minute the daemons start: start-up and the first run are done well before the next boundary's run. */
const START_SECOND = 30;
const COLLECTORS = ['access', 'usage'] as const;
const RUNS = 'edge_exporter_collector_runs_total';
const UPSTREAM_REQUESTS = 'edge_exporter_upstream_requests_total';

const { values } = parseArgs({
  options: { cycles: { type: 'string' }, domains: { type: 'string' }, built: { type: 'boolean' } },
  strict: false,
});
const CYCLES = Number(values.cycles ?? '3');
const DOMAINS = Number(values.domains ?? '100');
// --built: the daemon users run (dist/cli/main.js under plain node; `npm run build` first) instead of src under tsx.
const BUILT = values.built === true;
if (!(CYCLES >= 2) || !(DOMAINS >= 1)) throw new Error('--cycles must be at least 2 (the start-up run counts nothing), --domains at least 1');

interface Upstream {
  readonly name: string;
  readonly token: string;
  readonly sim: Simulator;
  readonly url: string;
}

/** What a case measured, each daemon read just before it was stopped. */
interface Case {
  readonly label: string;
  readonly processes: number;
  /** VmHWM of each daemon process. */
  readonly peaks: readonly number[];
  readonly rssEnd: readonly number[];
  /** CPU ms (user + system) of each daemon up to "serving metrics", and after it. */
  readonly cpuStart: readonly number[];
  readonly cpuRun: readonly number[];
  readonly wallMs: number;
  /** Successful runs of each account's collectors: the fewest and the most over accounts and collectors. */
  readonly runs: { readonly min: number; readonly max: number; readonly failed: number };
  readonly requestSeries: number;
  readonly upstreamRequests: number;
  readonly truth: readonly Check[];
}

/** One account's counters against its simulator's truth. */
interface Check {
  readonly account: string;
  /** Buckets counted, when a range of them matched every domain's counter exactly. */
  readonly buckets: number | undefined;
  readonly requests: number;
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

function commonYaml(stateDir: string): string {
  return `log: { level: info }
collectors:
  defaults: { jitter: 0s }
  access: { interval: 1m }
  usage: { interval: 1m }
  topn: { enabled: false }
  cc_attack: { enabled: false }
  waf_trend: { enabled: false }
  inventory: { enabled: false }
server: { listen: "127.0.0.1:0" }
state_dir: ${JSON.stringify(stateDir)}
`;
}

function manyAccountsYaml(ups: readonly Upstream[], stateDir: string): string {
  const entries = ups.map((u) => `  - name: ${u.name}\n    upstream: { api_url: ${JSON.stringify(u.url)}, token: ${u.token} }`);
  return `${commonYaml(stateDir)}accounts:\n${entries.join('\n')}\n`;
}

function oneAccountYaml(up: Upstream, stateDir: string): string {
  return `${commonYaml(stateDir)}upstream: { api_url: ${JSON.stringify(up.url)}, token: ${up.token} }\n`;
}

/** Waits until the wall clock is `second` seconds past a minute (the next one when that is under 5 s away or past). */
async function untilSecond(second: number): Promise<void> {
  const now = Date.now();
  let at = Math.floor(now / MIN) * MIN + second * 1000;
  if (at - now < 5_000) at += MIN;
  await new Promise((resolve) => setTimeout(resolve, at - now));
}

/** The samples of each daemon's /metrics, each with the account it belongs to (its `account` label, or the daemon's one account). */
async function scrape(daemons: ReadonlyArray<{ daemon: DaemonProcess; account?: string }>): Promise<Array<ScrapedSample & { account: string | undefined }>> {
  const names = new Set([RUNS, UPSTREAM_REQUESTS, DOMAIN_REQUESTS.name]);
  const texts = await Promise.all(daemons.map(async ({ daemon }) => (await fetch(daemon.metricsUrl, { signal: AbortSignal.timeout(10_000) })).text()));
  return texts.flatMap((text, i) => parseSamples(text, names).map((s) => ({ ...s, account: s.labels.account ?? daemons[i]?.account })));
}

function runsOf(samples: ReadonlyArray<ScrapedSample & { account: string | undefined }>, ups: readonly Upstream[]): Case['runs'] {
  const ok = ups.flatMap((u) => COLLECTORS.map((c) => sum(samples.filter((s) => s.name === RUNS && s.account === u.name && s.labels.collector === c && s.labels.outcome === 'success').map((s) => s.value))));
  const failed = sum(samples.filter((s) => s.name === RUNS && s.labels.outcome !== 'success').map((s) => s.value));
  return { min: Math.min(...ok), max: Math.max(...ok), failed };
}

/**
 * The range of 1-minute buckets [from, to) whose truth equals every domain's
 * edge_domain_requests_total of `up`, searched over the buckets that can have
 * settled between `startMs` and `endMs` (5m delay, the default).
 */
function check(up: Upstream, samples: ReadonlyArray<ScrapedSample & { account: string | undefined }>, startMs: number, endMs: number): Check {
  const counted = new Map(samples.filter((s) => s.name === DOMAIN_REQUESTS.name && s.account === up.name).map((s) => [s.labels.domain ?? '', s.value]));
  const requests = sum([...counted.values()]);
  const domains = up.sim.truth.domains();
  const lo = Math.floor((startMs - 10 * MIN) / MIN) * MIN;
  const hi = Math.floor(endMs / MIN) * MIN;
  if (counted.size !== domains.length) return { account: up.name, buckets: undefined, requests };
  for (let from = lo; from <= hi; from += MIN) {
    for (let to = from; to <= hi; to += MIN) {
      if (domains.every((d) => up.sim.truth.domainTotal(d, 'requests', from, to) === counted.get(d))) return { account: up.name, buckets: (to - from) / MIN, requests };
    }
  }
  return { account: up.name, buckets: undefined, requests };
}

/** Starts the configs' daemons together, lets every account's collectors run CYCLES times, reads /proc and /metrics, stops them. */
async function runCase(label: string, ups: readonly Upstream[], configs: ReadonlyArray<{ text: string; account?: string }>, dirs: string[]): Promise<Case> {
  await untilSecond(START_SECOND);
  const startWall = Date.now();
  const start = performance.now();
  const files = await Promise.all(configs.map(async ({ text }, i) => {
    const dir = await mkdtemp(join(os.tmpdir(), `edge-bench-accounts-${i}-`));
    dirs.push(dir);
    const file = join(dir, 'config.yaml');
    await writeFile(file, text.replace('__STATE__', join(dir, 'state')));
    return file;
  }));
  const started = await Promise.allSettled(files.map(async (file, i) => {
    const daemon = await startDaemon(file, 120_000, BUILT);
    const cpu = await processCpu(daemon.pid);
    return { daemon, cpuAtReady: cpu.all.userMs + cpu.all.systemMs, ...(configs[i]?.account === undefined ? {} : { account: configs[i]?.account }) };
  }));
  const daemons = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    const failed = started.find((s) => s.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const deadline = Date.now() + (CYCLES + 1) * MIN;
    // The minute boundary of the last run: the start-up run counts as the first.
    const lastBoundary = Math.floor(startWall / MIN) * MIN + (CYCLES - 1) * MIN;
    let runs = runsOf(await scrape(daemons), ups);
    while (runs.min < CYCLES && Date.now() < deadline) {
      const now = Date.now();
      await new Promise((resolve) => setTimeout(resolve, now >= lastBoundary ? 1_000 : Math.min(SCRAPE_MS, lastBoundary - now + 1_000)));
      runs = runsOf(await scrape(daemons), ups);
      process.stderr.write(`accounts ${label}: ${runs.min}-${runs.max} of ${CYCLES} runs per account and collector\n`);
    }
    const mem = await Promise.all(daemons.map((d) => procMemory(d.daemon.pid)));
    const cpu = await Promise.all(daemons.map(async (d) => { const c = await processCpu(d.daemon.pid); return c.all.userMs + c.all.systemMs; }));
    const wallMs = since(start);
    const samples = await scrape(daemons);
    const endWall = Date.now();
    return {
      label, processes: daemons.length, wallMs,
      peaks: mem.map((m) => m.hwm), rssEnd: mem.map((m) => m.rss),
      cpuStart: daemons.map((d) => d.cpuAtReady), cpuRun: daemons.map((d, i) => (cpu[i] ?? Number.NaN) - d.cpuAtReady),
      runs: runsOf(samples, ups),
      requestSeries: samples.filter((s) => s.name === DOMAIN_REQUESTS.name).length,
      upstreamRequests: sum(samples.filter((s) => s.name === UPSTREAM_REQUESTS).map((s) => s.value)),
      truth: ups.map((u) => check(u, samples, startWall, endWall)),
    };
  } finally {
    await Promise.all(daemons.map((d) => d.daemon.stop()));
  }
}

function spread(xs: readonly number[], fmt: (n: number) => string): string {
  return `${fmt(Math.min(...xs))} / ${fmt(median(xs))} / ${fmt(Math.max(...xs))}`;
}

const fmtS = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** Whether both cases did the same work: every series there, every run done, every account's counters its truth over as many buckets. */
function sameWork(a: Case, b: Case): boolean {
  return a.requestSeries === ACCOUNTS * DOMAINS && b.requestSeries === a.requestSeries && a.runs.min >= CYCLES && b.runs.min >= CYCLES &&
    a.truth.every((t, i) => t.buckets !== undefined && t.buckets === b.truth[i]?.buckets);
}

function report(a: Case, b: Case): string {
  const out = ['## Several accounts in one daemon (`npm run bench -- accounts`)', ''];
  out.push(`${ACCOUNTS} simulators (seeds 1-${ACCOUNTS}, ${DOMAINS} domains each, each its own token, the real clock) in the benchmark's process on loopback. ` +
    `Case A: one \`edge-exporter run\` (${BUILT ? 'built: dist/cli/main.js' : 'sources under tsx'}, the shipped node flags) with \`accounts:\` listing the ${ACCOUNTS}; ` +
    `case B: ${ACCOUNTS} \`edge-exporter run\`, one plain single-account config each. Access and usage at 1m (jitter 0, delay 5m), the other collectors off; ` +
    `each case started ${START_SECOND} s past a minute and stopped once every account's access and usage had run ${CYCLES} times (at start-up, then at each minute boundary), ` +
    `/metrics scraped every ${SCRAPE_MS / 1000} s; the cases one after the other. Peak RSS = VmHWM, CPU = user + system of every thread, from /proc; ` +
    `start-up = to the "serving metrics" log line, running = after it. Node ${process.version}, nproc ${os.availableParallelism()}.`, '');
  const peakA = sum(a.peaks);
  const peakB = sum(b.peaks);
  const cpuA = sum(a.cpuStart) + sum(a.cpuRun);
  const cpuB = sum(b.cpuStart) + sum(b.cpuRun);
  const ratio = (x: number, y: number): string => (x / y).toFixed(2);
  const buckets = (c: Case): string => {
    const bs = c.truth.map((t) => t.buckets);
    const bad = c.truth.filter((t) => t.buckets === undefined).map((t) => t.account);
    return bad.length > 0 ? `NOT the truth: ${bad.join(', ')}` : `${Math.min(...bs.map(Number))}-${Math.max(...bs.map(Number))} buckets, all ${c.truth.length} exact`;
  };
  out.push(table(
    ['', `A: one daemon, ${ACCOUNTS} accounts`, `B: ${ACCOUNTS} daemons, one account each (sum)`, 'A / B'],
    [
      ['processes', a.processes, b.processes, ''],
      ['peak RSS (VmHWM)', fmtBytes(peakA), fmtBytes(peakB), ratio(peakA, peakB)],
      ['RSS at the end', fmtBytes(sum(a.rssEnd)), fmtBytes(sum(b.rssEnd)), ratio(sum(a.rssEnd), sum(b.rssEnd))],
      ['CPU, start-up', fmtS(sum(a.cpuStart)), fmtS(sum(b.cpuStart)), ratio(sum(a.cpuStart), sum(b.cpuStart))],
      ['CPU, running', fmtS(sum(a.cpuRun)), fmtS(sum(b.cpuRun)), ratio(sum(a.cpuRun), sum(b.cpuRun))],
      ['CPU, total', fmtS(cpuA), fmtS(cpuB), ratio(cpuA, cpuB)],
      ['wall', fmtS(a.wallMs), fmtS(b.wallMs), ''],
      ['successful runs per account and collector (min-max)', `${a.runs.min}-${a.runs.max}`, `${b.runs.min}-${b.runs.max}`, ''],
      ['failed runs', a.runs.failed, b.runs.failed, ''],
      ['`edge_domain_requests_total` series', fmtInt(a.requestSeries), fmtInt(b.requestSeries), ''],
      ['counters vs each simulator\'s truth', buckets(a), buckets(b), ''],
      ['requests counted (sum of `edge_domain_requests_total`)', fmtInt(sum(a.truth.map((t) => t.requests))), fmtInt(sum(b.truth.map((t) => t.requests))), ''],
      ['upstream requests (`edge_exporter_upstream_requests_total`)', fmtInt(a.upstreamRequests), fmtInt(b.upstreamRequests), ''],
    ],
  ), '');
  out.push(`Case B per daemon (min / median / max): peak RSS ${spread(b.peaks, fmtBytes)}, CPU start-up ${spread(b.cpuStart, fmtS)}, running ${spread(b.cpuRun, fmtS)}.`, '');
  // What each account beyond the first adds to one daemon: case A less one of case B's daemons (the median), over the other accounts.
  const extra = (x: number, one: number): number => (x - one) / (ACCOUNTS - 1);
  out.push(`Each account beyond the first in one daemon ((A − B's median daemon) / ${ACCOUNTS - 1}): peak RSS ${fmtBytes(extra(peakA, median(b.peaks)))}, ` +
    `CPU running ${fmtS(extra(sum(a.cpuRun), median(b.cpuRun)))}, start-up ${fmtS(extra(sum(a.cpuStart), median(b.cpuStart)))}; ` +
    `each daemon of its own: ${fmtBytes(median(b.peaks))}, ${fmtS(median(b.cpuRun))}, ${fmtS(median(b.cpuStart))}.`, '');
  out.push(`Same work in both cases: ${sameWork(a, b) ? 'yes' : 'NO'}.`);
  return out.join('\n');
}

async function main(): Promise<number> {
  const dirs: string[] = [];
  const ups = await Promise.all(Array.from({ length: ACCOUNTS }, async (_, i): Promise<Upstream> => {
    const name = `acct-${String(i + 1).padStart(2, '0')}`;
    const token = `${name}-token-${randomBytes(6).toString('hex')}`;
    const sim = createSimulator({ seed: i + 1, domains: DOMAINS, tokens: [{ token, permissions: '*' }] });
    const { url } = await sim.listen('127.0.0.1', 0);
    return { name, token, sim, url };
  }));
  try {
    const a = await runCase('A', ups, [{ text: manyAccountsYaml(ups, '__STATE__') }], dirs);
    const b = await runCase('B', ups, ups.map((u) => ({ text: oneAccountYaml(u, '__STATE__'), account: u.name })), dirs);
    process.stdout.write(`${report(a, b)}\n`);
    return sameWork(a, b) ? 0 : 1;
  } finally {
    await Promise.all(ups.map((u) => u.sim.close()));
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  }
}

process.exitCode = await main();
