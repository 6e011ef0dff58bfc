// What one window may hold and what one poll may read, against the
// simulator's truth: a window holding more than maxWindowEvents new events is
// read again shorter, so the ids kept for de-duplication stay bounded by the
// cap and the overlap (each event still forwarded once and counted once); a
// poll whose reading is slower than the events it reads still ends; a
// backlog is read once; and caught up, each range is read twice (new, then
// its final pass), not once per poll of the overlap.
import { describe, expect, it } from 'vitest';
import type { DescribeLogV2Request } from '../../src/api/index.js';
import { counterMap, cursorOf, denyIds, expectedCounters, FakeSink, LastSamples, MIN, polls, S, savedCheckpoint, T0, useRig } from './fakes.js';

// 120 domains: about 60 deny events a minute, some 3,500 in the hour of backlog.
const rig = useRig({ domains: 120 });
const ORIGIN = T0 - 60 * MIN;
const CAP = 150;
const PAGE = 50;
const CUT = 'WAF event window held more than waf_events.max_window_events new events: read again shorter';

/** One poll over the backlog; the most ids the saved checkpoint held before any batch. */
async function catchUp(maxWindowEvents?: number): Promise<{ sink: FakeSink; samples: LastSamples; mostIds: number }> {
  const sink = new FakeSink(50);
  const samples = new LastSamples();
  let mostIds = 0;
  sink.onAttempt = () => void (mostIds = Math.max(mostIds, savedCheckpoint(rig.dir).delivered.length));
  const f = rig.forwarder(sink, samples, { query: { pageSize: PAGE }, ...(maxWindowEvents === undefined ? {} : { maxWindowEvents }) });
  const report = await f.pollOnce();
  expect(report.ok).toBe(true);
  mostIds = Math.max(mostIds, savedCheckpoint(rig.dir).delivered.length);
  return { sink, samples, mostIds };
}

/** Ids the checkpoint may hold with the cap: three windows at the cap (a page more at worst): the last one, the one
 * being read and a cut one. A backlog's windows are final as they are read: no overlap's ids are kept behind them. */
function bound(): number {
  return 3 * (CAP + PAGE);
}

