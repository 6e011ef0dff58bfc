// Records ingested later than the audit's look-back: an upstream whose log
// search ingests records up to 110 minutes late, audited with a 1h look-back.
// Their buckets are no longer read again, but they are not lost in silence:
// the missing gauge shows them while their counts still move, and each bucket
// ends `unreconciled` with both numbers in one warning, whose differences add
// up to exactly the events the simulator holds and the receiver never got.
import { describe, expect, it } from 'vitest';
import type { AuditOutcome } from '../../src/forwarder/audit.js';
import { denyIds, FakeSink, LastSamples, MIN, savedCheckpoint, useRig } from './fakes.js';

const LAG = 110 * MIN;
const LOOKBACK = 60 * MIN;
const rig = useRig({ wafIngestLagMs: LAG });

describe('the WAF delivery audit past its look-back', () => {
  it('reports the events it can no longer recover: the missing gauge, then one unreconciled warning per bucket, exactly', async () => {
    const sink = new FakeSink(50);
    const missing: Array<[number, number]> = [];
    const outcomes = new Map<AuditOutcome, number>();
    const f = rig.forwarder(sink, new LastSamples(), {
      startBackMs: 10 * MIN,
      audit: { lookbackMs: LOOKBACK, intervalMs: MIN, maxHashes: 1_000_000 },
      observer: {
        onAuditChecked: (state) => void missing.push([rig.sim.clock.now(), state.missing]),
        onAuditOutcome: (outcome, n) => void outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + n),
      },
    });
    const start = rig.sim.clock.now();
    let last = start;
    for (let i = 0; i < 210; i++) {
      last = rig.sim.clock.now();
      expect((await f.pollOnce()).ok).toBe(true);
      rig.sim.clock.advance(MIN);
    }
    const { originMs } = savedCheckpoint(rig.dir);
    // Past the look-back, events are still missing at every check: shown, not dropped.
    const late = missing.filter(([at]) => at > start + LOOKBACK + 20 * MIN && at < last - 20 * MIN);
    expect(late.length).toBeGreaterThan(60);
    expect(late.every(([, n]) => n > 0)).toBe(true);
    // Buckets that left the audit (older than twice the look-back): each lost event is in its bucket's last warning.
    const left = Math.floor((last - 2 * LOOKBACK) / MIN) * MIN - MIN;
    const warnings = new Map<string, number>();
    for (const l of rig.logs) {
      if (l.fields.outcome !== 'unreconciled') continue;
      warnings.set(String(l.fields.from), Number(l.fields.counted) - Number(l.fields.delivered));
    }
    const reported = [...warnings].filter(([from]) => Date.parse(from) < left).reduce((n, [, d]) => n + d, 0);
    const delivered = new Set(sink.uids());
    const lost = denyIds(rig.sim, Math.ceil(originMs / MIN) * MIN, left).filter((id) => !delivered.has(id));
    expect(lost.length).toBeGreaterThan(10);
    expect(reported).toBe(lost.length);
    expect(outcomes.get('unreconciled') ?? 0).toBeGreaterThan(0);
    expect(sink.uids().length).toBe(delivered.size);
  });
});
