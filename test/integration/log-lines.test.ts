// What the daemon's log looks like to the person reading it, from a real run:
// the simulator as upstream, two collector cycles, and a WAF event poll whose
// OTLP receiver is down for a few attempts and then comes up. Every line
// carries pino's one message key (`msg`, never also `message`) and each of its
// keys once (JSON.parse keeps the last of a repeated key, and some readers
// refuse the line); every time in a line (pino's `time`, the WAF windows,
// anything that looks like a date) is ISO 8601 with its offset; the delivery
// failure is one warning for the spell and one line on recovery with its
// retries and duration. Every address is 127.0.0.1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { lineSink } from '../support/capture.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { freePort } from '../support/ports.js';
import { until } from '../exporters/remote-write/support.js';

const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
const TOKEN = 'sim-token';
/** Failed delivery attempts before the receiver comes up. */
const DOWN_FOR = 2;

/** ISO 8601 date-time with seconds and an offset (Z or ±hh:mm). */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
/** Anything that reads as a date and a time of day, wherever it stands in a string. */
const DATE_TIME_ANYWHERE = /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g;
/** Keys whose value is an instant. */
const TIME_KEY = /^(?:time|from|to)$|(?:At|Since|From|Until)$/;

type Line = Record<string, unknown>;

/**
 * The keys that `line` (one JSON text) gives more than once in an object, as the parser words them. JSON.parse keeps
 * the last silently and a reviver only sees what it kept; JSON is YAML 1.2, whose parser here reports each repeat.
 */
function repeatedKeys(line: string): string[] {
  return parseDocument(line, { uniqueKeys: true }).errors.filter((e) => e.code === 'DUPLICATE_KEY').map((e) => e.message);
}

