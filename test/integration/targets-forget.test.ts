// Domains that leave the account, through the real daemon on the simulator's
// pinned clock (one cycle a minute, discovery refreshed every cycle,
// remote-write to a loopback receiver). A domain removed from the simulated
// account keeps its series, frozen, until forget_after; then they leave
// /metrics and the state file, with one log line; nothing of it is pushed
// while it is away. Restored later, it counts again from 0 at first sight, so
// neither /metrics nor the pushed samples jump. A domain back within
// forget_after counts on from its own watermark, equal to the simulator's
// truth. A static list is never forgotten.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { lineSink } from '../support/capture.js';
import { labelsOf, startReceiver, type Receiver } from '../exporters/remote-write/support.js';
import { accessCounters, configText, lastSettled, MIN, TOKEN } from '../daemon/state-fixtures.js';
import { T0 } from './fault-rig.js';

const FORGET_AFTER = 10 * MIN;

interface Rig {
  readonly sim: Simulator;
  readonly daemon: Daemon;
  readonly url: string;
  readonly log: string[];
  readonly stateDir: string;
  readonly receiver: Receiver;
  readonly apiUrl: string;
}

const started: Rig[] = [];
afterEach(async () => {
  for (const rig of started.splice(0)) {
    await rig.daemon.stop();
    await rig.receiver.close();
    await rig.sim.close();
    await rm(rig.stateDir, { recursive: true, force: true });
  }
});

async function startRig(targets: (domains: readonly string[]) => string): Promise<Rig> {
  const sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, domains: 3, tokens: [{ token: TOKEN, permissions: '*' }] });
  const { url: apiUrl } = await sim.listen('127.0.0.1', 0);
  const receiver = await startReceiver();
  const stateDir = await mkdtemp(join(tmpdir(), 'edge-forget-'));
  const config = loadConfig({
    env: {},
    text: configText({
      apiUrl, stateDir,
      extra: [targets(sim.truth.domains()), `remote_write: { url: ${JSON.stringify(receiver.url)}, batch_send_deadline: 0s }`],
    }),
  });
  const log: string[] = [];
  const daemon = new Daemon({
    config, logger: createLogger({ level: config.log.level, destination: lineSink(log) }), version: '0.0.0-test', clock: { now: () => sim.clock.now() }, schedules: false,
  });
  const rig: Rig = { sim, daemon, url: '', log, stateDir, receiver, apiUrl };
  started.push(rig);
  return { ...rig, url: await daemon.start() };
}

