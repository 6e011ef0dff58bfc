// End to end: the daemon (a real child process) forwards the simulator's WAF
// deny events to an OTLP receiver while it is killed with SIGKILL at random
// points and restarted, and while the receiver is down for a while. At the
// end the receiver must hold every deny event of the range exactly once
// (duplicates are measured against the documented bound), and no pass event;
// the denied counter and the rule descriptions come through the kills whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { Rng } from '../../src/simulator/rng.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';

const TOKEN = 'e2e-token-9f3a';
const START_FROM_MS = 60_000;
const MAX_BATCH = 10;
const KILLS = 4;

let sim: Simulator;
let receiver: OtlpReceiver;
let configFile: string;
let checkpointFile: string;
let child: ChildProcess | undefined;
let metricsUrl: string | undefined;

beforeAll(async () => {
  sim = createSimulator({ domains: 300, wafIngestLagMs: 2_000, tokens: [{ token: TOKEN, permissions: '*' }] });
  const { url } = await sim.listen('127.0.0.1', 0);
  receiver = await startOtlpReceiver();
  const dir = mkdtempSync(join(tmpdir(), 'edge-waf-e2e-'));
  configFile = join(dir, 'config.yaml');
  checkpointFile = join(dir, 'state', 'waf-events-checkpoint.json');
  writeFileSync(configFile, [
    `upstream: { api_url: "${url}", token: "${TOKEN}", timeout: 2s, retry: { attempts: 2, min_delay: 50ms, max_delay: 200ms } }`,
    `state_dir: ${join(dir, 'state')}`,
    'server: { listen: "127.0.0.1:0" }',
    'log: { level: info }',
    'collectors:',
    ...['access', 'usage', 'topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }`),
    `waf_events: { enabled: true, interval: 1s, delay: 4s, overlap: 10s, max_window: 10s, start_from: ${START_FROM_MS}ms, page_size: 20 }`,
    `otlp: { endpoint: "${receiver.url}", timeout: 1500ms, max_batch: ${MAX_BATCH} }`,
  ].join('\n'));
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await receiver?.close();
  await sim?.close();
});

function startDaemon(): ChildProcess {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', '--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout?.setEncoding('utf8').on('data', (text: string) => {
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(text)?.[1];
    if (url) metricsUrl = url;
  });
  proc.stderr?.resume();
  return proc;
}

function exited(proc: ChildProcess): Promise<number | null> {
  return proc.exitCode !== null || proc.signalCode !== null
    ? Promise.resolve(proc.exitCode)
    : new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function denyEvents(from: number, to: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of sim.truth.wafEvents(from, to)) if (e.record.response.httpCode === 417) out.set(e.record.requestId, e.time);
  return out;
}

describe('WAF deny events through SIGKILL and a receiver outage', () => {
  it('delivers every deny event of the range, no pass event, duplicates within one batch per kill', async () => {
    child = startDaemon();
    // The first start saves where forwarding begins (now - start_from) before
    // it reads anything; that, not the test's clock, is the start of the range.
    await expect.poll(() => existsSync(checkpointFile), { timeout: 30_000, interval: 100 }).toBe(true);
    const originMs = (JSON.parse(readFileSync(checkpointFile, 'utf8')) as { data: { originMs: number } }).data.originMs;
    // Seeded, so a failure can be replayed; the pauses are the "random points".
    const rng = new Rng(20261122);
    for (let kill = 0; kill < KILLS; kill++) {
      await pause(rng.int(1_500, 4_000));
      if (kill === 1) receiver.setDown(true);
      if (kill === 3) receiver.setDown(false);
      child.kill('SIGKILL');
      await exited(child);
      child = startDaemon();
    }
    receiver.setDown(false);
    const chaosEnd = Date.now();
    // Every deny event from the origin to the end of the chaos must arrive.
    const expected = denyEvents(originMs, chaosEnd);
    expect(expected.size).toBeGreaterThan(20);
    const missing = () => [...expected].filter(([uid]) => !receiver.uids().includes(uid)).map(([uid, at]) => `${uid} at origin+${at - originMs}ms`);
    await expect.poll(() => missing().length, { timeout: 60_000, interval: 500 }).toBe(0).catch(() => undefined);
    expect(missing()).toEqual([]);

    const received = receiver.uids();
    const unique = new Set(received);
    const everything = denyEvents(originMs, Date.now());
    const passIds = new Set(sim.truth.wafEvents(originMs, Date.now()).filter((e) => e.record.response.httpCode !== 417).map((e) => e.record.requestId));
    expect([...unique].filter((uid) => passIds.has(uid))).toEqual([]);
    expect([...unique].filter((uid) => !everything.has(uid))).toEqual([]);
    const duplicates = received.length - unique.size;
    // Documented bound: a kill re-sends at most the batch that was in flight.
    expect(duplicates).toBeLessThanOrEqual(KILLS * MAX_BATCH);
    console.info(`waf e2e: ${expected.size} deny events expected, ${unique.size} delivered, ${duplicates} duplicates over ${KILLS} kills`);

    // The denied counter counted each delivered event once.
    await expect.poll(() => metricsUrl, { timeout: 10_000 }).toBeDefined();
    const metrics = await (await fetch(metricsUrl!)).text();
    const counted = [...metrics.matchAll(/^edge_waf_denied_requests_total\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(counted).toBe(unique.size);

    // Every rule id counted, across the kills, is described by its rule's message and group as the records carry them.
    const countedRules = new Set([...metrics.matchAll(/^edge_waf_denied_requests_total\{[^}]*rule_id="([^"]*)"[^}]*\} \d+$/gm)].map((m) => m[1]));
    const described = new Map([...metrics.matchAll(/^edge_waf_rule_info\{rule_id="([^"]*)",description="([^"]*)",category="([^"]*)"\} 1$/gm)]
      .map((m) => [m[1], `${m[2]}|${m[3]}`]));
    const truth = new Map(sim.truth.wafEvents(originMs, Date.now()).flatMap((e) => {
      const rule = e.record.rules[0];
      return unique.has(e.record.requestId) && rule ? [[String(rule.ruleId), `${rule.ruleMessage}|${rule.group}`] as const] : [];
    }));
    expect(countedRules.size).toBeGreaterThan(3);
    expect(described).toEqual(new Map([...countedRules].map((id) => [id, truth.get(id ?? '')])));

    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    child = undefined;
  }, 180_000);
});