describe('WafEventForwarder window bounds', () => {
  it('cuts a window holding more than maxWindowEvents new events and reads it again shorter: every event once, ids kept bounded', async () => {
    const { sink, samples, mostIds } = await catchUp(CAP);
    // Caught up to delay + overlap before now at least; past it only while fewer than the cap of ids are kept
    // (nextWindow): the overlap holds some 300 events here, more than the cap, so the rest waits to be final at once.
    const cursor = cursorOf(rig.dir);
    expect(cursor).toBeGreaterThan(T0 - 7 * MIN - 15 * S);
    expect(cursor).toBeLessThan(T0 - 2 * MIN);
    const expected = denyIds(rig.sim, ORIGIN, cursor);
    expect(expected.length).toBeGreaterThan(15 * CAP);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    expect(new Set(uids)).toEqual(new Set(expected));
    expect(counterMap(samples.counters)).toEqual(expectedCounters(rig.sim, ORIGIN, cursor));
    expect(rig.logs.filter((l) => l.msg === CUT).length).toBeGreaterThan(0);
    expect(mostIds).toBeLessThanOrEqual(bound());
  });

  it('with more events in the overlap than the cap keeps ids, windows wait until final at once: every event once, later', async () => {
    const sink = new FakeSink(50);
    const samples = new LastSamples();
    let mostIds = 0;
    sink.onAttempt = () => void (mostIds = Math.max(mostIds, savedCheckpoint(rig.dir).delivered.length));
    const f = rig.forwarder(sink, samples, { query: { pageSize: PAGE }, maxWindowEvents: CAP });
    // Fourteen polls 30 s apart: the cursor stays delay + overlap (7 minutes) behind, not delay (2).
    await polls(f, rig.sim, 14, 30 * S);
    const now = rig.sim.clock.now();
    const cursor = cursorOf(rig.dir);
    expect(cursor).toBeGreaterThanOrEqual(now - 30 * S - 7 * MIN - 15 * S);
    expect(cursor).toBeLessThanOrEqual(now - 7 * MIN);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    expect(new Set(uids)).toEqual(new Set(denyIds(rig.sim, ORIGIN, cursor)));
    expect(counterMap(samples.counters)).toEqual(expectedCounters(rig.sim, ORIGIN, cursor));
    expect(mostIds).toBeLessThanOrEqual(bound());
  });

  it('without the cap the same backlog keeps two 15-minute windows of ids (what the cap bounds)', async () => {
    const { sink, mostIds } = await catchUp();
    expect(new Set(sink.uids())).toEqual(new Set(denyIds(rig.sim, ORIGIN, T0 - 2 * MIN)));
    expect(rig.logs.filter((l) => l.msg === CUT)).toEqual([]);
    expect(mostIds).toBeGreaterThan(bound());
  });

  it('a cut window followed by a restart still forwards every event once', async () => {
    const first = new FakeSink(50);
    const f1 = rig.forwarder(first, new LastSamples(), { query: { pageSize: PAGE }, maxWindowEvents: CAP });
    // Stopped once the first window was cut: the restart reads it again with the full span.
    first.onAttempt = () => {
      if (rig.logs.some((l) => l.msg === CUT)) first.failures = Number.MAX_SAFE_INTEGER;
    };
    const aborted = new AbortController();
    first.failure = () => {
      aborted.abort();
      return new Error('receiver gone');
    };
    await f1.job.run(aborted.signal);
    await f1.stop();
    expect(rig.logs.some((l) => l.msg === CUT)).toBe(true);
    const second = new FakeSink(50);
    await polls(rig.forwarder(second, new LastSamples(), { query: { pageSize: PAGE }, maxWindowEvents: CAP }), rig.sim, 1, 0);
    const uids = [...first.uids(), ...second.uids()];
    expect(uids.length).toBe(new Set(uids).size);
    expect(new Set(uids)).toEqual(new Set(denyIds(rig.sim, ORIGIN, cursorOf(rig.dir))));
  });

  it('a poll whose pages take longer to read than the events they add ends, at the time it began', async () => {
    const sink = new FakeSink(50);
    // Two seconds of the upstream's time per page: the overlap alone (about 300 events, 15 pages) takes 30 s to read again.
    const client = rig.client;
    const slow = {
      describeLogV2: (req: DescribeLogV2Request, opts?: { signal?: AbortSignal }) => {
        rig.sim.clock.advance(2 * S);
        return client.describeLogV2(req, opts);
      },
    };
    const slowForwarder = rig.forwarder(sink, new LastSamples(), { query: { pageSize: 20 }, client: slow });
    const report = await slowForwarder.pollOnce();
    expect(report.ok).toBe(true);
    const cursor = T0 - 2 * MIN;
    expect(report.cursorMs).toBe(cursor);
    // Minutes passed while it read: chosen against a running clock, each further window (tens of seconds of new
    // events and the whole overlap again) took longer to read than it added, and the poll never ended.
    expect(rig.sim.clock.now()).toBeGreaterThan(T0 + 3 * MIN);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    expect(new Set(uids)).toEqual(new Set(denyIds(rig.sim, ORIGIN, cursor)));
  });

  it('a backlog is read once: a window read delay + overlap after its end needs no final pass; near now one follows', async () => {
    const seen = { read: 0, deduplicated: 0 };
    const sink = new FakeSink(50);
    const observer = { onRead: (n: number) => (seen.read += n), onDeduplicated: (n: number) => (seen.deduplicated += n) };
    const f = rig.forwarder(sink, new LastSamples(), { query: { pageSize: PAGE }, observer });
    await polls(f, rig.sim, 1, 30 * S);
    // Four windows, each read at T0: all but the last end delay + overlap (7 minutes) or more before it.
    expect(sink.uids().length).toBe(denyIds(rig.sim, ORIGIN, T0 - 2 * MIN).length);
    expect(seen).toEqual({ read: sink.uids().length, deduplicated: 0 });
    expect(savedCheckpoint(rig.dir)).toMatchObject({ cursorMs: T0 - 2 * MIN, finalMs: T0 - 7 * MIN });
    // The last one's part read within 7 minutes of its end gets its final pass as it passes that age: 30 s of it now.
    await polls(f, rig.sim, 1, 0);
    expect(seen.deduplicated).toBe(denyIds(rig.sim, T0 - 7 * MIN, T0 + 30 * S - 7 * MIN).length);
    expect(seen.deduplicated).toBeGreaterThan(10);
    expect(new Set(sink.uids())).toEqual(new Set(denyIds(rig.sim, ORIGIN, T0 - 90 * S)));
  });

  it('caught up, a poll every interval reads each record twice (new, then its final pass), not (overlap + interval) / interval times', async () => {
    let read = 0;
    const sink = new FakeSink(50);
    const f = rig.forwarder(sink, new LastSamples(), { query: { pageSize: PAGE }, observer: { onRead: (n) => (read += n) } });
    await polls(f, rig.sim, 1, 30 * S);
    const delivered = sink.uids().length;
    read = 0;
    // Ten polls, 30 s apart: each reads 30 s of new events and the final pass of the 30 s that became
    // delay + overlap (7 minutes) old: [T0-7m, T0-2m) a second time, [T0-2m, T0+3m) a first.
    await polls(f, rig.sim, 10, 30 * S);
    const steady = sink.uids().length - delivered;
    expect(steady).toBe(denyIds(rig.sim, T0 - 2 * MIN, T0 + 3 * MIN).length);
    expect(steady).toBeGreaterThan(100);
    expect(read).toBe(denyIds(rig.sim, T0 - 7 * MIN, T0 + 3 * MIN).length);
    // (interval + interval) / interval = 2 records read per delivered (the simulator's rate varies: within 30%),
    // where re-reading the overlap every poll read (overlap + interval) / interval = 11.
    expect(read / steady).toBeGreaterThan(2 * 0.7);
    expect(read / steady).toBeLessThan(2 * 1.3);
  });
});