/** One cycle at the simulator's current minute; every one succeeds. */
async function cycle(rig: Rig): Promise<{ m: Map<string, { requests: number; edgeBytes: number }>; aged: (domain: string) => boolean }> {
  const [report] = await rig.daemon.runOnce();
  expect(report, `cycle at +${(rig.sim.clock.now() - T0) / MIN}m`).toMatchObject({ collector: 'access', ok: true, partialErrors: 0 });
  const res = await fetch(`${rig.url}/metrics`, { signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  // Whether the domain's freshness series is on /metrics.
  const aged = (domain: string): boolean => text.split('\n').some((line) => line.startsWith('edge_exporter_target_data_age_seconds{') && line.includes(`target="${domain}"`));
  return { m: accessCounters(text), aged };
}

/** The domains named in the access state file's counters and watermarks. */
async function inStateFile(rig: Rig): Promise<Set<string>> {
  const file = JSON.parse(await readFile(join(rig.stateDir, 'ledger-access.json'), 'utf8')) as {
    data: { counters: { labels: Record<string, string> }[]; watermarks: Record<string, number> };
  };
  const names = new Set(file.data.counters.map((c) => c.labels['domain'] ?? ''));
  for (const key of Object.keys(file.data.watermarks)) for (const m of key.matchAll(/domain="([^"]+)"/g)) names.add(m[1] ?? '');
  return names;
}

/** Takes domains out of the simulated account, or puts them back, through its admin endpoint. */
async function setRemoved(rig: Rig, body: { remove?: string[]; restore?: string[] }): Promise<void> {
  const res = await fetch(`${rig.apiUrl}/__admin/domains`, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
  const removed = ((await res.json()) as { data: { removed: string[] } }).data.removed;
  for (const name of body.remove ?? []) expect(removed).toContain(name);
  for (const name of body.restore ?? []) expect(removed).not.toContain(name);
}

/** What the access counter of `domain` holds when counted from a cycle at `from` to one at `to`. */
const requestsBetween = (sim: Simulator, domain: string, from: number, to: number): number =>
  sim.truth.domainTotal(domain, 'requests', lastSettled(from) + MIN, lastSettled(to) + MIN);

describe('targets.forget_after, through the daemon', () => {
  it('a removed domain leaves /metrics, remote-write and the state file after forget_after, and comes back from 0; one back sooner counts on from its watermark', async () => {
    const rig = await startRig(() => `targets: { refresh: 1m, forget_after: ${FORGET_AFTER / MIN}m }`);
    const [gone, back, stays] = rig.sim.truth.domains() as [string, string, string];
    const removedAt = T0 + 2 * MIN;
    const restoredAt = T0 + 15 * MIN;
    for (let k = 0; k <= 20; k++) {
      const now = T0 + k * MIN;
      rig.sim.clock.set(now);
      if (now === removedAt) await setRemoved(rig, { remove: [gone, back] });
      if (now === T0 + 6 * MIN) await setRemoved(rig, { restore: [back] });
      if (now === restoredAt) await setRemoved(rig, { restore: [gone] });
      const { m, aged } = await cycle(rig);
      const at = `+${k}m`;
      // Never away, and back before forget_after: equal to the truth since the first cycle (the second from its own watermark).
      expect(m.get(stays)?.requests, at).toBe(requestsBetween(rig.sim, stays, T0, now));
      if (now < removedAt || now >= T0 + 6 * MIN) expect(m.get(back)?.requests, at).toBe(requestsBetween(rig.sim, back, T0, now));
      else expect(m.get(back)?.requests, at).toBe(requestsBetween(rig.sim, back, T0, removedAt - MIN));
      const files = await inStateFile(rig);
      if (now < removedAt) {
        expect(m.get(gone)?.requests, at).toBe(requestsBetween(rig.sim, gone, T0, now));
        expect(aged(gone), at).toBe(true);
      } else if (now < removedAt + FORGET_AFTER) {
        // Away, not yet forgotten: frozen at what was counted, still on disk.
        expect(m.get(gone)?.requests, at).toBe(requestsBetween(rig.sim, gone, T0, removedAt - MIN));
        expect(files.has(gone), at).toBe(true);
      } else if (now < restoredAt) {
        expect(m.has(gone), at).toBe(false);
        expect(files.has(gone), at).toBe(false);
        // Its freshness series leaves with it (it would stand still for good).
        expect(aged(gone), at).toBe(false);
      } else {
        // Back after being forgotten: from 0 at first sight, then the buckets since.
        expect(m.get(gone)?.requests, at).toBe(requestsBetween(rig.sim, gone, restoredAt, now));
        expect(files.has(gone), at).toBe(true);
        expect(aged(gone), at).toBe(true);
      }
    }
    const forgotten = rig.log.filter((l) => l.includes('not listed for forget_after'));
    expect(forgotten).toHaveLength(1);
    expect(forgotten[0]).toContain(`"domain":"${gone}"`);
    // Not vacuous: the domain had traffic on both sides of its absence.
    expect(requestsBetween(rig.sim, gone, T0, removedAt - MIN)).toBeGreaterThan(0);
    expect(requestsBetween(rig.sim, gone, restoredAt, T0 + 20 * MIN)).toBeGreaterThan(0);

    // Everything counted is pushed by the time the daemon has stopped.
    await rig.daemon.stop();
    const pushed = rig.receiver.requests
      .flatMap((r) => r.series)
      .filter((s) => labelsOf(s)['__name__'] === 'edge_domain_requests_total' && labelsOf(s)['domain'] === gone)
      .flatMap((s) => s.samples)
      .sort((a, b) => a.timestamp - b.timestamp);
    const firstCounted = lastSettled(T0) + MIN;
    const lastBefore = lastSettled(removedAt - MIN) + MIN;
    const firstAfter = lastSettled(restoredAt) + MIN;
    // Nothing pushed while away; before, the total since the first cycle; after, from 0 again (no jump up from the old total or the gap).
    expect(pushed.filter((p) => p.timestamp > lastBefore && p.timestamp < firstAfter)).toEqual([]);
    for (const p of pushed) {
      const base = p.timestamp <= lastBefore ? firstCounted : firstAfter;
      expect(p.value, `pushed at ${p.timestamp}`).toBe(rig.sim.truth.domainTotal(gone, 'requests', base, p.timestamp));
    }
    expect(pushed.filter((p) => p.timestamp >= firstAfter).length).toBeGreaterThan(2);
    expect(pushed.filter((p) => p.timestamp <= lastBefore).length).toBeGreaterThan(0);
  }, 60_000);

  it('a static list is never forgotten, whatever the account lists', async () => {
    const rig = await startRig((domains) => `targets: { refresh: 1m, forget_after: 1m, domains: { static: ${JSON.stringify(domains)} } }`);
    const [gone] = rig.sim.truth.domains() as [string];
    for (let k = 0; k <= 5; k++) {
      const now = T0 + k * MIN;
      rig.sim.clock.set(now);
      if (k === 1) await setRemoved(rig, { remove: [gone] });
      const { m } = await cycle(rig);
      expect(m.get(gone)?.requests, `+${k}m`).toBe(requestsBetween(rig.sim, gone, T0, now));
      expect((await inStateFile(rig)).has(gone)).toBe(true);
    }
    expect(rig.log.filter((l) => l.includes('not listed for forget_after'))).toEqual([]);
  }, 60_000);
});
