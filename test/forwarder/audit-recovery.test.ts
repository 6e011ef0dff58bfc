// The delivery audit against the simulator's truth: an upstream whose log
// search ingests records up to 20 minutes late, read with the default delay
// (2m) and overlap (5m), so the final pass misses many. The audit finds their
// buckets short by the upstream's logTread counts and reads them again:
// every deny event of the run reaches the receiver exactly once, the
// recovered ones are counted and timed, and nothing is left missing. Without
// the audit the same run loses events (the first case shows the test can fail).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditOutcome } from '../../src/forwarder/audit.js';
import type { WafEventsObserver } from '../../src/forwarder/metrics.js';
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

describe('the WAF delivery audit past max_kept_ids (a flood)', () => {
  it('gives up the oldest minutes\' ids in memory, reads them from their files in a recovery: still every event once', async () => {
    const sink = new FakeSink(50);
    let resent = 0;
    const seen = tally();
    seen.onResent = (n) => void (resent += n);
    // Room in memory for a few minutes' ids only.
    const f = rig.forwarder(sink, new LastSamples(), { startBackMs: 10 * MIN, audit: { ...AUDIT, maxHashes: 30 }, observer: seen });
    const last = await run(() => f.pollOnce(), 60);
    const { originMs } = savedCheckpoint(rig.dir);
    const uids = sink.uids();
    const unique = new Set(uids);
    const settled = Math.floor((last - LAG - 9 * MIN) / MIN) * MIN;
    expect(denyIds(rig.sim, originMs, settled).filter((id) => !unique.has(id))).toEqual([]);
    expect(uids.length).toBe(unique.size);
    expect(resent).toBe(0);
    expect(seen.recovered.length).toBeGreaterThan(10);
    expect(f.stats().audit?.idsKept).toBeLessThanOrEqual(30);
    expect(seen.missing.at(-1)).toBe(0);
  });

  it('without its files (a power loss took them), a recovery sends the minute\'s records again with their uids, each repeat counted', async () => {
    const sink = new FakeSink(50);
    let resent = 0;
    const seen = tally();
    seen.onResent = (n) => void (resent += n);
    const f = rig.forwarder(sink, new LastSamples(), { startBackMs: 10 * MIN, audit: { ...AUDIT, maxHashes: 30 }, observer: seen });
    const files = join(rig.dir, 'waf-events-delivered');
    // The files go after every poll: whatever left memory cannot be told apart any more.
    const last = await run(async () => {
      const report = await f.pollOnce();
      rmSync(files, { recursive: true, force: true });
      return report;
    }, 60);
    const { originMs } = savedCheckpoint(rig.dir);
    const uids = sink.uids();
    const unique = new Set(uids);
    const settled = Math.floor((last - LAG - 9 * MIN) / MIN) * MIN;
    // Nothing lost; the only repeats are the ones counted, and the audit counts each event once all the same.
    expect(denyIds(rig.sim, originMs, settled).filter((id) => !unique.has(id))).toEqual([]);
    expect(resent).toBeGreaterThan(0);
    expect(uids.length - unique.size).toBe(resent);
    expect(seen.missing.at(-1)).toBe(0);
    expect(seen.outcomes.get('surplus') ?? 0).toBe(0);
  });
});

describe('the WAF delivery audit under over_rate: summarize', () => {
  it('counts folded events as delivered, and folds the events it recovers: each deny event once, as a record or in a summary', async () => {
    const sink = new FakeSink(50);
    const seen = tally();
    const f = rig.forwarder(sink, new LastSamples(), {
      startBackMs: 10 * MIN, audit: AUDIT, observer: seen, volume: { maxRate: 0.02, overRate: 'summarize' },
    });
    const last = await run(() => f.pollOnce(), 60);
    const { originMs } = savedCheckpoint(rig.dir);
    const from = Math.ceil(originMs / MIN) * MIN;
    const to = Math.floor((last - LAG - 9 * MIN) / MIN) * MIN;
    const key = (minute: number, host: unknown, rule: unknown, client: unknown): string => `${minute}|${String(host)}|${String(rule)}|${String(client)}`;
    const truth = new Map<string, number>();
    for (const e of rig.sim.truth.wafEvents(from, to)) {
      if (e.record.response.httpCode !== 417) continue;
      const k = key(Math.floor(e.time / MIN), e.record.request.headers.host, e.record.rules[0]?.ruleId, e.record.clientIp);
      truth.set(k, (truth.get(k) ?? 0) + 1);
    }
    const got = new Map<string, number>();
    let summaries = 0;
    for (const e of sink.events()) {
      if (e.timestampMs < from || e.timestampMs >= to) continue;
      const a = e.attributes;
      const count = a['edge.waf.count'];
      if (typeof count === 'number') summaries++;
      const k = key(Math.floor(e.timestampMs / MIN), a['server.address'], a['security_rule.uuid'], a['client.address']);
      got.set(k, (got.get(k) ?? 0) + (typeof count === 'number' ? count : 1));
    }
    expect(got).toEqual(truth);
    expect(summaries).toBeGreaterThan(0);
    // Recovered records were folded too (a recovery adds no budget): none ingested past the final pass (and after the
    // first poll, whose backlog read what was in by then) went one by one.
    const pastFinal = new Set(rig.sim.truth.wafEvents(from, to)
      .filter((e) => {
        const { visibleFrom } = rig.sim.truth.wafVisibility(e);
        return e.record.response.httpCode === 417 && visibleFrom > e.time + 9 * MIN && visibleFrom > T0;
      })
      .map((e) => e.record.requestId));
    expect(pastFinal.size).toBeGreaterThan(10);
    expect(sink.uids().filter((uid) => pastFinal.has(uid))).toEqual([]);
    // And the audit counted them all.
    expect(seen.recovered.length).toBeGreaterThan(10);
    expect(seen.missing.at(-1)).toBe(0);
    expect(seen.outcomes.get('surplus') ?? 0).toBe(0);
  });
});

describe('a delivery audit check that fails', () => {
  it('is logged and tried again an interval later; the poll and its deliveries stand', async () => {
    const sink = new FakeSink(50);
    let trend = 0;
    const client = {
      describeLogV2: (req: Parameters<typeof rig.client.describeLogV2>[0], opts?: { signal?: AbortSignal }) => {
        if (req.action[0]?.metricName !== 'logTread') return rig.client.describeLogV2(req, opts);
        trend++;
        return Promise.reject(new Error('logTread refused'));
      },
    };
    const f = rig.forwarder(sink, new LastSamples(), { client, startBackMs: 10 * MIN, audit: AUDIT });
    // Six polls 30 s apart: three minutes, so three checks (one per minute), each failing.
    for (let i = 0; i < 6; i++) {
      expect((await f.pollOnce()).ok).toBe(true);
      rig.sim.clock.advance(INTERVAL);
    }
    expect(trend).toBe(3);
    expect(rig.logs.filter((l) => l.level === 'warn' && String(l.msg).startsWith('WAF delivery audit check')).length).toBe(3);
    expect(sink.uids().length).toBeGreaterThan(0);
    expect(f.stats().audit?.checkedMs).toBeUndefined();
  });
});
