// The request budget and the answer to throttling, with a real Daemon against
// the simulator's request budget, measured on what the simulator received
// (arrival times it recorded): never more than upstream.rate_limit in any one
// or ten seconds; after a 429 with Retry-After nothing reaches the upstream
// until then, the rate in force drops, and once the throttling is over every
// counter equals the simulator's truth.
import { describe, expect, it } from 'vitest';
import { seriesKey } from '../../src/collectors/series/keys.js';
import type { ReceivedRequest } from '../../src/simulator/budget.js';
import { MIN, expectRecovered, useRigs } from './fault-rig.js';

const rigs = useRigs();

const THROTTLED = 'edge_exporter_upstream_throttled_total';
const RATE = seriesKey('edge_exporter_upstream_rate_limit_per_second', {});

/** The most arrivals in any window of `ms` starting at an arrival. */
function mostInWindow(received: readonly ReceivedRequest[], ms: number): number {
  const at = received.map((r) => r.at).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (j < at.length && (at[j] ?? Infinity) < (at[i] ?? 0) + ms) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

describe('request budget', () => {
  it('never sends more than upstream.rate_limit in any 1 s or 10 s window, and the upstream refuses nothing', async () => {
    const rig = await rigs({ domains: 70, upstream: ['rate_limit: 15'] });
    // The simulator plays an account whose limit is exactly the budget: any excess would be refused.
    rig.sim.budget.set({ perSecond: 15 });
    await rig.cycle();
    await rig.cycle(MIN);
    const received = rig.sim.budget.received();
    // Enough load to measure ten-second windows: over 10 s of requests at the budget.
    expect(received.length).toBeGreaterThan(160);
    expect(mostInWindow(received, 1000)).toBeLessThanOrEqual(15);
    expect(mostInWindow(received, 10_000)).toBeLessThanOrEqual(150);
    expect(received.filter((r) => r.refused)).toEqual([]);
    const m = await rig.scrape();
    expect(m[RATE]).toBe(15);
    expect(Object.keys(m).filter((k) => k.startsWith(THROTTLED))).toEqual([]);
  }, 60_000);
});

describe('throttled by the upstream', () => {
  it('waits out Retry-After on every request, lowers its rate, and counts exactly what was refused; the data catches up exactly', async () => {
    // One request in flight at a time: anything that reaches the upstream after a 429 was sent after the daemon read it.
    const rig = await rigs({ domains: 6, upstream: ['concurrency: 1'], retryAttempts: 4 });
    // 10/s: the daemon's first burst (about 11 requests in under 0.2 s here) still meets a 429, and the rate
    // it falls back to (half of what it was sending) and recovers from is higher: the test
    // took 23 s at 4/s, most of it waiting at the lowered rate.
    rig.sim.budget.set({ perSecond: 10, retryAfterSeconds: 2 });
    await rig.cycle();
    await rig.cycle(MIN);
    const received = rig.sim.budget.received();
    const refusals = received.filter((r) => r.refused);
    expect(refusals.length).toBeGreaterThan(0);
    for (const refusal of refusals) {
      const early = received.filter((r) => r.at > refusal.at && r.at < refusal.at + (refusal.retryAfterMs ?? 0));
      expect(early, `requests within Retry-After of the 429 at ${refusal.at}`).toEqual([]);
    }
    const m = await rig.scrape();
    // The daemon had no budget of its own (+Inf); the 429s set one.
    expect(m[RATE]).toBeLessThan(Number.POSITIVE_INFINITY);
    const truth: Record<string, number> = {};
    for (const r of refusals) truth[seriesKey(THROTTLED, { operation: r.operation })] = (truth[seriesKey(THROTTLED, { operation: r.operation })] ?? 0) + 1;
    expect(Object.fromEntries(Object.entries(m).filter(([k]) => k.startsWith(THROTTLED)))).toEqual(truth);
    expect(rig.log.filter((line) => line.includes('upstream throttling started'))).toHaveLength(1);
    // The status page says so while it lasts: until the rate is back at its target (logged as the end).
    const ended = rig.log.some((line) => line.includes('upstream throttling ended'));
    const page = await rig.landing();
    expect(page.includes('upstream: throttled since '), page).toBe(!ended);
    if (!ended) expect(page).toMatch(/\(HTTP 429 from http:\/\/127\.0\.0\.1:\d+\)/);

    // The budget lifted: every counter is the truth, the throttled minutes back-filled.
    rig.sim.budget.set(undefined);
    await expectRecovered(rig);
  }, 90_000);
});
