// Records ingested later than `delay` (here: a simulator whose ingest lag is
// up to 10 minutes, polled with a 30 s delay) are found by the final pass,
// which reads each range once more `delay + overlap` after its end: with an
// overlap covering the lag nothing before the final pass's position is
// missed, and each is forwarded once; without one, some are. The second row
// shows the first one is not trivially true.
import { describe, expect, it } from 'vitest';
import { cursorOf, denyIds, FakeSink, LastSamples, MIN, S, savedCheckpoint, T0, useRig } from './fakes.js';

const LAG = 10 * MIN;
const DELAY = 30 * S;
const INTERVAL = 30 * S;
const rig = useRig({ wafIngestLagMs: LAG });

/**
 * What the simulator's truth says must have been delivered by a run whose last poll was at `lastPoll`, up to the
 * cursor (`lastPoll - delay`: windows end there): every deny record there that was ingested within `delay` (its new
 * window read it), and every one older than the final pass's reach (`delay + overlap` and a poll before the last).
 */
function mustHave(lastPoll: number, overlapMs: number): { cursorMs: number; ids: string[] } {
  const cursorMs = lastPoll - DELAY;
  const finalReach = lastPoll - DELAY - overlapMs - INTERVAL;
  const ids = rig.sim.truth.wafEvents(T0 - 60 * MIN, cursorMs)
    .filter((e) => e.record.response.httpCode === 417 && (rig.sim.truth.wafVisibility(e).visibleFrom <= e.time + DELAY || e.time < finalReach))
    .map((e) => e.record.requestId);
  return { cursorMs, ids };
}

/** Events the final passes delivered (their window log lines). */
const finalDelivered = (): number =>
  rig.logs.filter((l) => l.fields.pass === 'final').reduce((n, l) => n + (typeof l.fields.delivered === 'number' ? l.fields.delivered : 0), 0);

describe('late-arriving WAF records', () => {
  it.each<[string, number, (missed: number, byFinal: number) => void]>([
    ['overlap 15m > lag: none missed, the late ones found by the final pass', 15 * MIN, (missed, byFinal) => {
      expect(missed).toBe(0);
      expect(byFinal).toBeGreaterThan(0);
    }],
    ['overlap 0: some missed', 0, (missed, byFinal) => {
      expect(missed).toBeGreaterThan(0);
      expect(byFinal).toBe(0);
    }],
  ])('%s', async (_name, overlapMs, check) => {
    const sink = new FakeSink(16);
    const f = rig.forwarder(sink, new LastSamples(), { delayMs: DELAY, overlapMs });
    let lastPoll = 0;
    for (let i = 0; i < 60; i++) {
      lastPoll = rig.sim.clock.now();
      const report = await f.pollOnce();
      expect(report.ok).toBe(true);
      rig.sim.clock.advance(INTERVAL);
    }
    const { cursorMs, ids } = mustHave(lastPoll, overlapMs);
    expect(savedCheckpoint(rig.dir).cursorMs).toBe(cursorMs);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    // Nothing that had not arrived by the last poll, nothing past the cursor; some in range had not arrived yet.
    const arrived = denyIds(rig.sim, T0 - 60 * MIN, cursorMs, lastPoll);
    expect(arrived.length).toBeLessThan(denyIds(rig.sim, T0 - 60 * MIN, cursorMs).length);
    const delivered = new Set(uids);
    expect(uids.every((id) => arrived.includes(id))).toBe(true);
    // Up to the cursor: every record its new window or final pass had to find (the late ones only with an overlap), or some missed.
    check(ids.filter((id) => !delivered.has(id)).length, finalDelivered());
  });

  it('stopped while a final pass delivers late records and restarted: every event once, the late ones too', async () => {
    const options = { delayMs: DELAY, overlapMs: 15 * MIN };
    const first = new FakeSink(4);
    const f1 = rig.forwarder(first, new LastSamples(), options);
    // A batch older than the saved cursor comes from a final pass: the receiver fails it and the process stops.
    let stoppedInFinal = false;
    first.onAttempt = (batch) => {
      if (batch.every((e) => e.timestampMs < cursorOf(rig.dir))) stoppedInFinal = true;
      if (stoppedInFinal) first.failures = Number.MAX_SAFE_INTEGER;
    };
    const aborted = new AbortController();
    first.failure = () => {
      aborted.abort();
      return new Error('stopping');
    };
    for (let i = 0; i < 60 && !stoppedInFinal; i++) {
      await f1.job.run(aborted.signal);
      rig.sim.clock.advance(INTERVAL);
    }
    await f1.stop();
    expect(stoppedInFinal).toBe(true);
    const second = new FakeSink(16);
    const f2 = rig.forwarder(second, new LastSamples(), options);
    let lastPoll = 0;
    for (let i = 0; i < 40; i++) {
      lastPoll = rig.sim.clock.now();
      expect((await f2.pollOnce()).ok).toBe(true);
      rig.sim.clock.advance(INTERVAL);
    }
    const { cursorMs, ids } = mustHave(lastPoll, options.overlapMs);
    expect(savedCheckpoint(rig.dir).cursorMs).toBe(cursorMs);
    const uids = [...first.uids(), ...second.uids()];
    expect(uids.length).toBe(new Set(uids).size);
    const arrived = new Set(denyIds(rig.sim, T0 - 60 * MIN, cursorMs, lastPoll));
    expect(uids.every((id) => arrived.has(id))).toBe(true);
    const delivered = new Set(uids);
    expect(ids.filter((id) => !delivered.has(id))).toEqual([]);
  });
});