/** Every time in `value` (a line, or a value in it) that is not ISO 8601 with an offset, with where it was found. */
function badTimes(value: unknown, path: string): string[] {
  if (typeof value === 'string') {
    const bad = [...value.matchAll(DATE_TIME_ANYWHERE)].map((m) => m[0]).filter((t) => !ISO_WITH_OFFSET.test(t) || !Number.isFinite(Date.parse(t)));
    return bad.map((t) => `${path}: ${t}`);
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => badTimes(v, `${path}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const at = `${path}.${key}`;
    // An instant logged as a bare number (epoch ms) is not readable as a time.
    if (typeof v === 'number' && (TIME_KEY.test(key) || /Ms$/.test(key)) && v > 1e12) return [`${at}: ${v} (epoch number)`];
    if (TIME_KEY.test(key) && (typeof v !== 'string' || !ISO_WITH_OFFSET.test(v))) return [`${at}: ${String(v)}`];
    return badTimes(v, at);
  });
}

let dir: string;
let sim: Simulator;
let receiver: OtlpReceiver | undefined;
const raw: string[] = [];
let lines: Line[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edge-log-lines-'));
  sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, domains: 3, tokens: [{ token: TOKEN, permissions: '*' }] });
  const apiUrl = (await sim.listen('127.0.0.1', 0)).url;
  const otlpPort = await freePort();
  const text = [
    `upstream: { api_url: "${apiUrl}", token: ${TOKEN}, timeout: 5s, retry: { attempts: 1 }, timezone: "+08:00" }`,
    'collectors:',
    '  defaults: { jitter: 0s }',
    '  usage: { interval: 1m }',
    'waf_events: { enabled: true, interval: 1m, delay: 1m, overlap: 0s, max_window: 30m, start_from: 3h, page_size: 100 }',
    // A short timeout keeps each failed attempt (the SDK's own retries inside it) short.
    `otlp: { endpoint: "http://127.0.0.1:${otlpPort}/v1/logs", timeout: 1s }`,
    'server: { listen: "127.0.0.1:0" }',
    `state_dir: ${JSON.stringify(join(dir, 'state'))}`,
  ].join('\n');
  const logger = createLogger({ level: 'debug', format: 'json', destination: lineSink(raw), secrets: [TOKEN] });
  const daemon = new Daemon({ config: loadConfig({ text, env: {} }), logger, version: '0.0.0-test', clock: { now: () => sim.clock.now() }, schedules: false });
  try {
    await daemon.start();
    await daemon.runOnce();
    sim.clock.advance(5 * 60_000);
    await daemon.runOnce();
    const polling = daemon.forwardOnce();
    const failedAttempts = (): number => raw.filter((l) => l.includes('delivering WAF events failed')).length;
    await until(() => failedAttempts() >= DOWN_FOR);
    receiver = await startOtlpReceiver(otlpPort);
    expect(await polling).toMatchObject({ ok: true });
    expect(receiver.uids().length).toBeGreaterThan(0);
  } finally {
    await daemon.stop();
  }
  lines = raw.map((l) => JSON.parse(l) as Line);
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the daemon\'s log lines', () => {
  it('come from a run that did the work: cycles, a failing delivery, its recovery', () => {
    expect(lines.length).toBeGreaterThan(20);
    expect(lines.some((l) => l['msg'] === 'WAF event checkpoint loaded')).toBe(true);
    expect(lines.some((l) => l['msg'] === 'back-filled')).toBe(true);
    expect(lines.some((l) => l['level'] === 'debug')).toBe(true);
  });

  it('carry one message key: msg, never also message', () => {
    expect(lines.filter((l) => 'message' in l)).toEqual([]);
    expect(lines.filter((l) => typeof l['msg'] !== 'string')).toEqual([]);
  });

  it('carry each key once', () => {
    // The check itself: a repeat, also one nested, is seen, and a line that has none passes.
    expect(repeatedKeys('{"a":1,"b":{"c":2},"a":1}')).toHaveLength(1);
    expect(repeatedKeys('{"a":{"c":2,"c":2}}')).toHaveLength(1);
    expect(repeatedKeys('{"a":1,"b":{"a":1}}')).toEqual([]);
    const repeats = raw.flatMap((l) => (repeatedKeys(l).length > 0 ? [l.trim()] : []));
    expect(repeats).toEqual([]);
  });

  it('write every time as ISO 8601 with its offset', () => {
    expect(lines.flatMap((l, i) => badTimes(l, `line ${i} (${String(l['msg'])})`))).toEqual([]);
    // The WAF windows are told in the platform's zone (upstream.timezone), pino's time in UTC.
    const windows = lines.filter((l) => typeof l['msg'] === 'string' && l['msg'].startsWith('WAF event') && l['msg'].includes('window delivered'));
    expect(windows.length).toBeGreaterThan(0);
    for (const w of windows) {
      expect(w['from']).toMatch(/\+08:00$/);
      expect(w['to']).toMatch(/\+08:00$/);
    }
    expect(lines.every((l) => String(l['time']).endsWith('Z'))).toBe(true);
  });

  it('tell a delivery failure once, with what to do, and its end once, with the retries and how long', () => {
    const warnings = lines.filter((l) => l['level'] === 'warn');
    const delivery = warnings.filter((l) => String(l['msg']).startsWith('delivering WAF events failed'));
    expect(delivery).toHaveLength(1);
    expect(warnings.filter((l) => String(l['msg']).includes('OTLP'))).toEqual([]);
    const [warning] = delivery;
    expect(warning).toMatchObject({ code: 'EDGE_DELIVERY', endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1\/logs$/) as string, reason: 'ECONNREFUSED', attempt: 1 });
    for (const what of ['start an OpenTelemetry Collector', 'set otlp.endpoint', 'waf_events.enabled: false']) expect(warning?.['hint']).toContain(what);

    const failed = lines.filter((l) => String(l['msg']).startsWith('delivering WAF events failed')).length;
    expect(failed).toBeGreaterThanOrEqual(DOWN_FOR);
    const recovered = lines.filter((l) => l['retries'] !== undefined);
    expect(recovered).toHaveLength(1);
    expect(recovered[0]).toMatchObject({ level: 'info', retries: failed, durationSeconds: expect.any(Number) as number });
    expect(recovered[0]?.['durationSeconds']).toBeGreaterThan(0);
  });
});
