// waf_events.max_rate and over_rate, end to end against the simulator's truth:
// every deny event is either forwarded once or counted in exactly one summary
// record, the denied counter counts every one, and a restart in the middle
// of a window's summaries (the process gone before a batch reached the
// receiver) neither doubles nor loses one. With delay, every event goes, later.
import { describe, expect, it } from 'vitest';
import type { ReadClient, WafLogRecord } from '../../src/api/index.js';
import type { LogEvent } from '../../src/forwarder/log-sink.js';
import { nodeStateFs, type StateFs } from '../../src/state/store.js';
import { counterMap, cursorOf, DENY, expectedCounters, FakeSink, LastSamples, MIN, polls, S, T0, useRig } from './fakes.js';

const rig = useRig();
const ORIGIN = T0 - 60 * MIN;
const isSummary = (e: LogEvent): boolean => e.eventName === 'edge.waf.deny_summary';
// The simulator denies about 160 requests an hour on 6 domains: 1 per minute forwarded leaves many to fold.
const VOLUME = { volume: { maxRate: 1 / 60, overRate: 'summarize' as const } };

/** minute|domain|rule|client of an instant and its attributes. */
const keyOf = (atMs: number, domain: unknown, rule: unknown, client: unknown): string => `${Math.floor(atMs / MIN) * MIN}|${String(domain)}|${String(rule)}|${String(client)}`;

/** What the receiver has: per key, events forwarded plus events counted in summaries; and every uid, repeats kept. */
function received(events: readonly LogEvent[]): { perKey: Map<string, number>; uids: string[]; summarized: number; forwarded: number } {
  const perKey = new Map<string, number>();
  let summarized = 0;
  let forwarded = 0;
  for (const e of events) {
    const a = e.attributes;
    const count = isSummary(e) ? Number(a['edge.waf.count']) : 1;
    if (isSummary(e)) {
      summarized += count;
      // A summary's events all fall in its minute.
      expect(Math.floor(Date.parse(String(a['edge.waf.last_time'])) / MIN)).toBe(Math.floor(e.timestampMs / MIN));
    } else forwarded += 1;
    const key = keyOf(e.timestampMs, a['server.address'], a['security_rule.uuid'], a['client.address']);
    perKey.set(key, (perKey.get(key) ?? 0) + count);
  }
  return { perKey, uids: events.map((e) => e.uid), summarized, forwarded };
}

