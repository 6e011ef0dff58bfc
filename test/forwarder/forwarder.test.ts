// The WAF event forwarder against the simulator (real EdgeClient over
// loopback, pinned clock) with a fake receiver: exactly the deny events in
// range, each once and counted once; no credential header; a backlog caught
// up window by window; bounded memory; restarts. Late records: late-events
// test; failures and crashes: recovery test.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_NAME } from '../../src/forwarder/checkpoint.js';
import type { WafEventsObserver } from '../../src/forwarder/metrics.js';
import { counterMap, cursorOf, DENY, denyIds, expectedCounters, FakeSink, LastSamples, MIN, polls, S, savedCheckpoint, T0, useRig } from './fakes.js';

const rig = useRig();
const ORIGIN = T0 - 60 * MIN;
const SECRET_HEADER = /http\.request\.header\.(authorization|cookie|set-cookie)/;

describe('WafEventForwarder against the simulator', () => {
  it('forwards exactly the deny events in range over several polls, each once, and counts them once', async () => {
    const sink = new FakeSink(7);
    const samples = new LastSamples();
    const seen = { read: 0, deduplicated: 0, forwarded: 0, exportFailures: 0, cursor: -1 };
    const observer: WafEventsObserver = {
      onRead: (n) => (seen.read += n),
      onDeduplicated: (n) => (seen.deduplicated += n),
      onForwarded: (n) => (seen.forwarded += n),
      onExportFailure: () => (seen.exportFailures += 1),
      onCheckpoint: (ms) => (seen.cursor = ms),
    };
    const f = rig.forwarder(sink, samples, { observer });
    await polls(f, rig.sim, 20, 30 * S);
    const cursor = T0 + 19 * 30 * S - 2 * MIN;
    expect(cursorOf(rig.dir)).toBe(cursor);

    const expected = denyIds(rig.sim, ORIGIN, cursor);
    const uids = sink.uids();
    expect(expected.length).toBeGreaterThan(100);
    expect(uids.length).toBe(new Set(uids).size);
    expect(new Set(uids)).toEqual(new Set(expected));
    expect(sink.events().every((e) => e.attributes['http.response.status_code'] === DENY)).toBe(true);
    expect(sink.batches.every((b) => b.length <= 7)).toBe(true);
    expect(counterMap(samples.counters)).toEqual(expectedCounters(rig.sim, ORIGIN, cursor));

    const stats = f.stats();
    expect(stats).toMatchObject({ forwarded: expected.length, exportFailures: 0, droppedFromCounter: 0 });
    // Every window re-reads its overlap: the repeats were read and dropped.
    expect(stats.deduplicated).toBeGreaterThan(0);
    expect(stats.read).toBe(stats.forwarded + stats.deduplicated);
    expect(stats.checkpointLagSeconds).toBe((rig.sim.clock.now() - cursor) / 1000);
    // The observer saw the same numbers and the cursor of the last save (the lag gauge is read against it at scrape).
    expect(seen).toEqual({ read: stats.read, deduplicated: stats.deduplicated, forwarded: stats.forwarded, exportFailures: 0, cursor });
  });

  it('an observer that throws changes nothing but a log line', async () => {
    const sink = new FakeSink(7);
    const f = rig.forwarder(sink, new LastSamples(), { observer: { onForwarded: () => { throw new Error('bug'); } } });
    await polls(f, rig.sim, 2, 30 * S);
    expect(new Set(sink.uids())).toEqual(new Set(denyIds(rig.sim, ORIGIN, cursorOf(rig.dir))));
    expect(rig.logs.some((l) => l.level === 'error' && l.msg === 'WAF event observer failed')).toBe(true);
  });

  it('never forwards authorization or cookie headers, which the simulated records carry', async () => {
    const sink = new FakeSink(50);
    await polls(rig.forwarder(sink, new LastSamples(), { headers: ['host', 'Authorization', 'cookie', 'set-cookie'] }), rig.sim, 1, 0);
    const records = rig.sim.truth.wafEvents(ORIGIN, T0).filter((e) => e.record.response.httpCode === DENY).map((e) => e.record);
    expect(records.filter((r) => r.request.headers.authorization).length).toBeGreaterThan(0);
    expect(records.filter((r) => r.request.headers.cookie).length).toBeGreaterThan(0);
    for (const event of sink.events()) {
      expect(Object.keys(event.attributes).filter((k) => SECRET_HEADER.test(k))).toEqual([]);
      expect(JSON.stringify(event)).not.toMatch(/sim-secret|sessionid=/);
    }
    expect(sink.events().length).toBeGreaterThan(0);
  });

  it('catches up a backlog window by window, logging progress', async () => {
    const sink = new FakeSink(64);
    const report = await rig.forwarder(sink, new LastSamples(), { startBackMs: 3 * 60 * MIN }).pollOnce();
    // 178 minutes to T0-2m in 15-minute windows: 12 windows.
    expect(report).toMatchObject({ ok: true, windows: 12, cursorMs: T0 - 2 * MIN, forwarded: denyIds(rig.sim, T0 - 180 * MIN, T0 - 2 * MIN).length });
    const progress = rig.logs.filter((l) => l.msg === 'WAF event backlog: window delivered');
    expect(progress.length).toBeGreaterThanOrEqual(10);
    expect(progress[0]?.fields).toMatchObject({ from: '2026-03-02T09:00:00+08:00', to: '2026-03-02T09:15:00+08:00', remainingLagSeconds: (165 - 2) * 60 });
    expect(typeof progress[0]?.fields.delivered).toBe('number');
  });

  it('keeps only the ids a window can still read again: those past the final pass (bounded memory)', async () => {
    // Twenty polls: the final pass has passed the first poll's last window (13 minutes, read 2 minutes after its end).
    await polls(rig.forwarder(new FakeSink(10), new LastSamples()), rig.sim, 20, 30 * S);
    const { cursorMs, finalMs, delivered } = savedCheckpoint(rig.dir);
    // Caught up: the final pass is delay + overlap behind now, the cursor delay.
    expect(finalMs).toBe(cursorMs - 5 * MIN);
    expect(delivered.length).toBeGreaterThan(0);
    // Each id is kept under the end of the window it was read in (never past the cursor), until the final pass passes it.
    expect(delivered.every(([, t]) => t >= cursorMs - 5 * MIN && t <= cursorMs)).toBe(true);
    // Those the final pass reads again are all there; and no more than the last window before it (30 s) besides.
    const kept = new Set(delivered.map(([uid]) => uid));
    expect(denyIds(rig.sim, cursorMs - 5 * MIN, cursorMs).every((uid) => kept.has(uid))).toBe(true);
    const bound = new Set(denyIds(rig.sim, cursorMs - 5 * MIN - 30 * S, cursorMs));
    expect([...kept].every((uid) => bound.has(uid))).toBe(true);
  });

  it('resumes after a restart (and downtime) with no duplicates and no gaps; the counter continues', async () => {
    const sink = new FakeSink(9);
    const first = rig.forwarder(sink, new LastSamples());
    await polls(first, rig.sim, 4, 30 * S);
    await first.stop();
    rig.sim.clock.advance(40 * MIN);
    const samples = new LastSamples();
    const second = rig.forwarder(sink, samples);
    await second.start();
    // The restored counter is published before the first poll of the new process.
    expect(samples.counters.length).toBeGreaterThan(0);
    await second.stop();
    await polls(rig.forwarder(sink, samples), rig.sim, 4, 30 * S);
    const cursor = cursorOf(rig.dir);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    expect(new Set(uids)).toEqual(new Set(denyIds(rig.sim, ORIGIN, cursor)));
    expect(counterMap(samples.counters)).toEqual(expectedCounters(rig.sim, ORIGIN, cursor));
  });

  it('resumes a checkpoint written before the final pass (no finalMs): its overlap read once more, nothing twice, nothing skipped', async () => {
    const sink = new FakeSink(9);
    const first = rig.forwarder(sink, new LastSamples());
    await polls(first, rig.sim, 4, 30 * S);
    await first.stop();
    // As the previous version wrote it: the ids of the overlap before the cursor, no final position.
    const file = join(rig.dir, `${CHECKPOINT_NAME}.json`);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { data: { finalMs?: number; cursorMs: number } };
    expect(saved.data.finalMs).toBe(saved.data.cursorMs - 5 * MIN);
    delete saved.data.finalMs;
    writeFileSync(file, JSON.stringify(saved));
    await polls(rig.forwarder(sink, new LastSamples()), rig.sim, 4, 30 * S);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    expect(new Set(uids)).toEqual(new Set(denyIds(rig.sim, ORIGIN, cursorOf(rig.dir))));
    expect(savedCheckpoint(rig.dir).finalMs).toBe(cursorOf(rig.dir) - 5 * MIN);
  });

  it('keeps its starting point from the first start, even when nothing was sent before a restart', async () => {
    const down = new FakeSink(5);
    down.failures = Number.POSITIVE_INFINITY;
    const f = rig.forwarder(down, new LastSamples(), { retry: { minDelayMs: 20, maxDelayMs: 20 } });
    await f.start();
    await f.stop();
    expect(down.batches).toEqual([]);
    rig.sim.clock.advance(30 * MIN);
    const sink = new FakeSink(50);
    await polls(rig.forwarder(sink, new LastSamples(), { maxWindowMs: 24 * 60 * MIN }), rig.sim, 1, 0);
    // Not start_from back from the restart (T0-30m): from the first start's T0-60m.
    expect(new Set(sink.uids())).toEqual(new Set(denyIds(rig.sim, ORIGIN, T0 + 28 * MIN)));
  });
});
