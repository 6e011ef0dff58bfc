// The delivery audit against the simulator's truth: an upstream whose log
// search ingests records up to 20 minutes late, read with the default delay
// (2m) and overlap (5m), so the final pass misses many. The audit finds their
// buckets short by the upstream's logTread counts and reads them again:
// every deny event of the run reaches the receiver exactly once, the
// recovered ones are counted and timed, and nothing is left missing. Without
// the audit the same run loses events (the first case shows the test can fail).
import { describe, expect, it } from 'vitest';
import type { AuditOutcome } from '../../../src/collectors/waf-events/audit.js';
import type { WafEventsObserver } from '../../../src/collectors/waf-events/metrics.js';
import { denyIds, FakeSink, LastSamples, MIN, S, savedCheckpoint, T0, useRig } from './fakes.js';

const LAG = 20 * MIN;
const INTERVAL = 30 * S;
const rig = useRig({ wafIngestLagMs: LAG });
const AUDIT = { lookbackMs: 60 * MIN, intervalMs: MIN, maxHashes: 1_000_000 };

interface Tally extends WafEventsObserver {
  recovered: number[];
  outcomes: Map<AuditOutcome, number>;
  missing: number[];
}

function tally(): Tally {
  const t: Tally = {
    recovered: [],
    outcomes: new Map(),
    missing: [],
    onRecovered: (late) => void t.recovered.push(...late),
    onAuditOutcome: (outcome, n) => void t.outcomes.set(outcome, (t.outcomes.get(outcome) ?? 0) + n),
    onAuditChecked: ({ missing }) => void t.missing.push(missing),
  };
  return t;
}

/** Polls for `minutes` of simulated time; returns the time of the last poll. */
async function run(poll: () => Promise<{ ok: boolean }>, minutes: number): Promise<number> {
  let last = 0;
  for (let i = 0; i < (minutes * MIN) / INTERVAL; i++) {
    last = rig.sim.clock.now();
    expect((await poll()).ok).toBe(true);
    rig.sim.clock.advance(INTERVAL);
  }
  return last;
}

describe('the WAF delivery audit', () => {
  it('without it, records ingested past delay + overlap are lost (what the audit is for)', async () => {
    const sink = new FakeSink(50);
    const f = rig.forwarder(sink, new LastSamples(), { startBackMs: 10 * MIN });
    const last = await run(() => f.pollOnce(), 60);
    const { originMs } = savedCheckpoint(rig.dir);
    const delivered = new Set(sink.uids());
    // Everything before this was ingested long before the last poll.
    const lost = denyIds(rig.sim, originMs, last - LAG - 10 * MIN).filter((id) => !delivered.has(id));
    expect(lost.length).toBeGreaterThan(10);
  });

  it('recovers every late record once: all deny events of the run delivered, the late ones counted and timed, none missing', async () => {
    const sink = new FakeSink(50);
    const seen = tally();
    const f = rig.forwarder(sink, new LastSamples(), { startBackMs: 10 * MIN, audit: AUDIT, observer: seen });
    const last = await run(() => f.pollOnce(), 60);
    const { originMs } = savedCheckpoint(rig.dir);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    const delivered = new Set(uids);
    // Every event ingested in time for an audit to see it: its lag (at most LAG) and the final pass (delay + overlap) past its minute, and a check.
    const settled = Math.floor((last - LAG - 9 * MIN) / MIN) * MIN;
    const expected = denyIds(rig.sim, originMs, settled);
    expect(expected.length).toBeGreaterThan(100);
    expect(expected.filter((id) => !delivered.has(id))).toEqual([]);
    // Nothing delivered that the upstream does not hold.
    const all = new Set(denyIds(rig.sim, originMs, last));
    expect(uids.filter((id) => !all.has(id))).toEqual([]);
    // The recovered ones are the events the windows missed: delivered, not read by a window's pass.
    const byWindows = rig.logs.filter((l) => l.msg?.startsWith('WAF event') && typeof l.fields.delivered === 'number')
      .reduce((n, l) => n + Number(l.fields.delivered), 0);
    expect(seen.recovered.length).toBe(uids.length - byWindows);
    expect(seen.recovered.length).toBeGreaterThan(10);
    // Each was late past the final pass (delay + overlap: 7 min) and no later than the lag, a check and a bucket.
    expect(Math.min(...seen.recovered)).toBeGreaterThan(7 * 60);
    expect(Math.max(...seen.recovered)).toBeLessThanOrEqual((LAG + 3 * MIN) / S);
    expect(seen.outcomes.get('short') ?? 0).toBeGreaterThan(0);
    expect(seen.missing.at(-1)).toBe(0);
    expect(f.stats().audit?.recoveredEvents).toBe(seen.recovered.length);
  });
});
