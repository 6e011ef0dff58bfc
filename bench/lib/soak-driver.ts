// The accelerated soak, shared by bench/soak.ts (a simulated day, the daemon
// in a child process) and test/integration/soak.test.ts (a few hours, in
// process). The simulator's clock is fixed and stepped one minute at a time;
// each step runs every collector once (runOnce) and a WAF event poll
// (forwardOnce) at that instant, as the schedules would every minute (their
// slot grid is tested in test/engine/schedule.test.ts), then
// scrapes /metrics. Faults come from a seeded FaultPlan. At the end every
// checked counter must equal the truth and every deny event of the forwarded
// range must have reached the receiver exactly once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastSettledStart } from '../../src/collectors/buckets.js';
import { loadCheckpoint } from '../../src/forwarder/checkpoint.js';
import { delayMs, loadConfig } from '../../src/config/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../test/support/otlp-receiver.js';
import { parseSamples } from './exposition.js';
import { FAULT_KINDS, FaultPlan, type FaultKind } from './soak-faults.js';
import type { MemorySample, SoakDaemon, SoakDaemonFactory } from './soak-daemon.js';
import { CHECKED_FAMILIES, checkWaf, compareCounters, expectedCounters, type WafCheck } from './soak-truth.js';
import { since } from './stats.js';

const MIN = 60_000;
/** 2026-03-02 12:00:05 in the platform zone (UTC+8): a few seconds past the boundary, as a jittered schedule runs. */
const SOAK_START = Date.UTC(2026, 2, 2, 4, 0, 5);
/** Steps at the end without faults: the default 5 min delay, plus the WAF delay and a window to spare. */
const TAIL_STEPS = 12;
/** Longest wait for the receiver to refuse an export while it is down. */
const REFUSAL_WAIT_MS = 10_000;

interface SoakOptions {
  readonly seed: number;
  readonly domains: number;
  /** One-minute steps. */
  readonly steps: number;
  /** Chance that a fault starts at a step with none running. */
  readonly faultRate: number;
  readonly open: SoakDaemonFactory;
  /** Sample the daemon's memory every this many steps (0: never). */
  readonly memoryEvery?: number;
  readonly progress?: (line: string) => void;
}

export interface CollectorTally { ok: number; failed: number; partialErrors: number }

export interface SoakResult {
  readonly steps: number;
  readonly wallMs: number;
  readonly faults: Readonly<Record<FaultKind, number>>;
  /** One-step faults by kind and the operation they hit, e.g. `dataNull@describeLogV2`. */
  readonly aimed: Readonly<Record<string, number>>;
  readonly runs: Readonly<Record<string, CollectorTally>>;
  readonly forwards: { ok: number; failed: number; forwarded: number };
  /** OTLP exports the receiver refused while down. */
  readonly refusedExports: number;
  readonly scrapes: { ok: number; failed: number };
  /** Counter series compared, and the differences. */
  readonly counters: { readonly checked: number; readonly mismatches: readonly string[] };
  readonly waf: Omit<WafCheck, 'deny'> & { readonly originMs: number; readonly cursorMs: number };
  readonly memory: ReadonlyArray<MemorySample & { readonly step: number }>;
  /** Wall time of each step, and the fault that started at it. */
  readonly stepTimes: ReadonlyArray<{ readonly ms: number; readonly fault?: FaultKind }>;
  readonly warnings: Readonly<Record<string, number>>;
}

function configText(apiUrl: string, stateDir: string, otlpUrl: string): string {
  return [
    // A short timeout, so a hanging request costs a second; quick retries, so a 5xx is mostly absorbed.
    `upstream: { api_url: "${apiUrl}", token: sim-token, timeout: 1s, retry: { attempts: 3, min_delay: 20ms, max_delay: 100ms } }`,
    `state_dir: ${JSON.stringify(stateDir)}`,
    'server: { listen: "127.0.0.1:0" }',
    // Summary windows of 5 min instead of 1 h: a fifth of the bytes per request, so a simulated day fits in
    // minutes; they shape only the peak/p95 gauges, not the counters checked.
    'collectors:',
    '  access: { interval: 1m, summary_window: 5m }',
    '  usage: { interval: 1m, summary_window: 5m }',
    '  cc_attack: { interval: 1m, summary_window: 5m }',
    '  waf_trend: { interval: 1m }',
    '  topn: { enabled: false }',
    '  inventory: { enabled: false }',
    'waf_events: { enabled: true }',
    `otlp: { endpoint: "${otlpUrl}", timeout: 1s, max_batch: 100 }`,
  ].join('\n');
}

