// A damaged WAF event checkpoint at start-up, for every kind of damage and
// both values of state_recovery. fail: exit 1 naming the file before it
// listens, nothing changes. reset: the file kept aside, an error log line
// giving the resume point, the self-metric, and forwarding resumed at now
// minus waf_events.delay: every deny event from there on arrives, none that
// was delivered before the damage arrives again, and those in between (the
// gap the log names) are skipped. The daemon runs in-process on the
// simulator's fixed clock (its Date.now, or its clock option).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectOutcome } from '../cli/helpers.js';
import { freePort } from '../support/ports.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { configText, MIN, TOKEN, snapshot } from './state-fixtures.js';
import { Capture } from '../support/capture.js';
import { savedCheckpoint } from '../forwarder/fakes.js';

/** 2026-03-02 12:00:00 platform time. */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const DELAY_MS = 2 * MIN;
const START_FROM_MS = 10 * MIN;
const CHECKPOINT = 'waf-events-checkpoint.json';

let sim: Simulator;
let apiUrl: string;
let receiver: OtlpReceiver;
let dir: string;
let stateDir: string;
const daemons: Daemon[] = [];

beforeAll(async () => {
  sim = createSimulator({ seed: 8, domains: 120, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
  ({ url: apiUrl } = await sim.listen('127.0.0.1', 0));
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver.close();
  await sim.close();
});
beforeEach(() => {
  sim.clock.set(T0);
  receiver.reset();
  // The CLI reads the time through Date.now only; the simulator's clock was built with the real one.
  vi.spyOn(Date, 'now').mockImplementation(() => sim.clock.now());
  dir = mkdtempSync(join(tmpdir(), 'edge-damaged-waf-'));
  stateDir = join(dir, 'state');
});
afterEach(async () => {
  for (const d of daemons.splice(0)) await d.stop();
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

function config(recovery: 'fail' | 'reset' | undefined, listen = '127.0.0.1:0'): string {
  const file = join(dir, `config-${recovery ?? 'default'}.yaml`);
  writeFileSync(file, configText({
    apiUrl, stateDir, listen, ...(recovery ? { recovery } : {}),
    extra: [
      `waf_events: { enabled: true, interval: 30s, delay: ${DELAY_MS / MIN}m, overlap: 5m, max_window: 15m, start_from: ${START_FROM_MS / MIN}m, page_size: 50 }`,
      `otlp: { endpoint: "${receiver.url}", timeout: 5s, max_batch: 20 }`,
    ],
  }));
  return file;
}

/** A daemon driven by forwardOnce() on the simulator's clock. */
function daemon(recovery?: 'fail' | 'reset'): Daemon {
  const d = new Daemon({
    config: loadConfig({ file: config(recovery), env: {} }),
    logger: createLogger({ level: 'silent', destination: new Capture() }),
    version: 'test',
    clock: sim.clock,
    schedules: false,
  });
  daemons.push(d);
  return d;
}

/** requestIds of the simulator's deny events with time in [from, to). */
const denyIds = (from: number, to: number): string[] =>
  sim.truth.wafEvents(from, to).filter((e) => e.record.response.httpCode === 417).map((e) => e.record.requestId);

const checkpointData = (): { originMs: number; cursorMs: number; delivered: unknown[]; counters: unknown[] } =>
  (JSON.parse(readFileSync(join(stateDir, CHECKPOINT), 'utf8')) as { data: ReturnType<typeof checkpointData> }).data;

/** Forwarding from T0 (start_from back) for a minute, then the daemon stops; the cursor it saved. */
async function forwardedThenStopped(): Promise<number> {
  const d = daemon();
  expect(await d.forwardOnce()).toMatchObject({ ok: true });
  sim.clock.advance(MIN);
  expect(await d.forwardOnce()).toMatchObject({ ok: true });
  await d.stop();
  // The snapshot with its journal replayed: a window done may be a journal line (checkpoint.ts).
  const { originMs, cursorMs } = savedCheckpoint(stateDir);
  expect(originMs).toBe(T0 - START_FROM_MS);
  expect(cursorMs).toBe(T0 + MIN - DELAY_MS);
  const delivered = denyIds(originMs, cursorMs);
  expect(delivered.length).toBeGreaterThan(5);
  expect([...receiver.uids()].sort()).toEqual([...delivered].sort());
  return cursorMs;
}

const DAMAGE: ReadonlyArray<[string, (path: string, healthy: string) => void, RegExp]> = [
  ['truncated JSON', (p, h) => writeFileSync(p, h.slice(0, h.length - 9)), /is not valid JSON/],
  ['garbage', (p) => writeFileSync(p, 'PK\u0003\u0004\u0000\u0000garbage'), /is not valid JSON/],
  ['an empty file', (p) => writeFileSync(p, ''), /is empty \(0 bytes\)/],
  ['another format version', (p, h) => writeFileSync(p, h.replace('"version":1', '"version":0')), /has format version 0; this edge-exporter reads version 1/],
  ['the wrong shape', (p, h) => writeFileSync(p, h.replace(/"originMs":\d+/, `"originMs":${T0 + 60 * MIN}`)), /does not hold what it should \(data\.cursorMs: cursor before origin\)/],
  ['a directory', (p) => {
    rmSync(p);
    mkdirSync(p);
  }, /is a directory, not a file/],
];

describe.each(DAMAGE)('waf-events-checkpoint.json: %s', (_kind, damage, problem) => {
  it('fail (the default): exit 1 naming the file, the problem and state_recovery the port closed again; nothing sent or changed', async () => {
    await forwardedThenStopped();
    const path = join(stateDir, CHECKPOINT);
    damage(path, readFileSync(path, 'utf8'));
    const before = snapshot(stateDir);
    const sent = receiver.uids().length;
    const port = await freePort();
    const stderr = new Capture();
    const stdout = new Capture();
    const code = await main(['run', '--config', config(undefined, `127.0.0.1:${port}`)], { stdout, stderr, env: {} }, AbortSignal.timeout(5_000));
    expect(code).toBe(1);
    expect(stderr.text).toContain(`edge-exporter: state file ${path}: `);
    expect(stderr.text).toMatch(problem);
    expect(stderr.text).toContain('Refusing to start rather than guess where WAF event forwarding stopped. Restore it from a backup');
    expect(stderr.text).toContain('or set state_recovery: reset to resume at now minus waf_events.delay');
    expect(stderr.text).toContain(`reset keeps the file as ${CHECKPOINT}.damaged-<time>`);
    expect(await connectOutcome(port)).toBe('ECONNREFUSED');
    expect(stdout.text).not.toMatch(/serving metrics/);
    expect(snapshot(stateDir)).toEqual(before);
    expect(receiver.uids()).toHaveLength(sent);
  });

  it('reset: kept aside, logged with the resume point, counted; resumes at now - delay, nothing sent twice', async () => {
    const lostCursor = await forwardedThenStopped();
    const path = join(stateDir, CHECKPOINT);
    const healthy = readFileSync(path, 'utf8');
    damage(path, healthy);
    const damagedEntry = snapshot(stateDir)[CHECKPOINT];
    const before = new Set(receiver.uids());
    // Four minutes of downtime, then the serving daemon with reset.
    sim.clock.advance(4 * MIN);
    const resumeAt = sim.clock.now() - DELAY_MS;
    const stdout = new Capture();
    const controller = new AbortController();
    const running = main(['run', '--config', config('reset')], { stdout, stderr: new Capture(), env: {} }, controller.signal);
    await expect.poll(() => stdout.text, { timeout: 10_000 }).toMatch(/serving metrics/);
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(stdout.text)?.[1] ?? '';
    const metrics = await (await fetch(url)).text();
    controller.abort();
    expect(await running).toBe(0);

    expect(metrics).toMatch(/^edge_exporter_state_resets_total\{file="waf-events-checkpoint\.json"\} 1$/m);
    const kept = readdirSync(stateDir).filter((f) => f.startsWith(`${CHECKPOINT}.damaged-`));
    expect(kept).toHaveLength(1);
    expect(snapshot(stateDir)[kept[0]!]).toBe(damagedEntry);
    const logged = stdout.text.split('\n').filter((l) => l.includes('damaged WAF event checkpoint kept aside')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged).toEqual([expect.objectContaining({
      level: 'error', file: path, keptAs: join(stateDir, kept[0]!), resumeFrom: new Date(resumeAt).toISOString(),
    })]);
    expect(String(logged[0]?.problem)).toMatch(problem);
    expect(String(logged[0]?.msg)).toMatch(/up to resumeFrom are skipped; none is sent twice/);
    // The delivery audit begins at the resume point's first whole minute (for every domain, as the first poll read): what
    // was delivered before the reset is not in its record, so it is never compared, and never sent again.
    expect(checkpointData()).toEqual({
      originMs: resumeAt, cursorMs: resumeAt, finalMs: resumeAt, delivered: [], counters: [], rules: [], journal: expect.any(Number) as number,
      auditFrom: [Math.ceil(resumeAt / 60_000) * 60_000, '*'],
    });

    // Three minutes on: everything from the resume point arrives, nothing before it again.
    sim.clock.advance(3 * MIN);
    const d = daemon('reset');
    expect(await d.forwardOnce()).toMatchObject({ ok: true });
    const after = receiver.uids().filter((uid) => !before.has(uid));
    const expected = denyIds(resumeAt, sim.clock.now() - DELAY_MS);
    expect(expected.length).toBeGreaterThan(5);
    expect([...after].sort()).toEqual([...expected].sort());
    expect(new Set(receiver.uids()).size).toBe(receiver.uids().length);
    // The gap the log names: events after the lost cursor and before the resume point were not forwarded.
    const gap = denyIds(lostCursor, resumeAt);
    expect(gap.length).toBeGreaterThan(0);
    expect(gap.filter((uid) => receiver.uids().includes(uid))).toEqual([]);
    // The denied counter restarted at 0 and counts what was forwarded since.
    const denied = [...(await d.renderText()).matchAll(/^edge_waf_denied_requests_total\{[^}]*\} (\d+)$/gm)].reduce((s, m) => s + Number(m[1]), 0);
    expect(denied).toBe(expected.length);
    expect((await d.renderText())).not.toMatch(/edge_exporter_state_resets_total\{/);
  });
});
