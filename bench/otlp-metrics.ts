// OTLP metrics benchmark (issue 37): OTLP's figures next to remote-write's,
// from one run of one process on the same account and the same cycles, so
// the two pipes are compared under the same load and the same code. The
// account (lib/access-cycles.ts, also bench/remote-write.ts's): --domains=N
// (default 6,667: 100,005 series) with the access collector's 15 series per
// domain (8 counters, 7 gauges) at 1-minute buckets, one bucket per cycle.
// Each pipe is the real history (a CounterLedger with the pipe's
// HistoryQueues over a StateStore in a temporary directory) and the real
// sender, built as the daemon's wiring builds them
// (src/daemon/wiring/remote-write.ts, otlp-metrics.ts) from the config
// defaults: 2,000 samples or points per request, remote-write's external
// label job="edge-exporter", OTLP's resource and scope. Each pushes to a
// counting receiver in a process of its own (lib/rw-receiver.ts,
// lib/otlp-receiver.ts), so the receivers' CPU is not in the figures. The
// pipes: remote-write; OTLP http/protobuf cumulative; OTLP http/protobuf
// delta; OTLP http/json cumulative.
//
// 1. Steady state: --cycles=N (default 12) cycles, each applied to every
//    pipe's ledger, saved and pushed (flush), and to a ledger without
//    history (off), saved. Per pipe: points pushed (the sender's observer,
//    samplesSent), requests and bytes on the wire (the receiver's counts),
//    and this process's CPU (process.cpuUsage: user + system, every thread,
//    so V8's GC helpers and libuv's pool are in it) for the cycle's apply,
//    save and push, and what that is above off, per cycle and per pushed
//    point. One ledger per pipe rather than the daemon's one ledger with
//    both histories, so each pipe's cost stands alone. The order of the
//    pipes rotates from cycle to cycle, so a GC one pipe's garbage sets off
//    in another's window falls on each alike; the figures are means over the
//    cycles after the first (which also carries every counter's first 0 and
//    warms the JIT), so the GC they cause is in them. Then one full request
//    of each pipe by compression (as sent, uncompressed, snappy, gzip),
//    measured by the receivers after the push: why the bytes differ.
// 2. Backlog: --backlog=N minutes (default 60) of cycles counted while the
//    receiver was out of reach (the sender is started only once the receiver
//    is back: a sender retrying meanwhile holds one request's points more),
//    per pipe in turn (--backlog-pipes=, default remote-write,otlp-cumulative,
//    otlp-delta): points pending; the memory the pending pages hold (heap
//    used plus ArrayBuffers, read after forced GCs with the pages pending
//    and again once they are pushed, the ledger's own totals in both: pages
//    are Float64Arrays, outside the V8 heap, so heap used alone would miss
//    them); RSS growth over the counting; peak RSS (VmHWM, reset per phase);
//    the ledger file and its one save (the daemon writes that whole file
//    every cycle, so that is each cycle's save at the hour's end); then the
//    push: wall time, points/s, CPU per point, bytes per point. The queue is
//    given room for the hour (50,000,000, the config's maximum); the default
//    max_pending_points (1,000,000) holds 10 minutes of 100k series, so the
//    hour is counted once more for OTLP cumulative at that default, to show
//    what the cap keeps, drops and costs.
//
// Needs --expose-gc (bench/run.ts passes it) and Linux (/proc/self for the peaks).
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ACCESS_V2_FAMILIES } from '../src/collectors/access/metrics.js';
import { limitsSchema } from '../src/config/sections/limits.js';
import { otlpMetricsSchema } from '../src/config/sections/otlp-metrics.js';
import { remoteWriteSchema } from '../src/config/sections/remote-write.js';
import { HistoryQueues, otlpMetricsPipe, REMOTE_WRITE_PIPE, type HistoryPipe } from '../src/counters/history/index.js';
import { CounterLedger } from '../src/counters/ledger.js';
import { buildResource, SCOPE_NAME, SEMCONV_SCHEMA_URL } from '../src/exporters/otel-logs/index.js';
import { OtlpMetricsSender } from '../src/exporters/otlp-metrics/index.js';
import { FamilyStore } from '../src/exporters/prometheus/index.js';
import type { PushObserver } from '../src/exporters/push/observer.js';
import { RemoteWriteSender } from '../src/exporters/remote-write/index.js';
import { WAF_EVENTS_FAMILIES } from '../src/forwarder/index.js';
import { directEndpoint } from '../src/outbound/index.js';
import { StateStore } from '../src/state/store.js';
import { applyCycle, cycleOutput, MIN, samplesOf } from './lib/access-cycles.js';
import { startChild } from './lib/child.js';
import { domainsFor, SERIES_PER_DOMAIN } from './lib/series.js';
import { fmtBytes, fmtInt, fmtMs, median, table } from './lib/stats.js';

