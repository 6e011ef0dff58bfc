// The real daemon's waf-trend (1-minute interval) against an upstream whose
// logTread buckets are 5 minutes wide, under both readings of a range: the
// coarse bucket holding beginTime listed too, or only those beginning inside
// it. Under the second it used to count nothing after start-up and fail every
// cycle with EDGE_NO_DATA; now, on the simulator's pinned clock, every cycle
// succeeds, bucket_width is counted from the first answer, and after every
// cycle each counter equals the events of exactly the whole 5-minute buckets
// settled since the counters began (three of them and more). The same with a
// bucket listed only once complete: it used to advance its counters over
// zeros and never count a bucket.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastSettledStart } from '../../src/collectors/buckets.js';
import { seriesKey } from '../../src/collectors/series/keys.js';
import { SEVERITY_LABEL, WAF_EVENTS } from '../../src/collectors/waf-trend/metrics.js';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { lineSink } from '../support/capture.js';
import { MIN, T0, parseExposition, type Series } from './fault-rig.js';

const COARSE = 5 * MIN;
const DELAY = 3 * MIN;
const DENY = 417;

interface Rig {
  readonly sim: Simulator;
  readonly daemon: Daemon;
  readonly url: string;
  readonly log: string[];
  readonly stateDir: string;
}

const started: Rig[] = [];
afterEach(async () => {
  for (const rig of started.splice(0)) {
    await rig.daemon.stop();
    await rig.sim.close();
    await rm(rig.stateDir, { recursive: true, force: true });
  }
});

async function startRig(strict: boolean, completeOnly = false): Promise<Rig> {
  const sim = createSimulator({
    clock: { mode: 'fixed', start: T0 }, domains: 4, readings: { logTreadBucketMs: COARSE, logTreadStrictRange: strict, logTreadCompleteOnly: completeOnly },
  });
  const { url: apiUrl } = await sim.listen('127.0.0.1', 0);
  const stateDir = await mkdtemp(join(tmpdir(), 'edge-waf-coarse-'));
  const config = loadConfig({
    env: {},
    text: `
upstream: { api_url: ${JSON.stringify(apiUrl)}, token: sim-token, timeout: 2s, retry: { attempts: 1 } }
log: { level: warn }
collectors:
  defaults: { jitter: 0s, delay: ${DELAY / MIN}m }
  waf_trend: { interval: 1m }
${['access', 'usage', 'topn', 'cc_attack', 'inventory'].map((c) => `  ${c}: { enabled: false }`).join('\n')}
targets: { refresh: 1m }
server: { listen: "127.0.0.1:0" }
state_dir: ${JSON.stringify(stateDir)}
`,
  });
  const log: string[] = [];
  const daemon = new Daemon({
    config, logger: createLogger({ level: config.log.level, destination: lineSink(log) }), version: '0.0.0-test', clock: { now: () => sim.clock.now() }, schedules: false,
  });
  const rig: Rig = { sim, daemon, url: '', log, stateDir };
  started.push(rig);
  return { ...rig, url: await daemon.start() };
}

