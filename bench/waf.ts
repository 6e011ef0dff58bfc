// WAF events benchmark: a backlog of deny events (the simulator's WafLog,
// bench/lib/waf-peers.ts) forwarded to a local OTLP/HTTP receiver by the real
// forwarder and OtlpLogSink with the config defaults (http/protobuf,
// start_from 1h, max_window 15m, page_size 500, max_batch 512), both peers in
// another process. One poll catches the backlog up (the forwarder's clock
// stands still at the start: with a running one, a backlog whose overlap takes
// over a second to read again never catches up, each new window a second
// long and re-reading the whole overlap), and a second one `overlap` later
// when the backlog's last `overlap` held more than max_window_events (the
// windows there wait to be final at once, nextWindow); reported: events/s
// overall, events/s over the first and the last third of each window's events
// (a rate falling as the window fills shows up there), peak RSS and heap.
// --events=N sizes the backlog (target: 20,000/s, flat) and runs it in this
// process, under whatever node flags and loader it was started with (run by
// hand, usually tsx). Without --events (`npm run bench -- waf`) it runs the
// issue's backlogs instead, 1M and 5M (--backlogs=N,N...), each in a node under
// the daemon's flags running this file compiled by tsc, as the daemon ships
// (no tsx), and with --base=REV the same on a checkout of REV, before and
// after side by side (bench/lib/waf-backlogs.ts). Compiled because tsx's
// loader (in Node 20 a second V8 isolate on a loader thread, esbuild, source
// maps) weighs on the very RSS the issue bounds: the forwarder, OTLP exporter
// and API client imported took 113 MiB under tsx against 78 MiB compiled, a
// 200k-event run peaked at ~165 MiB against ~133 MiB. --page-size=N and
// --max-batch=N replace the two defaults, to see what other settings would give.
//
// CPU time, not wall time, is the measure that survives a shared machine
// (issue 25): the forwarder is the only work of this process while it runs,
// so this process's CPU over the poll (/proc, every thread: GC helpers and
// libuv's pool too) is the daemon's, given per delivered event beside the
// peers' (their process's /proc). --cpu-prof[=FILE] also writes a V8 CPU
// profile of the poll (main thread; default FILE in the temp dir) and prints
// its summary by category (bench/lib/cpu-profile.ts), scaled to the main
// thread's CPU from /proc; the profiler itself costs some CPU too.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { platformClock } from '../src/api/index.js';
import type { JobLogger } from '../src/engine/job.js';
import { WafEventForwarder } from '../src/forwarder/index.js';
import { otlpSchema, wafAudit, wafEventsSchema, wafOverlap } from '../src/config/sections/waf-events.js';
import { StateStore } from '../src/state/store.js';
import { startChild } from './lib/child.js';
import { wafParts } from './lib/waf-parts.js';
import { parseProfile, profileMarkdown, summarizeProfile } from './lib/cpu-profile.js';
import { cpuSince, processCpu, type CpuTimes, type ProcessCpu } from './lib/proc-cpu.js';
import { profiled } from './lib/profiler.js';
import { compareBacklogs, DEFAULT_BACKLOGS } from './lib/waf-backlogs.js';
import { fmtBytes, fmtInt, fmtMs, table } from './lib/stats.js';

const TARGET_PER_S = 20_000;
/** The issue's 200 MB (190.7 MiB). */
const TARGET_RSS = 200_000_000;
/** Daemon CPU per delivered event that 20,000/s on one core allows. */
const TARGET_CPU_US = 1_000_000 / TARGET_PER_S;
/** Deny events per domain and minute in WafLog: 0..rate (1..4, mean 2.5) events, 40 % of them deny. */
const DENY_PER_DOMAIN_MINUTE = 0.5;