const PIPES = ['remote-write', 'otlp-cumulative', 'otlp-delta', 'otlp-gzip', 'otlp-json'] as const;
type PipeName = (typeof PIPES)[number];
const isPipe = (s: string): s is PipeName => PIPES.some((p) => p === s);

const { values } = parseArgs({
  options: { domains: { type: 'string' }, cycles: { type: 'string' }, backlog: { type: 'string' }, 'backlog-pipes': { type: 'string' } },
  strict: false,
});
const DOMAINS = Number(values.domains ?? '6667');
const CYCLES = Number(values.cycles ?? '12');
const BACKLOG = Number(values.backlog ?? '60');
const BACKLOG_PIPES = String(values['backlog-pipes'] ?? 'remote-write,otlp-cumulative,otlp-delta').split(',').filter((p) => p !== '');
if (!BACKLOG_PIPES.every(isPipe)) throw new Error(`--backlog-pipes: choose from ${PIPES.join(', ')}`);
if (globalThis.gc === undefined) throw new Error('run with --expose-gc: npm run bench -- otlp-metrics (bench/run.ts passes it)');

const LABEL: Readonly<Record<PipeName, string>> = {
  'remote-write': 'remote-write (snappy protobuf)',
  'otlp-cumulative': 'OTLP http/protobuf, cumulative',
  'otlp-delta': 'OTLP http/protobuf, delta',
  'otlp-gzip': 'OTLP http/protobuf gzip, cumulative',
  'otlp-json': 'OTLP http/json, cumulative',
};
const VERSION = 'bench';
const rw = remoteWriteSchema.parse({ url: 'http://127.0.0.1:1/api/v1/write' });
const om = otlpMetricsSchema.parse({ enabled: true });
const limits = limitsSchema.parse({});
const domains = domainsFor(DOMAINS * SERIES_PER_DOMAIN);
/** Far above an hour of 100k series, within the config's maximum: the backlog is measured whole. */
const ROOM = 50_000_000;

// The def lookup and the snapshot as the wiring makes them, over a FamilyStore holding the access collector's families
// (the collectors' definitions, with the WAF forwarder's: the daemon's store with waf_events on). No WAF counter is
// published and there are no self-metrics here, so every snapshot is empty and the OTLP pipes push the counted buckets
// only, as remote-write does: in the daemon the exporter's own and the process' families are pushed too, every interval.
const families = new FamilyStore({ maxLabelValueLength: limits.label_value_length, maxSeriesPerFamily: limits.series_per_family });
families.define([...ACCESS_V2_FAMILIES, ...WAF_EVENTS_FAMILIES]);
const wafFamilies = new Set(WAF_EVENTS_FAMILIES.map((def) => def.name));
for (const name of [...new Set(cycleOutput(domains.slice(0, 1), 0).increments.map((s) => s.name))]) {
  if (families.def(name) === undefined) throw new Error(`${name} has no definition: OTLP would push it as a fallback family`);
}
const resource = buildResource({
  serviceName: 'edge-exporter', serviceVersion: VERSION, serviceInstanceId: hostname(),
  attributes: { 'edge_exporter.shard.index': '0', 'edge_exporter.shard.count': '1' },
});

/** The sender's observer, counting: points confirmed are what was pushed; anything else fails the bench. */
class Counts implements PushObserver {
  sent = 0;
  trouble = 0;
  samplesSent(count: number): void {
    this.sent += count;
  }
  samplesFailed(count: number): void {
    this.trouble += count;
  }
  samplesRetried(count: number): void {
    this.trouble += count;
  }
  pushed(): void {}
  requestDuration(): void {}
}

