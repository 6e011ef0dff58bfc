// A damaged collector state file (and shard marker) at start-up, through the
// CLI (`main`, in-process, its Date.now on the simulator's fixed clock), for
// every kind of damage and both values of state_recovery:
// - fail: exit 1 with the file, the problem and the ways out, before the first
//   request (the port is bound first, and closed again);
//   no file changed;
// - reset: exit 0, the file kept aside, an error log line, the self-metric,
//   and counters that restart at 0 with no back-fill, so that across the
//   reset Prometheus' increase() equals the simulator's truth over the ranges
//   counted, with the downtime's buckets given up and none counted twice.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectOutcome } from '../cli/helpers.js';
import { freePort } from '../support/ports.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { accessCounters, configText, lastSettled, MIN, TOKEN, truthBetween, snapshot } from './state-fixtures.js';
import { Capture } from '../support/capture.js';

/** 2026-03-02 12:00:10 platform time. */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
const LEDGER = 'ledger-access.json';

let sim: Simulator;
let apiUrl: string;
let dir: string;
let stateDir: string;

beforeAll(async () => {
  sim = createSimulator({ seed: 3, domains: 3, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
  ({ url: apiUrl } = await sim.listen('127.0.0.1', 0));
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.clock.set(T0);
  // The daemon reads the time through Date.now only; the simulator's clock was built with the real one.
  vi.spyOn(Date, 'now').mockImplementation(() => sim.clock.now());
  dir = mkdtempSync(join(tmpdir(), 'edge-damaged-ledger-'));
  stateDir = join(dir, 'state');
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  out: string;
  err: string;
}

/** `edge-exporter run` in-process; a serving run is stopped after `serveMs`, so a run that wrongly starts still returns. */
async function run(recovery: 'fail' | 'reset' | undefined, args: readonly string[], serveMs = 5_000): Promise<Outcome> {
  const config = join(dir, `config-${recovery ?? 'default'}.yaml`);
  writeFileSync(config, configText({ apiUrl, stateDir, ...(recovery ? { recovery } : {}) }));
  const stdout = new Capture();
  const stderr = new Capture();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), serveMs);
  try {
    const code = await main(['run', '--config', config, ...args], { stdout, stderr, env: {} }, controller.signal);
    return { code, out: stdout.text, err: stderr.text };
  } finally {
    clearTimeout(timer);
  }
}

/** One `run --once` cycle that must succeed; its exposition. */
async function cycle(recovery?: 'fail' | 'reset'): Promise<Outcome> {
  const r = await run(recovery, ['--once']);
  if (r.code !== 0) throw new Error(`run --once exited ${r.code}: ${r.err}`);
  return r;
}

/** Prometheus' increase() over a run of scraped values: a drop is a counter reset, counted from 0. */
function increase(values: readonly number[]): number {
  return values.slice(1).reduce((sum, v, i) => sum + (v >= (values[i] ?? 0) ? v - (values[i] ?? 0) : v), 0);
}

/** Damage done to a healthy file (its text given), the problem the message must name. */
const LEDGER_DAMAGE: ReadonlyArray<[string, (path: string, healthy: string) => void, RegExp]> = [
  ['truncated JSON', (p, h) => writeFileSync(p, h.slice(0, h.length >> 1)), /is not valid JSON \(truncated or edited\?\)/],
  ['garbage', (p) => writeFileSync(p, Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0a, 0x7b])), /is not valid JSON/],
  ['an empty file', (p) => writeFileSync(p, ''), /is empty \(0 bytes\)/],
  ['another format version', (p, h) => writeFileSync(p, h.replace('"version":1', '"version":7')), /has format version 7; this edge-exporter reads version 1/],
  ['the wrong shape', (p) => writeFileSync(p, '{"version":1,"data":{"collector":"access","watermarks":{},"counters":"x"}}'), /does not hold what it should \(data\.counters: /],
  ['another collector\'s file', (p, h) => writeFileSync(p, h.replace('"collector":"access"', '"collector":"usage"')), /belongs to collector "usage", not "access"/],
  ['a directory', (p) => {
    rmSync(p);
    mkdirSync(p);
  }, /is a directory, not a file/],
];

