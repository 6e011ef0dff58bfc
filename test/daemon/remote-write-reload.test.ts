// remote_write across a reload, in process: the sender is stopped with the
// engine (what is pending pushed first) and built again over the same state
// directory; the new config applies to the next request, and every counter's
// samples go on from where they were, one bucket apart, none twice.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { Capture } from '../support/capture.js';
import { labelsOf, startReceiver, type Receiver } from '../exporters/remote-write/support.js';
import { configText, lastSettled, MIN, TOKEN } from './state-fixtures.js';

const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
let sim: Simulator;
let receiver: Receiver;
let dir: string;

beforeAll(async () => {
  sim = createSimulator({ seed: 31, domains: 2, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
  receiver = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'edge-rw-reload-'));
});
afterAll(async () => {
  await receiver.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every edge_domain_requests_total sample received, per domain, as [job, minute after T0's last settled bucket, value]. */
function received(): Map<string, [string, number, number][]> {
  const out = new Map<string, [string, number, number][]>();
  for (const request of receiver.requests) {
    for (const series of request.series) {
      const labels = labelsOf(series);
      if (labels.__name__ !== 'edge_domain_requests_total') continue;
      const list = out.get(labels.domain ?? '') ?? out.set(labels.domain ?? '', []).get(labels.domain ?? '')!;
      for (const s of series.samples) list.push([labels.job ?? '', (s.timestamp - lastSettled(T0)) / MIN, s.value]);
    }
  }
  return out;
}

describe('remote_write across a reload', () => {
  it('pushes what was pending, then goes on with the new config: one sample per bucket, in order, none twice', async () => {
    const { url } = await sim.listen('127.0.0.1', 0);
    const file = join(dir, 'config.yaml');
    const text = (job: string): string => configText({
      apiUrl: url, stateDir: join(dir, 'state'),
      extra: [`remote_write: { url: "${receiver.url}", batch_send_deadline: 0s, external_labels: { job: ${job} } }`],
    });
    writeFileSync(file, text('before'));
    const load = () => loadConfig({ file, env: {} });
    const daemon = new Daemon({
      config: load(), reloadConfig: load, logger: createLogger({ level: 'warn', destination: new Capture() }), version: 'test',
      clock: { now: () => sim.clock.now() }, schedules: false,
    });
    try {
      await daemon.start();
      await daemon.runOnce();
      sim.clock.advance(MIN);
      await daemon.runOnce();
      // The reload stops the sender after it pushed both cycles.
      writeFileSync(file, text('after'));
      expect(await daemon.reload()).toEqual({ ok: true });
      const domains = sim.world.domains.map((d) => d.domainName).sort();
      expect([...received().keys()].sort()).toEqual(domains);
      for (const list of received().values()) expect(list.map(([job, minute]) => [job, minute])).toEqual([['before', 1], ['before', 2]]);

      sim.clock.advance(MIN);
      await daemon.runOnce();
      await daemon.stop();
      for (const domain of domains) {
        const list = received().get(domain) ?? [];
        expect(list.map(([job, minute]) => [job, minute])).toEqual([['before', 1], ['before', 2], ['after', 3]]);
        // Each step is that bucket's requests, from the 0 at first sight.
        const first = lastSettled(T0);
        expect(list.map(([, , v]) => v)).toEqual([
          0,
          sim.truth.domainTotal(domain, 'requests', first + MIN, first + 2 * MIN),
          sim.truth.domainTotal(domain, 'requests', first + MIN, first + 3 * MIN),
        ]);
      }
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});