interface Sender {
  start(): Promise<void>;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

interface Receivers {
  readonly rw: string;
  readonly otlp: string;
}

function pipeOf(name: PipeName): HistoryPipe {
  return name === 'remote-write' ? REMOTE_WRITE_PIPE : otlpMetricsPipe(name === 'otlp-delta' ? 'delta' : 'cumulative');
}

/** Pages as big as a request, as the wiring makes them (max_samples_per_send, max_points_per_send). */
function pageSizeOf(name: PipeName): number {
  return name === 'remote-write' ? rw.max_samples_per_send : om.max_points_per_send;
}

/** The pipe's sender, with the options the daemon's wiring gives it from the config defaults. */
function senderOf(name: PipeName, history: HistoryQueues, receivers: Receivers, observer: PushObserver): Sender {
  if (name === 'remote-write') {
    return new RemoteWriteSender(history, {
      endpoint: directEndpoint('remote_write', receivers.rw),
      timeoutMs: rw.timeout, headers: rw.headers, externalLabels: rw.external_labels, maxLabelValueLength: limits.label_value_length,
      maxSamplesPerSend: rw.max_samples_per_send, batchSendDeadlineMs: rw.batch_send_deadline, minBackoffMs: rw.min_backoff, maxBackoffMs: rw.max_backoff,
      userAgent: `edge-exporter/${VERSION}`, observer,
    });
  }
  return new OtlpMetricsSender(history, {
    endpoint: directEndpoint('otlp_metrics', receivers.otlp),
    encoding: name === 'otlp-json' ? 'http/json' : 'http/protobuf',
    compression: name === 'otlp-gzip' ? 'gzip' : 'none',
    temporality: name === 'otlp-delta' ? 'delta' : 'cumulative',
    intervalMs: om.interval, timeoutMs: om.timeout, headers: om.headers,
    maxSamplesPerSend: om.max_points_per_send, batchSendDeadlineMs: om.batch_send_deadline, minBackoffMs: om.min_backoff, maxBackoffMs: om.max_backoff,
    maxLabelValueLength: limits.label_value_length, userAgent: `edge-exporter/${VERSION}`,
    resource, scope: { name: SCOPE_NAME, version: VERSION, schemaUrl: SEMCONV_SCHEMA_URL },
    def: (n) => families.def(n),
    snapshot: () => Promise.resolve(families.snapshot().filter((f) => wafFamilies.has(f.def.name))),
    observer,
  });
}

const started = performance.now();
/** Progress on stderr (the report is stdout): a run at 100k series takes minutes. */
const progress = (what: string): void => void process.stderr.write(`otlp-metrics: ${what} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

interface Memory {
  readonly held: number;
  readonly rss: number;
}

/** After full GCs (several passes: weak maps and finalizers free more on a second one): heap used plus ArrayBuffers (the pages' Float64Arrays), and RSS. */
function settled(): Memory {
  for (let i = 0; i < 4; i++) globalThis.gc?.();
  const m = process.memoryUsage();
  return { held: m.heapUsed + m.arrayBuffers, rss: m.rss };
}

/** Resets the kernel's peak RSS of this process (VmHWM) to its RSS now (Linux: clear_refs 5), so a phase's peak is its own. */
async function resetPeak(): Promise<void> {
  await writeFile('/proc/self/clear_refs', '5');
}

/** The peak RSS since the last reset: VmHWM, which no sampling interval can miss (a cycle's apply runs without yielding). */
async function peakRss(): Promise<number> {
  const kb = /^VmHWM:\s+(\d+) kB/m.exec(await readFile('/proc/self/status', 'utf8'))?.[1];
  if (kb === undefined) throw new Error('no VmHWM in /proc/self/status');
  return Number(kb) * 1024;
}

interface Stats {
  readonly requests: number;
  readonly bytes: number;
}
const stats = async (url: string): Promise<Stats> => (await fetch(url)).json() as Promise<Stats>;

interface Lane {
  readonly name: PipeName | 'off';
  readonly store: StateStore;
  readonly ledger: CounterLedger;
  readonly sender: Sender | undefined;
  readonly counts: Counts;
  readonly statsUrl: string | undefined;
  readonly cpu: number[];
  readonly points: number[];
  readonly requests: number[];
  readonly bytes: number[];
  /** The last cycle's requests by compression (the receivers' GET /sample), and the points they carried. */
  sample?: Sample & { readonly points: number };
}

interface Sample {
  readonly requests: number;
  readonly sent: number;
  readonly raw: number;
  readonly snappy: number;
  readonly gzip: number;
}

async function lane(dir: string, name: Lane['name'], receivers: Receivers): Promise<Lane> {
  const store = new StateStore(join(dir, name));
  await store.init();
  const counts = new Counts();
  if (name === 'off') return { name, store, ledger: new CounterLedger(), sender: undefined, counts, statsUrl: undefined, cpu: [], points: [], requests: [], bytes: [] };
  const history = new HistoryQueues({ pipe: pipeOf(name), store, pageSize: pageSizeOf(name), maxPendingSamples: ROOM });
  const ledger = new CounterLedger([history]);
  await ledger.load(store, 'access');
  const sender = senderOf(name, history, receivers, counts);
  await sender.start();
  return { name, store, ledger, sender, counts, statsUrl: name === 'remote-write' ? receivers.rw : receivers.otlp, cpu: [], points: [], requests: [], bytes: [] };
}

async function steady(dir: string, receivers: Receivers): Promise<void> {
  const lanes: Lane[] = [];
  for (const name of ['off', ...PIPES] as const) lanes.push(await lane(dir, name, receivers));
  for (let c = 0; c < CYCLES; c++) {
    progress(`steady cycle ${c + 1} of ${CYCLES}`);
    const out = cycleOutput(domains, c);
    const order = lanes.map((_, i) => lanes[(i + c) % lanes.length]).filter((l): l is Lane => l !== undefined);
    for (const l of order) {
      const s0 = l.statsUrl === undefined ? undefined : await stats(l.statsUrl);
      // The last cycle's bodies are kept by the receiver, pipe by pipe (the OTLP pipes share one), and measured once pushed.
      const sampleUrl = l.statsUrl === undefined || c !== CYCLES - 1 ? undefined : new URL('/sample', l.statsUrl);
      if (sampleUrl !== undefined) await fetch(new URL('/sample/start', sampleUrl)).then((r) => r.arrayBuffer());
      const sent0 = l.counts.sent;
      const t = process.cpuUsage();
      applyCycle(l.ledger, out, c);
      await l.ledger.save(l.store, 'access');
      await l.sender?.flush();
      const used = cpuMs(t);
      const s1 = l.statsUrl === undefined ? undefined : await stats(l.statsUrl);
      if (sampleUrl !== undefined) l.sample = { ...((await (await fetch(sampleUrl)).json()) as Sample), points: l.counts.sent - sent0 };
      if (c === 0) continue;
      l.cpu.push(used);
      l.points.push(l.counts.sent - sent0);
      l.requests.push((s1?.requests ?? 0) - (s0?.requests ?? 0));
      l.bytes.push((s1?.bytes ?? 0) - (s0?.bytes ?? 0));
    }
  }
  const rows: Array<Array<string | number>> = [];
  const off = lanes[0];
  if (off?.name !== 'off') throw new Error('no off lane');
  const expected = samplesOf(cycleOutput(domains, 1));
  for (const l of lanes) {
    await l.sender?.stop();
    if (l.counts.trouble > 0) throw new Error(`${l.name}: ${l.counts.trouble} points failed or retried`);
    const file = (await stat(l.store.pathOf('ledger-access'))).size;
    const cpu = mean(l.cpu);
    const above = cpu - mean(off.cpu);
    if (l.sender === undefined) {
      rows.push(['off (no history)', '—', '—', '—', fmtMs(cpu), `${fmtMs(median(l.cpu))}`, '—', '—', fmtBytes(file)]);
      continue;
    }
    const points = sum(l.points);
    if (l.points.some((p) => p !== expected)) throw new Error(`${l.name}: pushed ${l.points.join(', ')} points in the cycles, expected ${expected} each`);
    const perPoint = (ms: number): string => `${((ms * 1000 * l.cpu.length) / points).toFixed(2)} µs`;
    rows.push([
      LABEL[l.name as PipeName], fmtInt(Math.round(points / l.points.length)), (sum(l.requests) / l.requests.length).toFixed(0), (sum(l.bytes) / points).toFixed(2),
      fmtMs(cpu), fmtMs(median(l.cpu)), `${fmtMs(above)} (${((above / MIN) * 100).toFixed(2)} % of a core at 1 cycle/min)`, perPoint(above), fmtBytes(file),
    ]);
  }
  process.stdout.write(`### Steady state: one cycle applied, saved and pushed, per pipe\n\n${CYCLES - 1} cycles measured after a first one left out. CPU: this process's (user + system), mean per cycle (median beside it); ` +
    `"above off": the mean less the ledger's without history, which the daemon pays with either pipe off, per cycle and per pushed point. ` +
    `Bytes: the request bodies as the receiver read them. Ledger file: after the last cycle's save (the counters and that cycle's pages).\n\n${table(
      ['pipe', 'points per cycle', 'requests per cycle', 'bytes per point', 'CPU per cycle', '(median)', 'above off per cycle', 'above off per point', 'ledger file'], rows,
    )}\n\n`);
  // Why the bytes differ, compression by compression: the last cycle's requests of each pipe, measured by its receiver after the push.
  const compression: Array<Array<string | number>> = [];
  for (const l of lanes) {
    const sample = l.sample;
    if (l.sender === undefined || sample === undefined) continue;
    const per = (n: number): string => (n / sample.points).toFixed(2);
    compression.push([LABEL[l.name as PipeName], fmtInt(sample.requests), fmtBytes(sample.sent), per(sample.sent), per(sample.raw), per(sample.snappy), per(sample.gzip)]);
  }
  process.stdout.write('The last cycle\'s requests of each pipe, bytes per point by compression, each request compressed on its own (measured by the receivers ' +
    `after the push; remote-write is sent snappy-compressed, OTLP uncompressed but for the gzip row):\n\n${table(['pipe', 'requests', 'as sent', 'per point as sent', 'uncompressed', 'snappy', 'gzip (level 6)'], compression)}\n\n`);
}