/** The simulator's deny events in [from, to), per key. */
function truth(from: number, to: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const { record, time } of rig.sim.truth.wafEvents(from, to)) {
    if (record.response.httpCode !== DENY) continue;
    const key = keyOf(time, record.request.headers['host'], record.rules[0]?.ruleId, record.clientIp);
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

describe('WafEventForwarder with over_rate: summarize', () => {
  it('forwards max_rate per second of each window and folds the rest; every deny event once, the counters all of them', async () => {
    const sink = new FakeSink(8);
    const samples = new LastSamples();
    const f = rig.forwarder(sink, samples, VOLUME);
    await polls(f, rig.sim, 6, 30 * S);
    const cursor = cursorOf(rig.dir);
    const got = received(sink.events());
    const expected = truth(ORIGIN, cursor);
    const total = [...expected.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(100);
    expect(got.perKey).toEqual(expected);
    expect(new Set(got.uids).size).toBe(got.uids.length);
    expect(got.forwarded + got.summarized).toBe(total);
    // The first window is the hour before (plus 2 polls): about 60 forwarded, the rest folded.
    expect(got.forwarded).toBeLessThanOrEqual(Math.floor((cursor - ORIGIN) / MIN) + 6);
    expect(got.summarized).toBeGreaterThan(0);
    expect(f.stats()).toMatchObject({ forwarded: got.forwarded, summarized: got.summarized });
    expect(counterMap(samples.counters)).toEqual(expectedCounters(rig.sim, ORIGIN, cursor));
  });

  it.each([0, 1, 4])('a restart before the summary batch after %i confirmed ones: each event still once', async (confirmedSummaryBatches) => {
    const sink = new FakeSink(8);
    let summaryBatches = 0;
    let crashed = false;
    const first = rig.forwarder(sink, new LastSamples(), VOLUME);
    // The process dies just before this batch reaches the receiver: nothing of it is confirmed, nothing saved after.
    sink.onAttempt = (batch) => {
      if (crashed || !batch.some(isSummary)) return;
      if (summaryBatches === confirmedSummaryBatches) {
        crashed = true;
        sink.failures = Number.MAX_SAFE_INTEGER;
        void first.stop();
      } else summaryBatches++;
    };
    const report = await first.pollOnce();
    expect(crashed).toBe(true);
    expect(report.ok).toBe(false);
    await first.stop();
    sink.failures = 0;
    sink.onAttempt = () => undefined;

    const samples = new LastSamples();
    const second = rig.forwarder(sink, samples, VOLUME);
    await polls(second, rig.sim, 3, 30 * S);
    const cursor = cursorOf(rig.dir);
    const got = received(sink.events());
    expect(got.perKey).toEqual(truth(ORIGIN, cursor));
    expect(new Set(got.uids).size).toBe(got.uids.length);
    expect(counterMap(samples.counters)).toEqual(expectedCounters(rig.sim, ORIGIN, cursor));
    expect(second.stats().summarized).toBeGreaterThan(0);
  });
});

describe('WafEventForwarder with over_rate: summarize, pages that shift while a window is read', () => {
  it('a folded record a later page returns again is not folded twice', async () => {
    // Every page after the first starts with the last 3 records of the one before, as records ingested while paging push the rest down.
    let previous: readonly WafLogRecord[] = [];
    const shifting: Pick<ReadClient, 'describeLogV2'> = {
      async describeLogV2(req, options) {
        const answer = await rig.client.describeLogV2(req, options);
        const page = answer.data.find((d) => d.metricName === 'logs')?.list ?? [];
        const pushedDown = (req.action[0]?.pageNo ?? 1) > 1 ? previous.slice(-3) : [];
        previous = page;
        return { ...answer, data: [{ metricName: 'logs', list: [...pushedDown, ...page], objectArrayList: [] }] };
      },
    };
    const sink = new FakeSink(4);
    const samples = new LastSamples();
    // A rate that forwards nothing one by one: every record is folded.
    const f = rig.forwarder(sink, samples, { client: shifting, volume: { maxRate: 1e-6, overRate: 'summarize' } });
    await polls(f, rig.sim, 1, 30 * S);
    const cursor = cursorOf(rig.dir);
    const got = received(sink.events());
    expect(got.forwarded).toBe(0);
    expect(got.perKey).toEqual(truth(ORIGIN, cursor));
    expect(f.stats().deduplicated).toBeGreaterThan(0);
    expect(counterMap(samples.counters)).toEqual(expectedCounters(rig.sim, ORIGIN, cursor));
  });
});

describe('WafEventForwarder with over_rate: summarize, killed between a confirmed summary batch and its save', () => {
  it.each([0, 2])('after %i saved summary batches: the batch is sent again with the same uids and counts, so a backend dropping repeated uids holds each event once', async (savedSummaryBatches) => {
    const sink = new FakeSink(8);
    let summaryBatches = 0;
    let dead = false;
    // The receiver confirms; from the (n+1)th summary batch on, the process is gone before its save reaches the disk.
    sink.onAttempt = (batch) => {
      if (batch.some(isSummary) && summaryBatches++ === savedSummaryBatches) armed = true;
    };
    let armed = false;
    const kill = (): Error => {
      dead = true;
      return Object.assign(new Error('process killed'), { code: 'EIO' });
    };
    const dying: StateFs = {
      ...nodeStateFs,
      async rename(from, to) {
        if (armed) throw kill();
        await nodeStateFs.rename(from, to);
      },
      async appendSynced(path, data) {
        if (armed) throw kill();
        await nodeStateFs.appendSynced(path, data);
      },
    };
    const first = rig.forwarder(sink, new LastSamples(), VOLUME, { fs: dying });
    expect((await first.pollOnce()).ok).toBe(false);
    expect(dead).toBe(true);
    await first.stop();
    const lost = sink.batches.at(-1) ?? [];
    expect(lost.every(isSummary)).toBe(true);

    const samples = new LastSamples();
    const second = rig.forwarder(sink, samples, VOLUME);
    await polls(second, rig.sim, 3, 30 * S);
    const cursor = cursorOf(rig.dir);
    // The batch whose save was lost came again, identical: same uids, same content.
    const resent = sink.events().filter((e) => lost.some((l) => l.uid === e.uid));
    expect(resent).toHaveLength(2 * lost.length);
    for (const e of lost) expect(resent.filter((r) => r.uid === e.uid).map((r) => r.attributes)).toEqual([e.attributes, e.attributes]);
    // As a backend that drops a repeated log.record.uid holds them: each deny event once.
    const kept = [...new Map(sink.events().map((e) => [e.uid, e])).values()];
    expect(received(kept).perKey).toEqual(truth(ORIGIN, cursor));
    expect(counterMap(samples.counters)).toEqual(expectedCounters(rig.sim, ORIGIN, cursor));
  });
});

describe('WafEventForwarder with over_rate: delay', () => {
  it('forwards every deny event, paced: the batches after the first wait their turn at max_rate', async () => {
    const sink = new FakeSink(8);
    const samples = new LastSamples();
    const rate = 4000;
    const f = rig.forwarder(sink, samples, { volume: { maxRate: rate, overRate: 'delay' } });
    const started = performance.now();
    await polls(f, rig.sim, 1, 30 * S);
    const elapsedMs = performance.now() - started;
    const cursor = cursorOf(rig.dir);
    const got = received(sink.events());
    expect(got.summarized).toBe(0);
    expect(got.perKey).toEqual(truth(ORIGIN, cursor));
    expect(new Set(got.uids).size).toBe(got.uids.length);
    // A lower bound only: every batch but the first waited batch / rate.
    expect(elapsedMs).toBeGreaterThanOrEqual(((got.forwarded - 8) * 1000) / rate - 1);
    expect(counterMap(samples.counters)).toEqual(expectedCounters(rig.sim, ORIGIN, cursor));
  });
});