/** Resolves once the receiver has answered more 503s than `before`, or after `ms`; whether it did. */
async function refused(receiver: OtlpReceiver, before: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (count503(receiver) > before) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

const count503 = (receiver: OtlpReceiver): number => receiver.requests().filter((r) => r.status === 503).length;

interface Rig {
  readonly sim: Simulator;
  readonly receiver: OtlpReceiver;
  readonly stateDir: string;
  readonly config: string;
}

async function openRig(options: SoakOptions): Promise<Rig> {
  const sim = createSimulator({ seed: options.seed, domains: options.domains, clock: { mode: 'fixed', start: SOAK_START } });
  const { url } = await sim.listen('127.0.0.1', 0);
  const receiver = await startOtlpReceiver();
  const stateDir = await mkdtemp(join(tmpdir(), 'edge-soak-'));
  return { sim, receiver, stateDir, config: configText(url, stateDir, receiver.url) };
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const started = performance.now();
  const rig = await openRig(options);
  const { sim, receiver } = rig;
  let daemon: SoakDaemon | undefined;
  try {
    daemon = await options.open(rig.config);
    const loop = await drive(daemon, rig, options);
    const scraped = parseSamples(await (await fetch(`${daemon.url()}/metrics`)).text(), CHECKED_FAMILIES);
    const warnings = await daemon.warnings();
    await daemon.stop();
    daemon = undefined;

    // As the daemon loads it, the journal replayed: a window done may be a journal line (checkpoint.ts).
    const { state } = await loadCheckpoint(new StateStore(rig.stateDir));
    if (!state) throw new Error(`soak: no WAF event checkpoint in ${rig.stateDir}`);
    const { originMs, cursorMs } = state.checkpoint;
    const { deny, ...waf } = checkWaf(sim, receiver.uids(), originMs, cursorMs);
    const config = loadConfig({ text: rig.config, env: {} });
    const settled = (now: number): number => lastSettledStart(now, '1m', delayMs(config.collectors.defaults.delay), sim.tz.offsetMinutes);
    const range = { from: settled(SOAK_START) + MIN, to: settled(loop.lastNow) + MIN };
    const packages = [...new Set(scraped.flatMap((s) => (s.labels.package === undefined ? [] : [s.labels.package])))];
    const expected = expectedCounters(sim, range, packages, deny);
    return {
      ...loop.tallies,
      steps: options.steps,
      wallMs: since(started),
      refusedExports: count503(receiver),
      counters: { checked: expected.size, mismatches: compareCounters(scraped, expected) },
      waf: { ...waf, originMs, cursorMs },
      warnings,
    };
  } finally {
    await daemon?.stop();
    await receiver.close();
    await sim.close();
    await rm(rig.stateDir, { recursive: true, force: true });
  }
}

type Tallies = Pick<SoakResult, 'faults' | 'aimed' | 'runs' | 'forwards' | 'scrapes' | 'memory' | 'stepTimes'>;

async function drive(daemon: SoakDaemon, rig: Rig, options: SoakOptions): Promise<{ tallies: Tallies; lastNow: number }> {
  const { sim, receiver } = rig;
  const plan = new FaultPlan(options.seed, options.faultRate, options.steps, { head: 1, tail: TAIL_STEPS });
  const faults = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  const aimed: Record<string, number> = {};
  const runs: Record<string, CollectorTally> = {};
  const forwards = { ok: 0, failed: 0, forwarded: 0 };
  const scrapes = { ok: 0, failed: 0 };
  const memory: Array<MemorySample & { step: number }> = [];
  const stepTimes: Array<{ ms: number; fault?: FaultKind }> = [];
  let forwarding: Promise<void> | undefined;
  let down: { since503: number } | undefined;
  let now = SOAK_START;
  const forward = async (at: number): Promise<void> => {
    const r = await daemon.forwardOnce(at);
    forwards[r.ok ? 'ok' : 'failed']++;
    forwards.forwarded += r.forwarded;
  };
  if (options.memoryEvery) memory.push({ step: 0, ...(await daemon.memory()) });
  for (let step = 0; step < options.steps; step++) {
    const began = performance.now();
    now = SOAK_START + step * MIN;
    sim.clock.set(now);
    const f = plan.at(step);
    if (f.started) faults[f.started]++;
    if (f.operation) aimed[`${f.started}@${f.operation}`] = (aimed[`${f.started}@${f.operation}`] ?? 0) + 1;
    sim.faults.set(f.rules);
    if (f.otlpDown && !down) {
      down = { since503: count503(receiver) };
      receiver.setDown(true);
    } else if (!f.otlpDown && down) {
      // Back up only once an export was refused, so every outage is one the forwarder felt.
      await refused(receiver, down.since503, REFUSAL_WAIT_MS);
      receiver.setDown(false);
      down = undefined;
    }
    const cycle = daemon.runOnce(now);
    forwarding ??= forward(now);
    for (const r of await cycle) {
      const t = (runs[r.collector] ??= { ok: 0, failed: 0, partialErrors: 0 });
      t[r.ok ? 'ok' : 'failed']++;
      t.partialErrors += r.partialErrors;
    }
    // While the receiver is down the poll waits in delivery; later steps go on without it.
    if (!down) {
      await forwarding;
      forwarding = undefined;
    }
    const scrape = await fetch(`${daemon.url()}/metrics`).catch(() => undefined);
    await scrape?.arrayBuffer();
    scrapes[scrape?.status === 200 ? 'ok' : 'failed']++;
    if (f.restart) await daemon.restart();
    stepTimes.push({ ms: since(began), ...(f.started ? { fault: f.started } : {}) });
    if (options.memoryEvery && (step + 1) % options.memoryEvery === 0) memory.push({ step: step + 1, ...(await daemon.memory()) });
    if ((step + 1) % 60 === 0) options.progress?.(`soak: ${(step + 1) / 60} h simulated, ${JSON.stringify(faults)}`);
  }
  await forwarding;
  return { tallies: { faults, aimed, runs, forwards, scrapes, memory, stepTimes }, lastNow: now };
}