interface BacklogRun {
  readonly label: string;
  /** max_pending: ROOM for the whole hour, or the config's default. */
  readonly cap: number;
}

interface BacklogRows {
  readonly memory: Array<string | number>;
  readonly push: Array<string | number>;
}

async function backlog(dir: string, name: PipeName, receivers: Receivers, run: BacklogRun): Promise<BacklogRows> {
  progress(`backlog, ${run.label}`);
  const m0 = settled();
  await resetPeak();
  const store = new StateStore(join(dir, `backlog-${name}-${run.cap}`));
  await store.init();
  let dropped = 0;
  const history = new HistoryQueues({ pipe: pipeOf(name), store, pageSize: pageSizeOf(name), maxPendingSamples: run.cap, onDropped: (n) => (dropped += n) });
  const ledger = new CounterLedger([history]);
  await ledger.load(store, 'access');
  for (let m = 0; m < BACKLOG; m++) applyCycle(ledger, cycleOutput(domains, m), m);
  const counting = await peakRss();
  let t = performance.now();
  await ledger.save(store, 'access');
  const saveMs = performance.now() - t;
  const pending = history.pendingSamples();
  const file = (await stat(store.pathOf('ledger-access'))).size;
  const saving = await peakRss();
  const m1 = settled();
  await resetPeak();

  progress(`backlog of ${fmtInt(pending)} points counted and saved; pushing`);
  const counts = new Counts();
  const sender = senderOf(name, history, receivers, counts);
  const url = name === 'remote-write' ? receivers.rw : receivers.otlp;
  const s0 = await stats(url);
  const cpu = process.cpuUsage();
  t = performance.now();
  await sender.start();
  await sender.flush();
  const wall = performance.now() - t;
  const pushCpu = cpuMs(cpu);
  const s1 = await stats(url);
  await sender.stop();
  if (history.pendingSamples() !== 0) throw new Error(`${name}: ${history.pendingSamples()} points left pending`);
  if (counts.trouble > 0 || counts.sent !== pending) throw new Error(`${name}: ${counts.sent} of ${pending} points pushed, ${counts.trouble} failed or retried`);
  const pushPeak = await peakRss();
  const m2 = settled();
  await rm(store.pathOf('ledger-access'), { force: true });
  const held = m1.held - m2.held;
  return {
    memory: [
      run.label, fmtInt(pending), fmtInt(dropped), `${fmtBytes(held)} (${(held / pending).toFixed(1)} B a point)`, fmtBytes(m0.rss), fmtBytes(m1.rss - m0.rss),
      fmtBytes(counting), fmtBytes(saving), `${fmtBytes(file)} (${(file / pending).toFixed(1)} B a point)`, fmtMs(saveMs),
    ],
    push: [
      run.label, fmtInt(pending), fmtInt(s1.requests - s0.requests), fmtMs(wall), fmtInt(Math.round(pending / (wall / 1000))),
      `${fmtMs(pushCpu)} (${((pushCpu * 1000) / pending).toFixed(2)} µs a point)`, ((s1.bytes - s0.bytes) / pending).toFixed(2), fmtBytes(pushPeak),
    ],
  };
}

