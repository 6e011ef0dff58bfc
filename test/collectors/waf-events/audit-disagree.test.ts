// An upstream whose logTread counts never agree with its records (the
// logTreadCountDelta reading: every non-empty bucket counts one more than the
// records it holds). The audit finds each such bucket short, reads it again
// once, finds nothing new, and does not read it again while its count holds:
// the requests the forwarder sent (seen at the client) show no loop. Once
// older than the look-back and held still, each ends unreconciled, reported
// once with both numbers; nothing is delivered twice.
import { describe, expect, it } from 'vitest';
import type { DescribeLogV2Request } from '../../../src/api/index.js';
import type { AuditOutcome } from '../../../src/collectors/waf-events/audit.js';
import { denyIds, FakeSink, LastSamples, MIN, savedCheckpoint, useRig } from './fakes.js';

const rig = useRig({ readings: { logTreadCountDelta: 1 } });

describe('the WAF delivery audit when counts and records never agree', () => {
  it('reads each short bucket again once, then reports it unreconciled once: no loop', async () => {
    const sink = new FakeSink(50);
    const asked: DescribeLogV2Request[] = [];
    const client = { describeLogV2: (req: DescribeLogV2Request, opts?: { signal?: AbortSignal }) => {
      asked.push(req);
      return rig.client.describeLogV2(req, opts);
    } };
    const outcomes = new Map<AuditOutcome, number>();
    const f = rig.forwarder(sink, new LastSamples(), {
      client,
      startBackMs: 10 * MIN,
      audit: { lookbackMs: 20 * MIN, intervalMs: MIN, maxHashes: 100_000 },
      observer: { onAuditOutcome: (outcome, n) => void outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + n) },
    });
    // Polled every 50 s, so no window is one whole minute: those reads are the audit's.
    for (let i = 0; i < 110; i++) {
      expect((await f.pollOnce()).ok).toBe(true);
      rig.sim.clock.advance(50_000);
    }
    const tz = rig.sim.tz;
    // Recovery reads: `logs` over exactly one whole minute (the audit's buckets here), page 1.
    const reads = new Map<string, number>();
    for (const req of asked) {
      const [action] = req.action;
      if (action?.metricName !== 'logs' || action.pageNo !== 1) continue;
      const begin = tz.parseDateTime(req.params.beginTime);
      const end = tz.parseDateTime(req.params.endTime);
      if (end - begin !== MIN || begin % MIN !== 0) continue;
      reads.set(req.params.beginTime, (reads.get(req.params.beginTime) ?? 0) + 1);
    }
    expect(reads.size).toBeGreaterThan(20);
    expect(Math.max(...reads.values())).toBe(1);
    // Every minute with a deny record was read again once (its count was one more), and ended unreconciled once.
    const { originMs } = savedCheckpoint(rig.dir);
    const unreconciled = rig.logs.filter((l) => l.fields.outcome === 'unreconciled');
    expect(new Set(unreconciled.map((l) => l.fields.from)).size).toBe(unreconciled.length);
    expect(unreconciled.length).toBe(outcomes.get('unreconciled'));
    expect(unreconciled.every((l) => Number(l.fields.counted) === Number(l.fields.delivered) + 1)).toBe(true);
    // Those are the minutes with a deny record, from the first whole one forwarded to the last one final.
    const finalBuckets = unreconciled.map((l) => Date.parse(String(l.fields.from))).sort((a, b) => a - b);
    const last = finalBuckets.at(-1) ?? 0;
    const withDenies: number[] = [];
    for (let m = Math.ceil(originMs / MIN) * MIN; m <= last; m += MIN) if (denyIds(rig.sim, m, m + MIN).length > 0) withDenies.push(m);
    expect(finalBuckets).toEqual(withDenies);
    for (const from of finalBuckets) expect(reads.get(tz.formatDateTime(from))).toBe(1);
    expect(outcomes.get('recovered') ?? 0).toBe(0);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
  });
});
