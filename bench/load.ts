// Load benchmark: the daemon as production runs it (`edge-exporter run`, its
// own process, real schedules: access and usage every minute, default 5 s
// jitter) polls a simulator with 1,000 domains answering after 50 ms (its own
// process, real clock), while `wrk -t2 -c50 --latency` scrapes /metrics for
// as long as it takes to span two scheduled cycles. Measures scrape latency
// under that load and whether polling kept its schedule: per run, the slot it
// belonged to, how late it started, how long it took, and skipped ticks or
// missed slots; one scheduled cycle without load first, for comparison.
// Bounded: a fixed wrk duration (about two minutes) and bounded waits.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { jitterOffsetMs } from '../src/engine/schedule.js';
import { startChild } from './lib/child.js';
import { startDaemon, type DaemonProcess } from './lib/daemon-process.js';
import { parseSamples } from './lib/exposition.js';
import { toolVersion } from './lib/machine.js';
import { fmtInt, fmtMs, table } from './lib/stats.js';
import { ensureTools } from './lib/tools.js';
import { runWrk, type WrkResult } from './lib/wrk.js';

const DOMAINS = 1_000;
const LATENCY_MS = 50;
const INTERVAL_MS = 60_000;
const JITTER_MS = 5_000;
const COLLECTORS = ['access', 'usage'] as const;
const WRK = { threads: 2, connections: 50 } as const;
/** A run starting later than this after its slot (boundary + offset) means the schedule did not hold. */
const LATE_LIMIT_MS = 1_000;
const FINISHED = 'collector run finished';
const IDLE_WRK_SECONDS = 10;

type Collector = (typeof COLLECTORS)[number];
interface Run { collector: Collector; startMs: number; durationMs: number; slot: number; lateMs: number }

const offset = (c: Collector): number => jitterOffsetMs(c, JITTER_MS);
/** The slot a run started in: its minute boundary, before the collector's offset. */
const slotOf = (c: Collector, t: number): number => Math.floor((t - offset(c)) / INTERVAL_MS) * INTERVAL_MS;

function configYaml(url: string, stateDir: string): string {
  return [
    `upstream: { api_url: "${url}", token: sim-token }`,
    `state_dir: ${JSON.stringify(stateDir)}`,
    'server: { listen: "127.0.0.1:0" }',
    // debug: the poller logs each finished run with its duration, from which its start follows.
    'log: { level: debug }',
    'collectors:',
    `  defaults: { jitter: ${JITTER_MS / 1000}s }`,
    '  access: { interval: 1m }',
    '  usage: { interval: 1m }',
    ...['topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }`),
  ].join('\n');
}

const base = (daemon: DaemonProcess): string => daemon.metricsUrl.replace(/\/metrics$/, '');

function runsOf(daemon: DaemonProcess): Run[] {
  return daemon.lines().flatMap((l) => {
    const collector = COLLECTORS.find((c) => c === l.fields.collector);
    const durationMs = Number(l.fields.durationMs);
    if (l.msg !== FINISHED || collector === undefined || !Number.isFinite(durationMs)) return [];
    const startMs = l.time - durationMs;
    const slot = slotOf(collector, startMs);
    return [{ collector, startMs, durationMs, slot, lateMs: startMs - slot - offset(collector) }];
  });
}

/** Waits until every collector has a finished run that started at or after `fromMs`; false after `timeoutMs`. */
async function waitForRuns(daemon: DaemonProcess, fromMs: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const done = COLLECTORS.every((c) => runsOf(daemon).some((r) => r.collector === c && r.startMs >= fromMs));
    if (done) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await daemon.waitFor((l) => l.msg === FINISHED, left, daemon.lines().length);
  }
}

async function selfMetrics(url: string): Promise<Map<string, number>> {
  const names = new Set(['edge_exporter_collector_runs_total', 'process_cpu_seconds_total']);
  const text = await (await fetch(url)).text();
  return new Map(parseSamples(text, names).map((s) => [`${s.name}${s.labels.collector ? `/${s.labels.collector}/${s.labels.outcome}` : ''}`, s.value]));
}

interface Measured {
  readonly baseline: Run[];
  readonly loaded: Run[];
  /** Slots whose offset instant fell inside the wrk run, per collector. */
  readonly slots: Record<Collector, number[]>;
  readonly wrk?: WrkResult;
  readonly wrkSeconds: number;
  /** The same wrk for a few seconds between cycles, while nothing polls. */
  readonly idle?: WrkResult;
  readonly before: Map<string, number>;
  readonly after: Map<string, number>;
  readonly skipped: number;
  readonly missed: number;
  readonly warnings: number;
  readonly failed: number;
  readonly loadWindow: readonly [number, number];
}

