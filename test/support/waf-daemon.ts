// A WAF-only daemon for the integration tests that follow deny events end to
// end: the simulator on a fixed clock, a real OTLP receiver, the daemon
// in-process with schedules off (the test calls forwardOnce and moves the
// clock), its HTTP server on a loopback port. stopWafDaemon() undoes it all.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import type { SimulatorOptions } from '../../src/simulator/simulator.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';
import { lineSink } from './capture.js';

export interface WafDaemon {
  readonly sim: Simulator;
  readonly receiver: OtlpReceiver;
  readonly daemon: Daemon;
  /** The daemon's base URL (http://127.0.0.1:PORT). */
  readonly base: string;
  readonly clock: Simulator['clock'];
  readonly dir: string;
  readonly simUrl: string;
  /** Its simulator and receiver are another daemon's (WafDaemonOptions.beside). */
  readonly shared: boolean;
}

const TOKEN = 'waf-daemon-token-5d2e';
const quiet = new Writable({ write: (_c, _e, done) => done() });

interface WafDaemonOptions {
  readonly seed: number;
  readonly start: number;
  readonly wafEvents: string;
  /** Readings of the simulator (it is made with them, so they hold from its first answer). */
  readonly readings?: SimulatorOptions['readings'];
  /** Top-level config lines added as they are (e.g. `shard: { index: 1, count: 2 }`). */
  readonly extra?: readonly string[];
  /** Another daemon's simulator and receiver, shared (its shards): neither is closed by this one's stop. */
  readonly beside?: WafDaemon;
  /** Where the daemon's log lines go (info and up), one JSON line each; default none. */
  readonly log?: string[];
}

/**
 * Starts one, the simulator's clock fixed at `start`; `wafEvents` are the
 * `waf_events` keys after `enabled: true` (flow style, e.g. `delay: 2m, page_size: 50`).
 */
export async function startWafDaemon(options: WafDaemonOptions): Promise<WafDaemon> {
  const sim = options.beside?.sim ?? createSimulator({
    seed: options.seed, domains: 60, clock: { mode: 'fixed', start: options.start }, tokens: [{ token: TOKEN, permissions: '*' }],
    ...(options.readings ? { readings: options.readings } : {}),
  });
  const url = options.beside ? options.beside.simUrl : (await sim.listen('127.0.0.1', 0)).url;
  const receiver = options.beside?.receiver ?? await startOtlpReceiver();
  const dir = mkdtempSync(join(tmpdir(), 'edge-waf-daemon-'));
  const text = [
    `upstream: { api_url: "${url}", token: "${TOKEN}" }`,
    `state_dir: ${join(dir, 'state')}`,
    'server: { listen: "127.0.0.1:0" }',
    'collectors:',
    ...['access', 'usage', 'topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }`),
    `waf_events: { enabled: true, ${options.wafEvents} }`,
    `otlp: { endpoint: "${receiver.url}", timeout: 5s, max_batch: 20 }`,
    ...(options.extra ?? []),
  ].join('\n');
  const clock = sim.clock;
  const logger = options.log ? createLogger({ level: 'info', destination: lineSink(options.log) }) : createLogger({ level: 'silent', destination: quiet });
  const daemon = new Daemon({ config: loadConfig({ text, env: {} }), logger, version: 'waf-daemon', clock, schedules: false });
  const shared = options.beside !== undefined;
  try {
    return { sim, simUrl: url, receiver, daemon, base: await daemon.start(), clock, dir, shared };
  } catch (error) {
    await stopWafDaemon({ sim, simUrl: url, receiver, daemon, base: '', clock, dir, shared });
    throw error;
  }
}

export async function stopWafDaemon(running: WafDaemon | undefined): Promise<void> {
  if (!running) return;
  await running.daemon.stop();
  if (!running.shared) {
    await running.receiver.close();
    await running.sim.close();
  }
  rmSync(running.dir, { recursive: true, force: true });
}