const point = z.object({ url: z.string() });
const rwReceiver = await startChild('rw-receiver.ts', [], point);
const otlpReceiver = await startChild('otlp-receiver.ts', [], point);
const dir = await mkdtemp(join(tmpdir(), 'edge-bench-otlp-'));
try {
  const receivers = { rw: rwReceiver.ready.url, otlp: otlpReceiver.ready.url };
  process.stdout.write(`## OTLP metrics beside remote-write\n\n${fmtInt(DOMAINS)} domains, ${fmtInt(DOMAINS * SERIES_PER_DOMAIN)} series, 1-minute buckets; ` +
    `requests of at most ${om.max_points_per_send} points (both pipes' default). Receivers in other processes, on 127.0.0.1.\n\n`);
  await steady(dir, receivers);
  const runs: BacklogRows[] = [];
  for (const name of BACKLOG_PIPES) runs.push(await backlog(dir, name, receivers, { label: LABEL[name], cap: ROOM }));
  const defaultCap = `${LABEL['otlp-cumulative']}, max_pending_points ${fmtInt(om.max_pending_points)} (the default)`;
  runs.push(await backlog(dir, 'otlp-cumulative', receivers, { label: defaultCap, cap: om.max_pending_points }));
  process.stdout.write(`### Backlog: ${BACKLOG} minutes counted while the receiver was away, then pushed\n\n` +
    `Per pipe in turn, in this process, the queue given room for the whole backlog (max_pending ${fmtInt(ROOM)}), then OTLP cumulative at the default cap. ` +
    'Held by the pages: heap used + ArrayBuffers (the pages\' Float64Arrays) after forced GCs with the pages pending, less the same once they are pushed; ' +
    'the ledger\'s own totals are in both. RSS growth: after forced GCs, from before the ledger was made to the pages pending (RSS keeps what the allocator ' +
    'did not give back). Peak RSS: the kernel\'s VmHWM, reset at the phase\'s start, after the ' +
    `${BACKLOG} cycles were counted and after their one save; RSS before: ` +
    'the process before the phase (tsx, the code, what the allocator kept of the phases before). The save: the one write of the ledger file with every ' +
    'pending page, what the daemon pays every cycle at that backlog.\n\n' +
    `${table(['pipe', 'points pending', 'dropped (cap)', 'held by the pages', 'RSS before', 'RSS growth', 'peak RSS, counted', 'peak RSS, saved', 'ledger file', 'its save (wall)'], runs.map((r) => r.memory))}\n\n` +
    'Then the receiver is back: a sender started on the queue and flushed. CPU: this process\'s, user + system; peak RSS reset before the push.\n\n' +
    `${table(['pipe', 'points', 'requests', 'wall', 'points/s', 'sender CPU', 'bytes per point', 'peak RSS pushing'], runs.map((r) => r.push))}\n\n`);
} finally {
  await Promise.all([rwReceiver.stop(), otlpReceiver.stop()]);
  await rm(dir, { recursive: true, force: true });
}