async function scrape(rig: Rig): Promise<Series> {
  const res = await fetch(`${rig.url}/metrics`, { signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

/** Every waf-trend counter, from the simulator's events of [from, to). */
function truth(rig: Rig, from: number, to: number): Series {
  const events = rig.sim.truth.wafEvents(from, to, { domains: rig.sim.truth.domains() });
  const out: Series = {};
  for (const action of ['deny', 'pass'] as const) {
    for (const [level, severity] of Object.entries(SEVERITY_LABEL)) {
      out[seriesKey(WAF_EVENTS.name, { action, severity })] = events
        .filter((e) => (e.record.response.httpCode === DENY) === (action === 'deny') && e.record.severityLevel === level).length;
    }
  }
  return out;
}

/** 20 cycles a simulated minute apart from T0: each one ok and waf-trend up, then `check` on its scrape. */
async function cycles(rig: Rig, check: (m: Series, k: number) => void): Promise<void> {
  const up = seriesKey('edge_exporter_collector_up', { collector: 'waf-trend' });
  for (let k = 0; k < 20; k++) {
    if (k > 0) rig.sim.clock.advance(MIN);
    const [report] = await rig.daemon.runOnce();
    expect(report, `cycle ${k}`).toMatchObject({ collector: 'waf-trend', ok: true, partialErrors: 0 });
    const m = await scrape(rig);
    expect(m[up], `cycle ${k}`).toBe(1);
    check(m, k);
  }
}

const counters = (m: Series): Series => Object.fromEntries(Object.entries(m).filter(([k]) => k.startsWith(`${WAF_EVENTS.name}{`)));

describe('waf-trend against 5-minute logTread buckets, through the daemon', () => {
  it.each([
    ['the bucket holding beginTime listed too', false],
    ['only buckets beginning inside the range listed', true],
  ])('%s: every whole bucket counted exactly once, bucket_width from the first answer, never EDGE_NO_DATA', async (_name, strict) => {
    const rig = await startRig(strict);
    const bucketWidth = seriesKey('edge_exporter_contract_mismatches_total', { check: 'bucket_width' });
    // T0 is 12:00 (UTC+8): the counters start after 11:56, inside the 11:55 bucket, which is not theirs; the first one counted is 12:00.
    await cycles(rig, (m, k) => {
      // The first cycle only starts the counters; the second asks, and its answer shows the 5-minute buckets.
      if (k === 0) expect(m[bucketWidth]).toBe(0);
      else expect(m[bucketWidth], `cycle ${k}`).toBeGreaterThan(0);
      // Counted: every 5-minute bucket from 12:00 that has wholly settled (its last minute ended `delay` ago).
      const settledEnd = lastSettledStart(rig.sim.clock.now(), '1m', DELAY, 480) + MIN;
      const countedTo = Math.max(T0, Math.floor(settledEnd / COARSE) * COARSE);
      expect(counters(m), `cycle ${k}`).toEqual(truth(rig, T0, countedTo));
    });
    expect(rig.sim.clock.now()).toBe(T0 + 19 * MIN);
    // Three whole 5-minute buckets: 12:00, 12:05 and 12:10, with events in them.
    expect(Object.values(truth(rig, T0, T0 + 3 * COARSE)).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    const last = await scrape(rig);
    expect(counters(last)).toEqual(truth(rig, T0, T0 + 3 * COARSE));
    // The audit (every 15m by default, at 12:15) re-read the minutes counted since 11:57, up to 12:09: 13 per series, none revised.
    const audit = (outcome: string) => last[seriesKey('edge_exporter_audit_buckets_total', { collector: 'waf-trend', outcome })];
    expect([audit('match'), audit('revised')]).toEqual([13 * 6, 0]);
    expect(rig.log.filter((l) => l.includes('EDGE_NO_DATA') || l.includes('covered none'))).toEqual([]);
  });

  it('listed only once complete and only when beginning inside the range: up every cycle, in step, each bucket counted at its end + delay', async () => {
    const rig = await startRig(true, true);
    const clockOffset = seriesKey('edge_exporter_contract_mismatches_total', { check: 'clock_offset' });
    // The in-progress bucket is absent: the first answers list nothing (12:00 completes at 12:05), which is waiting, not no data.
    await cycles(rig, (m, k) => {
      expect(m[clockOffset] ?? 0, `cycle ${k}`).toBe(0);
      // 12:00 counted at 12:08 (its end + delay), 12:05 at 12:13, 12:10 at 12:18.
      const countedTo = Math.max(T0, Math.floor((rig.sim.clock.now() - DELAY) / COARSE) * COARSE);
      expect(counters(m), `cycle ${k}`).toEqual(truth(rig, T0, countedTo));
    });
    expect(Object.values(truth(rig, T0, T0 + 3 * COARSE)).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(rig.log.filter((l) => l.includes('EDGE_NO_DATA') || l.includes('covered none'))).toEqual([]);
  });
});
