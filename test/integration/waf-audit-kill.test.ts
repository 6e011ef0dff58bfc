// The real daemon (the CLI, a child process) SIGKILLed in the middle of a
// delivery audit's recovery and restarted on the same state directory. A
// third of the simulator's deny records are ingested 15 minutes late, so the
// final pass misses them and the audit reads their buckets again. The kill
// lands while a recovery batch is on the wire (the receiver holds it), after
// earlier batches of the same recovery were confirmed. The restarted daemon
// resumes: every deny event of the run reaches the receiver, and the only
// repeats are the batch that was in flight (at most max_batch). The
// simulator's clock is fixed and moved by the test; the child's Date.now
// follows it (test/daemon/clock-offset.ts, moved on SIGUSR2).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedLogRecord } from '../support/otlp-receiver.js';

const MIN = 60_000;
/** 10 s into a platform minute, so the child's own seconds never cross into the next one. */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
const LATE = 15 * MIN;
const MAX_BATCH = 5;
const TOKEN = 'audit-kill-token-71c2';
const CLOCK_PRELOAD = fileURLToPath(new URL('../daemon/clock-offset.ts', import.meta.url));

let sim: Simulator | undefined;
let receiver: OtlpReceiver | undefined;
let child: Child | undefined;
let dir: string | undefined;

afterEach(async () => {
  child?.proc.kill('SIGKILL');
  child = undefined;
  await receiver?.close();
  await sim?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  receiver = sim = dir = undefined;
});

interface Child {
  readonly proc: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<unknown>;
}

function start(config: string, clockFile: string, simulator: Simulator): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--import', CLOCK_PRELOAD, 'src/cli/main.ts', 'run', '--config', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, EDGE_TEST_CLOCK_OFFSET_MS: String(simulator.clock.now() - Date.now()), EDGE_TEST_CLOCK_FILE: clockFile },
  });
  const output = { stdout: '', stderr: '' };
  proc.stdout?.setEncoding('utf8').on('data', (t: string) => (output.stdout += t));
  proc.stderr?.setEncoding('utf8').on('data', (t: string) => (output.stderr += t));
  return { proc, output, exited: new Promise((resolve) => proc.once('close', resolve)) };
}

/** Until the child has loaded its checkpoint: its clock's SIGUSR2 handler is in place by then (before it, the signal kills). */
async function ready(c: Child): Promise<void> {
  await expect.poll(() => c.output.stdout.includes('WAF event checkpoint loaded'), { timeout: 30_000, interval: 50 }).toBe(true);
}

describe('the daemon SIGKILLed during an audit recovery', () => {
  it('resumes: every deny event delivered, repeats within the batch in flight', async () => {
    sim = createSimulator({
      seed: 21, domains: 40, clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }],
      readings: { wafLateIngest: { fraction: 1 / 3, minMs: LATE, maxMs: LATE } },
    });
    const s = sim;
    const { url } = await s.listen('127.0.0.1', 0);
    const r = (receiver = await startOtlpReceiver());
    dir = mkdtempSync(join(tmpdir(), 'edge-audit-kill-'));
    const config = join(dir, 'config.yaml');
    const clockFile = join(dir, 'clock');
    writeFileSync(config, [
      `upstream: { api_url: "${url}", token: "${TOKEN}", timeout: 5s, retry: { attempts: 2, min_delay: 50ms, max_delay: 200ms } }`,
      `state_dir: ${JSON.stringify(join(dir, 'state'))}`,
      'server: { listen: "127.0.0.1:0" }',
      'log: { level: info }',
      'collectors:',
      ...['access', 'usage', 'topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }`),
      'waf_events: { enabled: true, interval: 1s, start_from: 20m, page_size: 100 }',
      `otlp: { endpoint: "${r.url}", timeout: 30s, max_batch: ${MAX_BATCH} }`,
    ].join('\n'));
    const move = async (ms: number): Promise<void> => {
      s.clock.advance(ms);
      writeFileSync(clockFile, String(s.clock.now() - Date.now()));
      const running = child;
      if (!running) return;
      const seen = running.output.stderr.split('test clock offset').length;
      running.proc.kill('SIGUSR2');
      await expect.poll(() => running.output.stderr.split('test clock offset').length, { timeout: 5_000 }).toBe(seen + 1);
    };
    // Deny records the windows cannot have read: ingested late, after the first poll.
    const lateIds = (to: number): Set<string> => new Set(s.truth.wafEvents(T0 - 20 * MIN, to)
      .filter((e) => e.record.response.httpCode === 417 && s.truth.wafVisibility(e).late && s.truth.wafVisibility(e).visibleFrom > T0)
      .map((e) => e.record.requestId));

    // The receiver holds the first batch of late records that follows another batch of late records of the same
    // minute (a recovery reads one bucket, a minute here, in several batches): the kill lands in the middle of one.
    const minuteOf = (record: ReceivedLogRecord): number => Math.floor(Number(record.timeUnixNano / 1_000_000n) / MIN);
    let previous: readonly ReceivedLogRecord[] = [];
    let heldBatch: readonly ReceivedLogRecord[] = [];
    r.holdWhen((records) => {
      const late = lateIds(s.clock.now());
      const allLate = (batch: readonly ReceivedLogRecord[]): boolean => batch.length > 0 && batch.every((x) => late.has(String(x.attributes['log.record.uid'])));
      const match = records.length === MAX_BATCH && allLate(records) && allLate(previous) && minuteOf(records[0]!) === minuteOf(previous[0]!);
      previous = records;
      if (match) heldBatch = records;
      return match;
    });
    child = start(config, clockFile, s);
    await ready(child);
    for (let i = 0; i < 60 && heldBatch.length === 0; i++) {
      await move(MIN);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(heldBatch.length).toBe(MAX_BATCH);
    const inFlight = r.requests().at(-1);
    child.proc.kill('SIGKILL');
    await child.exited;
    expect(inFlight?.status).toBeUndefined();
    expect(child.output.stdout).toContain('reading it again');
    r.holdWhen(undefined);
    // Released after the kill: the receiver keeps the batch, which the daemon never saw confirmed (it is sent again).
    r.setHold(false);
    const accepted = r.uids().length;

    child = start(config, clockFile, s);
    await ready(child);
    for (let i = 0; i < 30; i++) {
      await move(MIN);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const end = s.clock.now();
    const { data } = JSON.parse(readFileSync(join(dir, 'state', 'waf-events-checkpoint.json'), 'utf8')) as { data: { originMs: number } };
    const expected = s.truth.wafEvents(data.originMs, end - LATE - 10 * MIN).filter((e) => e.record.response.httpCode === 417).map((e) => e.record.requestId);
    await expect.poll(() => expected.filter((uid) => !r.uids().includes(uid)).length, { timeout: 20_000, interval: 200 }).toBe(0);
    const received = r.uids();
    const unique = new Set(received);
    expect(received.length - unique.size).toBeLessThanOrEqual(MAX_BATCH);
    expect(received.length).toBeGreaterThan(accepted);
    // The restarted daemon recovered the rest of that bucket, and sent the held batch again at most.
    const late = lateIds(end);
    expect(received.slice(accepted).filter((uid) => late.has(uid)).length).toBeGreaterThan(0);
    const heldIds = new Set(heldBatch.map((x) => String(x.attributes['log.record.uid'])));
    expect(received.filter((uid, i) => received.indexOf(uid) !== i).every((uid) => heldIds.has(uid))).toBe(true);
    child.proc.kill('SIGTERM');
    await child.exited;
  }, 120_000);
});
