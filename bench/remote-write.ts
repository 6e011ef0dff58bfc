// Remote-write benchmark: the real history (CounterLedger with a HistoryQueues
// over a StateStore in a temporary directory) and RemoteWriteSender, pushing
// to a counting receiver in another process (bench/lib/rw-receiver.ts), with
// the config defaults (2,000 samples per request). The account
// (lib/access-cycles.ts, also bench/otlp-metrics.ts's): --domains=N (default
// 1,000) with the access collector's 15 series per domain (8 counters, 7
// gauges) at 1-minute buckets, one bucket per cycle.
//
// 1. Steady state: --cycles=N (default 20) cycles, each applied to the ledger,
//    saved and pushed (flush), beside the same cycles with remote_write
//    off (the ledger without history, saved): CPU per cycle (process.cpuUsage)
//    and what it costs of one core at one cycle a minute.
// 2. Backlog: --backlog=N minutes (default 60) of cycles counted while the
//    receiver was out of reach, then pushed: samples per second, bytes per
//    sample on the wire, peak RSS.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { HistoryQueues, REMOTE_WRITE_PIPE } from '../src/counters/history/index.js';
import { CounterLedger } from '../src/counters/ledger.js';
import { remoteWriteSchema } from '../src/config/sections/remote-write.js';
import { RemoteWriteSender } from '../src/exporters/remote-write/index.js';
import { directEndpoint } from '../src/outbound/index.js';
import { StateStore } from '../src/state/store.js';
import { applyCycle, cycleOutput, MIN, samplesOf } from './lib/access-cycles.js';
import { startChild } from './lib/child.js';
import { domainsFor, SERIES_PER_DOMAIN } from './lib/series.js';
import { fmtBytes, fmtInt, fmtMs, median, table } from './lib/stats.js';

const { values } = parseArgs({ options: { domains: { type: 'string' }, cycles: { type: 'string' }, backlog: { type: 'string' } }, strict: false });
const DOMAINS = Number(values.domains ?? '1000');
const CYCLES = Number(values.cycles ?? '20');
const BACKLOG = Number(values.backlog ?? '60');
const defaults = remoteWriteSchema.parse({ url: 'http://127.0.0.1:1/api/v1/write' });
const domains = domainsFor(DOMAINS * SERIES_PER_DOMAIN);

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

interface Stats {
  readonly requests: number;
  readonly bytes: number;
}