const { values } = parseArgs({
  options: {
    events: { type: 'string' }, 'page-size': { type: 'string' }, 'max-batch': { type: 'string' }, 'cpu-prof': { type: 'string' },
    backlogs: { type: 'string' }, base: { type: 'string' },
  },
  strict: false,
});
const cpuProf = values['cpu-prof'];
const wanted = Number(values.events ?? '50000');
const profileFile = typeof cpuProf === 'string' ? cpuProf : cpuProf === true ? join(tmpdir(), `edge-bench-waf-${wanted}.cpuprofile`) : undefined;
const waf = wafEventsSchema.parse({ enabled: true, ...(values['page-size'] === undefined ? {} : { page_size: Number(values['page-size']) }) });
const backlogMinutes = (waf.start_from - waf.delay) / 60_000;
const domains = Math.max(1, Math.round(wanted / (backlogMinutes * DENY_PER_DOMAIN_MINUTE)));

let maxBatch = 0;
const quiet = (): void => undefined;
const windowEnds: Array<{ at: number; forwarded: number }> = [];
function benchLogger(): JobLogger {
  return {
    debug: quiet, warn: quiet,
    info: (_fields, msg) => {
      if (msg?.startsWith('WAF event backlog') === true || msg === 'WAF event window delivered') windowEnds.push({ at: performance.now(), forwarded });
    },
    error: (fields, msg) => process.stderr.write(`${msg ?? ''} ${JSON.stringify(fields)}\n`),
    child: () => benchLogger(),
  };
}

let forwarded = 0;
let read = 0;
let repeats = 0;
const marks: Array<{ at: number; forwarded: number }> = [];
let peakRss = 0;
let peakHeap = 0;
/** Events forwarded when the sampled RSS peaked, and the sampled peaks up to the end of the first window and after it (flat: no growth after it). */
let peakRssAt = 0;
const windowPeaks = { first: 0, after: 0 };
const sampleMemory = (): void => {
  const { rss, heapUsed } = process.memoryUsage();
  if (rss > peakRss) {
    peakRss = rss;
    peakRssAt = forwarded;
  }
  peakHeap = Math.max(peakHeap, heapUsed);
  // windowEnds holds the poll's start, then each window's end.
  if (windowEnds.length < 2) windowPeaks.first = Math.max(windowPeaks.first, rss);
  else windowPeaks.after = Math.max(windowPeaks.after, rss);
};

