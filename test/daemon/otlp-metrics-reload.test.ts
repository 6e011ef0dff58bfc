// otlp_metrics across reloads, in process: turned on by a reload (the history
// starts with the next cycle), its temporality changed by another while
// points wait (the sender is stopped with the engine, pushing what is
// pending first, and built again over the same state directory), and each
// counter's points go on from where they were: one per bucket, none twice,
// each in the temporality it was made in.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { Capture } from '../support/capture.js';
import { decodeMetricsWithProtoc, flattenPoints } from '../support/otlp-metrics-decode.js';
import { startOtlpMetricsReceiver } from '../support/otlp-metrics-receiver.js';
import { configText, lastSettled, MIN, TOKEN } from './state-fixtures.js';

const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
let sim: Simulator;
let receiver: Awaited<ReturnType<typeof startOtlpMetricsReceiver>>;
let dir: string;

beforeAll(async () => {
  sim = createSimulator({ seed: 37, domains: 2, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
  receiver = await startOtlpMetricsReceiver();
  dir = mkdtempSync(join(tmpdir(), 'edge-otlp-reload-'));
});
afterAll(async () => {
  await receiver.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('otlp_metrics across reloads', () => {
  it('on from the next cycle; a change of temporality keeps what waits as it was made; one point per bucket, none twice', async () => {
    const { url } = await sim.listen('127.0.0.1', 0);
    const file = join(dir, 'config.yaml');
    const text = (section: string): string => configText({ apiUrl: url, stateDir: join(dir, 'state'), extra: [section] });
    const on = (temporality: string): string => `otlp_metrics: { enabled: true, endpoint: "${receiver.url}", temporality: ${temporality}, batch_send_deadline: 0s, interval: 1h }`;
    writeFileSync(file, text('otlp_metrics: { enabled: false }'));
    const load = () => loadConfig({ file, env: {} });
    const daemon = new Daemon({
      config: load(), reloadConfig: load, logger: createLogger({ level: 'warn', destination: new Capture() }), version: 'test',
      clock: { now: () => sim.clock.now() }, schedules: false,
    });
    try {
      await daemon.start();
      await daemon.runOnce();
      writeFileSync(file, text(on('cumulative')));
      expect(await daemon.reload()).toEqual({ ok: true });
      sim.clock.advance(MIN);
      await daemon.runOnce();
      // The receiver holds the next request: the delta reload finds the cumulative points still pending, and stopping pushes them first.
      const held = receiver.holdNext();
      sim.clock.advance(MIN);
      await daemon.runOnce();
      await held.arrived;
      writeFileSync(file, text(on('delta')));
      const reloading = daemon.reload();
      held.release(200);
      expect(await reloading).toEqual({ ok: true });
      sim.clock.advance(MIN);
      await daemon.runOnce();
      await daemon.stop();

      const points = [];
      for (const post of receiver.delivered()) points.push(...flattenPoints(await decodeMetricsWithProtoc(post.body)));
      const first = lastSettled(T0);
      const domains = sim.world.domains.map((d) => d.domainName);
      expect(domains).toHaveLength(2);
      for (const domain of domains) {
        const own = points
          .filter((p) => p.metric === 'edge_domain_requests' && p.attributes.domain === domain)
          .map((p) => ({ temporality: p.temporality, start: (p.startMs - first) / MIN, end: (p.timeMs - first) / MIN, value: p.value }))
          .sort((a, b) => a.end - b.end);
        /** The bucket ending `m` minutes after the last one settled at T0. */
        const bucket = (m: number): number => sim.truth.domainTotal(domain, 'requests', first + (m - 1) * MIN, first + m * MIN);
        // The series started counting before the pipe was on (its 0 closes the bucket at minute 0): that start is the ledger's, and the cumulative points count from it.
        expect(own, domain).toEqual([
          { temporality: 'cumulative', start: 0, end: 2, value: bucket(2) },
          { temporality: 'cumulative', start: 0, end: 3, value: bucket(2) + bucket(3) },
          { temporality: 'delta', start: 3, end: 4, value: bucket(4) },
        ]);
      }
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});