async function measure(daemon: DaemonProcess, wrkBinary: string | undefined): Promise<Measured> {
  // The run at start-up (discovery included) is not on the schedule; wait it out.
  if (!(await waitForRuns(daemon, 0, 120_000))) throw new Error('the start-up runs did not finish within 2 min');
  // Baseline: the next scheduled cycle, without load.
  const baselineFrom = Math.max(...COLLECTORS.map((c) => slotOf(c, Date.now()) + INTERVAL_MS));
  if (!(await waitForRuns(daemon, baselineFrom, 2 * INTERVAL_MS))) throw new Error('no scheduled cycle within 2 min');
  const baseline = runsOf(daemon).filter((r) => r.startMs >= baselineFrom && r.slot === slotOf(r.collector, baselineFrom + offset(r.collector)));
  // Scrapes while nothing polls, for comparison, if the next slot is far enough away.
  const now = Date.now();
  const untilNext = Math.min(...COLLECTORS.map((c) => slotOf(c, now) + INTERVAL_MS + offset(c))) - now;
  const idle = wrkBinary !== undefined && untilNext > IDLE_WRK_SECONDS * 1000 + 5_000
    ? await runWrk(wrkBinary, { url: base(daemon), gzip: true, ...WRK, seconds: IDLE_WRK_SECONDS })
    : undefined;
  const before = await selfMetrics(daemon.metricsUrl);
  // Long enough to cover the next two slots and runs as long as the baseline's, twice over, plus start-up slack.
  const start = Date.now();
  const secondSlot = slotOf('access', start) + 2 * INTERVAL_MS;
  const longest = Math.min(Math.max(...baseline.map((r) => r.durationMs), 10_000), 20_000);
  const wrkSeconds = Math.ceil((secondSlot + JITTER_MS + 2 * longest + 5_000 - start) / 1000);
  const wrk = wrkBinary === undefined ? undefined
    : await runWrk(wrkBinary, { url: base(daemon), gzip: true, ...WRK, seconds: wrkSeconds });
  const end = wrkBinary === undefined ? start : Date.now();
  const after = await selfMetrics(daemon.metricsUrl);
  const slots = Object.fromEntries(COLLECTORS.map((c) => {
    const out: number[] = [];
    for (let s = slotOf(c, start) + INTERVAL_MS; s + offset(c) <= end; s += INTERVAL_MS) out.push(s);
    return [c, out];
  })) as Record<Collector, number[]>;
  // A run the load ended in the middle of still counts; wait (bounded) for it to finish.
  await waitForRuns(daemon, Math.max(...COLLECTORS.map((c) => (slots[c].at(-1) ?? Infinity) + offset(c))), 2 * INTERVAL_MS);
  // Only what happened from the start of the load on: a start-up run can overlap the first slot before it.
  const lines = daemon.lines().filter((l) => l.time >= start);
  return {
    baseline,
    loaded: runsOf(daemon).filter((r) => r.startMs >= start && r.startMs <= end + LATE_LIMIT_MS),
    slots, wrk, wrkSeconds, ...(idle ? { idle } : {}), before, after,
    skipped: lines.filter((l) => l.msg.includes('tick skipped')).length,
    missed: lines.filter((l) => l.msg.startsWith('schedule slots missed')).length,
    warnings: lines.filter((l) => l.level === 'warn' || l.level === 'error').length,
    failed: lines.filter((l) => l.msg.startsWith('collector run failed')).length,
    loadWindow: [start, end],
  };
}

function runRows(runs: readonly Run[], label: string): Array<Array<string | number>> {
  return runs.map((r) => [label, r.collector, new Date(r.slot + offset(r.collector)).toISOString().slice(11, 19), `${fmtInt(Math.round(r.lateMs))} ms`, fmtMs(r.durationMs)]);
}

function verdict(m: Measured): { held: boolean; why: string[] } {
  const why: string[] = [];
  for (const c of COLLECTORS) {
    const runs = m.loaded.filter((r) => r.collector === c);
    const got = runs.map((r) => r.slot).sort((a, b) => a - b);
    if (JSON.stringify(got) !== JSON.stringify(m.slots[c])) why.push(`${c}: ran in slots ${got.map((s) => new Date(s).toISOString().slice(11, 16)).join(', ')}, expected ${m.slots[c].map((s) => new Date(s).toISOString().slice(11, 16)).join(', ')}`);
    if (m.slots[c].length < 2) why.push(`${c}: the load spanned ${m.slots[c].length} slot(s), not 2`);
    for (const r of runs) {
      if (r.lateMs > LATE_LIMIT_MS) why.push(`${c}: started ${Math.round(r.lateMs)} ms after its slot`);
      if (r.durationMs >= INTERVAL_MS) why.push(`${c}: a run took ${fmtMs(r.durationMs)}, past the next slot`);
    }
  }
  if (m.failed > 0) why.push(`${m.failed} failed run(s)`);
  if (m.skipped > 0) why.push(`${m.skipped} tick(s) skipped`);
  if (m.missed > 0) why.push(`${m.missed} missed-slot warning(s)`);
  return { held: why.length === 0, why };
}