const receiver = await startChild('rw-receiver.ts', [], z.object({ url: z.string() }));
const stats = async (): Promise<Stats> => (await fetch(receiver.ready.url)).json() as Promise<Stats>;
const dir = await mkdtemp(join(tmpdir(), 'edge-bench-rw-'));
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
try {
  // 1. Steady state, remote_write off and on, the same cycles.
  const offStore = new StateStore(join(dir, 'off'));
  await offStore.init();
  const off = new CounterLedger();
  const onStore = new StateStore(join(dir, 'on'));
  await onStore.init();
  const history = new HistoryQueues({ pipe: REMOTE_WRITE_PIPE, store: onStore, pageSize: defaults.max_samples_per_send, maxPendingSamples: defaults.max_pending_samples });
  const on = new CounterLedger([history]);
  await on.load(onStore, 'access');
  const sender = new RemoteWriteSender(history, { endpoint: directEndpoint('remote_write', receiver.ready.url), batchSendDeadlineMs: 0, maxSamplesPerSend: defaults.max_samples_per_send });
  await sender.start();
  const offMs: number[] = [];
  const onMs: number[] = [];
  let pushed = 0;
  const before = await stats();
  for (let c = 0; c < CYCLES; c++) {
    const out = cycleOutput(domains, c);
    let t = process.cpuUsage();
    applyCycle(off, out, c);
    await off.save(offStore, 'access');
    offMs.push(cpuMs(t));
    t = process.cpuUsage();
    pushed += samplesOf(out);
    applyCycle(on, out, c);
    await on.save(onStore, 'access');
    await sender.flush();
    onMs.push(cpuMs(t));
  }
  const after = await stats();
  const fileOff = (await stat(offStore.pathOf('ledger-access'))).size;
  const fileOn = (await stat(onStore.pathOf('ledger-access'))).size;
  await sender.stop();
  const extra = median(onMs) - median(offMs);
  process.stdout.write(`## Remote-write\n\n${DOMAINS} domains, ${fmtInt(DOMAINS * SERIES_PER_DOMAIN)} series, 1-minute buckets, ${CYCLES} cycles; pages and requests of ${defaults.max_samples_per_send} samples.\n\n`);
  process.stdout.write(`### Steady state: CPU per cycle (apply, save${''}, push), medians\n\n${table(
    ['remote_write', 'CPU per cycle', 'share of one core at 1 cycle/min', 'ledger file'],
    [
      ['off', fmtMs(median(offMs)), `${((median(offMs) / MIN) * 100).toFixed(2)} %`, fmtBytes(fileOff)],
      ['on', fmtMs(median(onMs)), `${((median(onMs) / MIN) * 100).toFixed(2)} %`, fmtBytes(fileOn)],
      ['cost of remote_write', fmtMs(extra), `${((extra / MIN) * 100).toFixed(2)} %`, fmtBytes(fileOn - fileOff)],
    ],
  )}\n\nPushed ${fmtInt(pushed)} samples in ${fmtInt(after.requests - before.requests)} requests, ${fmtBytes(after.bytes - before.bytes)} on the wire: ${((after.bytes - before.bytes) / pushed).toFixed(2)} bytes per sample.\n\n`);
  if (after.requests - before.requests === 0 || pushed === 0) throw new Error('nothing was pushed');

  // 2. A backlog counted while the receiver was out of reach, then pushed.
  const backlogStore = new StateStore(join(dir, 'backlog'));
  await backlogStore.init();
  const queues = new HistoryQueues({ pipe: REMOTE_WRITE_PIPE, store: backlogStore, pageSize: defaults.max_samples_per_send, maxPendingSamples: 50_000_000 });
  const ledger = new CounterLedger([queues]);
  await ledger.load(backlogStore, 'access');
  for (let m = 0; m < BACKLOG; m++) applyCycle(ledger, cycleOutput(domains, m), m);
  let t = performance.now();
  await ledger.save(backlogStore, 'access');
  const saveMs = performance.now() - t;
  const samples = queues.pendingSamples();
  const fileSize = (await stat(backlogStore.pathOf('ledger-access'))).size;
  const backlogSender = new RemoteWriteSender(queues, { endpoint: directEndpoint('remote_write', receiver.ready.url), batchSendDeadlineMs: 0, maxSamplesPerSend: defaults.max_samples_per_send });
  const s0 = await stats();
  const cpu = process.cpuUsage();
  t = performance.now();
  await backlogSender.start();
  await backlogSender.flush();
  const wall = performance.now() - t;
  const cpuUsed = cpuMs(cpu);
  const s1 = await stats();
  await backlogSender.stop();
  if (queues.pendingSamples() !== 0) throw new Error(`${queues.pendingSamples()} samples left pending`);
  process.stdout.write(`### Backlog: ${BACKLOG} minutes counted while the receiver was away, then pushed\n\n${table(
    ['samples', 'requests', 'wall', 'samples/s', 'sender CPU', 'bytes/sample', 'ledger file', 'its save', 'peak RSS'],
    [[fmtInt(samples), fmtInt(s1.requests - s0.requests), fmtMs(wall), fmtInt(Math.round(samples / (wall / 1000))), fmtMs(cpuUsed),
      ((s1.bytes - s0.bytes) / samples).toFixed(2), fmtBytes(fileSize), fmtMs(saveMs), fmtBytes(peakRss)]],
  )}\n\n`);
} finally {
  clearInterval(sampler);
  await receiver.stop();
  await rm(dir, { recursive: true, force: true });
}