describe.each(LEDGER_DAMAGE)('ledger-access.json: %s', (_kind, damage, problem) => {
  /** Two cycles T0 and T0+3m, then the damage; the counters Prometheus saw. */
  async function damaged(): Promise<{ seen: Map<string, number[]>; lastCounted: number }> {
    const seen = new Map<string, number[]>();
    const record = (out: string) => accessCounters(out).forEach((c, domain) => seen.set(domain, [...(seen.get(domain) ?? []), c.requests]));
    record((await cycle()).out);
    sim.clock.advance(3 * MIN);
    const second = await cycle();
    record(second.out);
    const path = join(stateDir, LEDGER);
    damage(path, readFileSync(path, 'utf8'));
    return { seen, lastCounted: sim.clock.now() };
  }

  it('fail (the default): exit 1 naming the file, the problem and state_recovery the port closed again; nothing changes', async () => {
    await damaged();
    const before = snapshot(stateDir);
    const port = await freePort();
    const r = await run(undefined, ['--listen', `127.0.0.1:${port}`]);
    expect(r.code).toBe(1);
    const path = join(stateDir, LEDGER);
    expect(r.err).toContain(`edge-exporter: state file ${path}: `);
    expect(r.err).toMatch(problem);
    expect(r.err).toMatch(/Refusing to start rather than reset its counters silently\. Restore it from a backup, or remove it to start "access" from 0/);
    expect(r.err).toContain(`set state_recovery: reset to have that done at start-up; reset keeps the file as ${LEDGER}.damaged-<time>`);
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    expect(await connectOutcome(port)).toBe('ECONNREFUSED');
    expect(r.out).not.toMatch(/serving metrics/);
    expect(snapshot(stateDir)).toEqual(before);
    // The one-shot run refuses the same way.
    expect((await run('fail', ['--once'])).code).toBe(1);
    expect(snapshot(stateDir)).toEqual(before);
  });

  it('reset: keeps the file aside, logs and counts it, restarts at 0 without back-fill; increase() equals truth, no bucket twice', async () => {
    const { seen, lastCounted } = await damaged();
    const damagedEntry = snapshot(stateDir)[LEDGER];
    // Five minutes of downtime, then the restart with reset.
    sim.clock.advance(5 * MIN);
    const restart = sim.clock.now();
    const r = await cycle('reset');

    const kept = readdirSync(stateDir).filter((f) => f.startsWith(`${LEDGER}.damaged-`));
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatch(/^ledger-access\.json\.damaged-\d{8}T\d{6}Z$/);
    expect(snapshot(stateDir)[kept[0]!]).toBe(damagedEntry);
    const logged = r.err.split('\n').filter((l) => l.includes('damaged state file kept aside')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged).toEqual([expect.objectContaining({ level: 'error', file: join(stateDir, LEDGER), keptAs: join(stateDir, kept[0]!), collector: 'access' })]);
    expect(String(logged[0]?.problem)).toMatch(problem);
    expect(String(logged[0]?.msg)).toMatch(/counters restart at 0 .* given up, none is counted twice/);
    expect(r.out).toMatch(/^edge_exporter_state_resets_total\{file="ledger-access\.json"\} 1$/m);

    // Like a first start: every counter at 0, nothing back-filled.
    const afterReset = accessCounters(r.out);
    expect([...afterReset.values()].map((c) => [c.requests, c.edgeBytes])).toEqual([...afterReset.keys()].map(() => [0, 0]));
    // The new state file is a healthy one; the next cycles count on from it.
    sim.clock.advance(2 * MIN);
    const next = await cycle('reset');
    expect(next.out).not.toMatch(/edge_exporter_state_resets_total\{/);
    for (const [domain, c] of afterReset) seen.set(domain, [...(seen.get(domain) ?? []), c.requests]);
    for (const [domain, c] of accessCounters(next.out)) seen.set(domain, [...(seen.get(domain) ?? []), c.requests]);

    // Counted: (T0, T0+3m] before the damage, (restart, restart+2m] after it; the buckets between are given up.
    expect(lastSettled(restart) - lastSettled(lastCounted)).toBe(5 * MIN);
    expect(seen.size).toBe(3);
    for (const [domain, values] of seen) {
      const truth = truthBetween(sim, domain, T0, lastCounted).requests + truthBetween(sim, domain, restart, sim.clock.now()).requests;
      expect({ domain, increase: increase(values) }).toEqual({ domain, increase: truth });
      expect(values).toHaveLength(4);
      expect(values[1]).toBeGreaterThan(0);
      expect(values[3]).toBeGreaterThan(0);
    }
  });
});

describe('shard.json', () => {
  const marker = (): string => join(stateDir, 'shard.json');

  it('damaged, fail: exit 1 naming it; reset: kept aside, this shard recorded, the counters continue untouched', async () => {
    await cycle();
    sim.clock.advance(2 * MIN);
    await cycle();
    writeFileSync(marker(), '{"version":1,"data":{"index":"zero"}}');
    const before = snapshot(stateDir);
    const failed = await run(undefined, ['--once']);
    expect(failed.code).toBe(1);
    expect(failed.err).toContain(`state file ${marker()}: does not hold what it should (data.index: `);
    expect(failed.err).toContain('Refusing to start without knowing which shard this state directory belongs to');
    expect(failed.err).toContain('set state_recovery: reset');
    expect(snapshot(stateDir)).toEqual(before);

    sim.clock.advance(MIN);
    const r = await cycle('reset');
    expect(r.err).toMatch(/"level":"error",.*"msg":"damaged shard marker kept aside \(state_recovery: reset\)/);
    expect(r.out).toMatch(/^edge_exporter_state_resets_total\{file="shard\.json"\} 1$/m);
    expect(JSON.parse(readFileSync(marker(), 'utf8'))).toEqual({ version: 1, data: { index: 0, count: 1 } });
    expect(readdirSync(stateDir).filter((f) => f.startsWith('shard.json.damaged-'))).toHaveLength(1);
    // The collector's file was not damaged: its counters go on from T0.
    const counters = accessCounters(r.out);
    expect(counters.size).toBe(3);
    for (const [domain, c] of counters) expect(c).toEqual(truthBetween(sim, domain, T0, sim.clock.now()));
  });

  it('of another shard: exit 1 with fail and with reset (not damage), nothing changed', async () => {
    await cycle();
    writeFileSync(marker(), '{"version":1,"data":{"index":1,"count":2}}\n');
    const before = snapshot(stateDir);
    for (const recovery of ['fail', 'reset'] as const) {
      const r = await run(recovery, ['--once']);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`state file ${marker()}: belongs to shard 1 (of 2), and this replica is shard 0 (of 1)`);
      expect(r.err).toContain('state_recovery: reset does not apply, the file is not damaged');
      expect(snapshot(stateDir)).toEqual(before);
    }
  });
});