function runsDelta(m: Measured): string {
  return COLLECTORS.map((c) => {
    const key = `edge_exporter_collector_runs_total/${c}/success`;
    return `${c} ${(m.after.get(key) ?? 0) - (m.before.get(key) ?? 0)}`;
  }).join(', ');
}

function wrkRow(label: string, seconds: number, w: WrkResult): Array<string | number> {
  return [label, `${seconds} s`, fmtInt(w.requests), w.requestsPerSecond.toFixed(1), `${(w.transferBytesPerSecond / 2 ** 20).toFixed(2)} MiB/s`,
    fmtMs(w.p50Ms), fmtMs(w.p90Ms), fmtMs(w.p99Ms), fmtMs(w.maxMs), w.errors ?? 'none'];
}

function report(m: Measured, notes: readonly string[], wrkVersion: string | undefined, load: { start: string; end: string }): string {
  const out = ['## Load (`npm run bench -- load`)', ''];
  out.push(`The daemon (\`edge-exporter run\`, own process, real schedules: access and usage every 1m, jitter ${JITTER_MS / 1000}s, other collectors off, default upstream concurrency 8) polls a simulator with ${fmtInt(DOMAINS)} domains answering every request after ${LATENCY_MS} ms (own process, real clock). One scheduled cycle runs without load; then \`wrk -t${WRK.threads} -c${WRK.connections} -d${m.wrkSeconds}s --latency\` scrapes /metrics (Accept as Prometheus sends it, gzip) across the next two slots. Load average (1/5/15 min) at the start of the benchmark: ${load.start}; at the end: ${load.end}.`, '');
  if (notes.length > 0) out.push(`Tools: ${notes.join('; ')}`, '');
  if (m.wrk) {
    const w = m.wrk;
    out.push(`${wrkVersion ?? 'wrk'}:`, '');
    const rows = [...(m.idle ? [wrkRow('idle', IDLE_WRK_SECONDS, m.idle)] : []), wrkRow('polling', m.wrkSeconds, w)];
    out.push(table(['while', 'duration', 'requests', 'req/s', 'transfer', 'p50', 'p90', 'p99', 'max', 'errors'], rows), '');
    out.push(`"idle": -d${IDLE_WRK_SECONDS}s between the baseline cycle and the next slot, nothing polling; "polling": -d${m.wrkSeconds}s across two scheduled cycles (the percentiles mix scrapes during and between cycles).`, '');
  }
  out.push('Runs (slot = minute boundary + the collector\'s fixed offset; late = start − slot; start = log time − logged duration):', '');
  out.push(table(['load', 'collector', 'slot (UTC)', 'late', 'duration'], [...runRows(m.baseline, 'none'), ...runRows(m.loaded, `wrk -c${WRK.connections}`)]), '');
  const cpu = (m.after.get('process_cpu_seconds_total') ?? NaN) - (m.before.get('process_cpu_seconds_total') ?? NaN);
  const wall = (m.loadWindow[1] - m.loadWindow[0]) / 1000;
  out.push(`Daemon CPU during the load: ${cpu.toFixed(1)} s over ${wall.toFixed(0)} s (${((100 * cpu) / wall).toFixed(0)}% of one core). Runs counted by edge_exporter_collector_runs_total while wrk ran: ${runsDelta(m)}. From the start of the load on: skipped ticks ${m.skipped}, missed-slot warnings ${m.missed}, failed runs ${m.failed}, warn/error log lines ${m.warnings}.`, '');
  if (!m.wrk) return [...out, 'wrk missing: only the baseline was measured.'].join('\n');
  const v = verdict(m);
  out.push(`Schedule held under load (every slot inside the load ran once, started within ${LATE_LIMIT_MS} ms, finished before the next slot, no failed run, no skipped tick): ${v.held ? 'yes' : `NO — ${v.why.join('; ')}`}.`);
  return out.join('\n');
}

const loadavg = (): string => os.loadavg().map((l) => l.toFixed(2)).join(', ');

async function main(): Promise<number> {
  const start = loadavg();
  const tools = ensureTools(['wrk']);
  const sim = await startChild('sim-server.ts', ['--domains', String(DOMAINS), '--latency-ms', String(LATENCY_MS)], z.object({ url: z.string() }));
  const dir = await mkdtemp(join(tmpdir(), 'edge-bench-load-'));
  let daemon: DaemonProcess | undefined;
  try {
    const file = join(dir, 'config.yaml');
    await writeFile(file, configYaml(sim.ready.url, join(dir, 'state')));
    daemon = await startDaemon(file);
    const m = await measure(daemon, tools.wrk);
    process.stdout.write(`${report(m, tools.notes, tools.wrk ? toolVersion(tools.wrk, ['-v']) : undefined, { start, end: loadavg() })}\n`);
    return m.wrk === undefined || verdict(m).held ? 0 : 1;
  } finally {
    await daemon?.stop();
    await sim.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