async function main(): Promise<number> {
  const now = Date.now();
  let clockMs = now;
  const peers = await startChild('waf-peers.ts', [`--domains=${domains}`, `--from=${now - waf.start_from}`, `--to=${now - waf.delay}`],
    z.object({ upstream: z.string(), receiver: z.string(), events: z.number() }));
  const dir = await mkdtemp(join(tmpdir(), 'edge-bench-waf-'));
  const otlp = otlpSchema.parse({ endpoint: peers.ready.receiver, ...(values['max-batch'] === undefined ? {} : { max_batch: Number(values['max-batch']) }) });
  maxBatch = otlp.max_batch;
  const { sink, client, families } = wafParts(peers.ready.upstream, otlp);
  const forwarder = new WafEventForwarder({
    client, tz: platformClock('+08:00'), sink, samples: families, store: new StateStore(join(dir, 'state')), log: benchLogger(),
    intervalMs: waf.interval, ...wafOverlap(waf), delayMs: waf.delay, maxWindowMs: waf.max_window, startBackMs: waf.start_from,
    maxWindowEvents: waf.max_window_events, ...wafAudit(waf),
    query: { pageSize: waf.page_size }, headers: waf.headers,
    // Standing still: a poll ends once it reaches now - delay (see the file comment); catchUp() moves it once.
    clock: { now: () => clockMs },
    observer: {
      onForwarded: (n) => { forwarded += n; marks.push({ at: performance.now(), forwarded }); },
      onRead: (n) => (read += n),
      onDeduplicated: (n) => (repeats += n),
    },
  });
  const memoryTimer = setInterval(sampleMemory, 100);
  try {
    await sink.start();
    await forwarder.restore();
    const [daemonBefore, peersBefore] = await Promise.all([processCpu(process.pid), processCpu(peers.pid)]);
    const start = performance.now();
    windowEnds.push({ at: start, forwarded: 0 });
    // One poll, and a second `overlap` later if the first left the backlog's end unread: with more events in the
    // overlap than max_window_events, windows there wait until they are final at once (nextWindow), as they would
    // wait overlap in a running daemon. The same total: every event of the backlog, its tail's final pass included.
    const catchUp = async (): ReturnType<typeof forwarder.run> => {
      const first = await forwarder.run(new AbortController().signal);
      if (!first.ok || (first.cursorMs ?? 0) >= now - waf.delay) return first;
      clockMs = now + wafOverlap(waf).overlapMs;
      const second = await forwarder.run(new AbortController().signal);
      return { ...second, windows: first.windows + second.windows, forwarded: first.forwarded + second.forwarded };
    };
    const { result: report, profile } = profileFile === undefined ? { result: await catchUp(), profile: undefined } : await profiled(profileFile, catchUp);
    const wallMs = performance.now() - start;
    const [daemonAfter, peersAfter] = await Promise.all([processCpu(process.pid), processCpu(peers.pid)]);
    sampleMemory();
    if (!report.ok) throw new Error(`poll failed: ${JSON.stringify(report.error)}`);
    const daemonCpu = cpuSince(daemonBefore, daemonAfter);
    // What the state directory holds at the end (the checkpoint, its journal, the delivered ids' files), and the ids the
    // delivery audit keeps in memory.
    const files = await readdir(join(dir, 'state'), { recursive: true, withFileTypes: true });
    const sizes = await Promise.all(files.filter((f) => f.isFile()).map(async (f) => (await stat(join(f.parentPath, f.name))).size));
    const stateBytes = sizes.reduce((a, b) => a + b, 0);
    const auditIds = forwarder.stats().audit?.idsKept;
    print(peers.ready.events, wallMs, report.windows, { daemon: daemonCpu, peers: cpuSince(peersBefore, peersAfter) }, { stateBytes, auditIds });
    if (profile !== undefined) {
      process.stdout.write(`\n### Where the forwarder's main-thread CPU goes (\`${profileFile}\`)\n\n${profileMarkdown(summarizeProfile(parseProfile(profile)), forwarded, daemonCpu.main.userMs + daemonCpu.main.systemMs)}\n`);
    }
    return 0;
  } finally {
    clearInterval(memoryTimer);
    await sink.stop();
    await client.close();
    await peers.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Events/s between the marks nearest to `from` and `to` events forwarded. */
function rateBetween(from: number, to: number): number {
  const first = marks.find((m) => m.forwarded >= from);
  const last = marks.find((m) => m.forwarded >= to);
  if (!first || !last || last.at <= first.at) return Number.NaN;
  return ((last.forwarded - first.forwarded) / (last.at - first.at)) * 1000;
}

/** µs per delivered event of `ms` of CPU. */
const perEvent = (ms: number): number => (ms * 1000) / forwarded;
const cpuCell = (t: CpuTimes): string =>
  `${perEvent(t.userMs + t.systemMs).toFixed(1)} µs (user ${perEvent(t.userMs).toFixed(1)}, system ${perEvent(t.systemMs).toFixed(1)})`;

function print(backlog: number, wallMs: number, windows: number, cpu: { daemon: ProcessCpu; peers: ProcessCpu }, kept: { stateBytes: number; auditIds: number | undefined }): void {
  const rate = (forwarded / wallMs) * 1000;
  const { all, main } = cpu.daemon;
  const daemonMs = all.userMs + all.systemMs;
  const others: CpuTimes = { userMs: all.userMs - main.userMs, systemMs: all.systemMs - main.systemMs };
  const rows: Array<Array<string | number>> = [];
  for (let i = 1; i < windowEnds.length; i++) {
    const from = windowEnds[i - 1]?.forwarded ?? 0;
    const to = windowEnds[i]?.forwarded ?? 0;
    const n = to - from;
    if (n < 3 * 512) continue;
    const head = rateBetween(from, from + Math.floor(n / 3));
    const tail = rateBetween(to - Math.floor(n / 3), to);
    rows.push([i, fmtInt(n), fmtInt(Math.round(head)), fmtInt(Math.round(tail)), (tail / head).toFixed(2)]);
  }
  const rss = Math.max(peakRss, process.resourceUsage().maxRSS * 1024);
  const tuned = values['page-size'] !== undefined || values['max-batch'] !== undefined;
  const settings = tuned ? `page_size ${waf.page_size}, max_batch ${maxBatch}` : 'config defaults';
  process.stdout.write(`## WAF events (upstream -> OTLP http/protobuf, ${settings})\n\n`);
  process.stdout.write(`${fmtInt(backlog)} deny events in the backlog (${domains} domains, ${backlogMinutes} min); ${fmtInt(forwarded)} forwarded in ${fmtMs(wallMs)}, ` +
    `${windows} windows; ${fmtInt(read)} records read, ${fmtInt(repeats)} of them again (a final pass, a cut window read again).\n`);
  process.stdout.write(`CPU time from /proc over the poll (10 ms ticks; the daemon: this process, every thread; the peers: theirs)${profileFile === undefined ? '' : ', with the CPU profiler on'}.\n\n`);
  process.stdout.write(`${table(['measure', 'value', 'target'], [
    ['events/s overall (wall)', fmtInt(Math.round(rate)), `>= ${fmtInt(TARGET_PER_S)}`],
    ['daemon CPU per delivered event', cpuCell(all), `<= ${TARGET_CPU_US} µs`],
    ['- main thread (JavaScript)', cpuCell(main), ''],
    ['- other threads (V8 GC helpers, compiler, libuv pool)', cpuCell(others), ''],
    ['events/s per core of daemon CPU', fmtInt(Math.round((forwarded / daemonMs) * 1000)), `>= ${fmtInt(TARGET_PER_S)}`],
    ['daemon CPU / wall (cores busy)', (daemonMs / wallMs).toFixed(2), ''],
    ['peers CPU per delivered event (upstream + receiver)', cpuCell(cpu.peers.all), ''],
    ['peak RSS', fmtBytes(rss), `< ${fmtBytes(TARGET_RSS)}`],
    ['peak RSS sampled at (events forwarded)', `${fmtInt(peakRssAt)} of ${fmtInt(forwarded)}`, ''],
    ['peak RSS sampled in the first window / after it', `${fmtBytes(windowPeaks.first)} / ${fmtBytes(windowPeaks.after)}`, 'flat: no growth after the first window'],
    ['peak heap used', fmtBytes(peakHeap), ''],
    ['state on disk at the end (checkpoint, journal, delivered ids)', fmtBytes(kept.stateBytes), ''],
    ['ids the delivery audit keeps in memory at the end (8-byte hashes)', kept.auditIds === undefined ? 'no audit' : fmtInt(kept.auditIds), ''],
  ])}\n\n`);
  process.stdout.write(`Per window (flatness: last third's rate / first third's):\n\n${table(['window', 'events', 'first third /s', 'last third /s', 'last/first'], rows)}\n`);
}

/** --page-size and --max-batch, passed on to each run of the comparison. */
function tuning(): string[] {
  return (['page-size', 'max-batch'] as const).flatMap((k) => (typeof values[k] === 'string' ? [`--${k}=${values[k]}`] : []));
}

// Without --events (and without --cpu-prof): the backlogs of the issue, each in a node under the daemon's flags (bench/lib/waf-backlogs.ts).
if (values.events === undefined && cpuProf === undefined) {
  const backlogs = typeof values.backlogs === 'string' ? values.backlogs.split(',').map(Number) : DEFAULT_BACKLOGS;
  process.exitCode = await compareBacklogs(backlogs, typeof values.base === 'string' ? values.base : undefined, tuning());
} else {
  process.exitCode = await main();
}
