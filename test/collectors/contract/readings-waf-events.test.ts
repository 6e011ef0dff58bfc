// The WAF event forwarder against an upstream that reads the log query another
// way: times with no offset are read in upstream.timezone (counted as
// timestamp_offset); records outside the window asked for, because the range
// is ignored or their time runs behind it, are counted as out_of_range and
// every deny event is still delivered exactly once, across restarts.
import { describe, expect, it } from 'vitest';
import { counterMap, cursorOf, DENY, denyIds, expectedCounters, FakeSink, LastSamples, MIN, polls, S, T0, useRig } from '../../forwarder/fakes.js';
import type { ContractCheck } from '../../../src/collectors/contract/checks.js';

const rig = useRig();
const ORIGIN = T0 - 60 * MIN;

/** An observer tallying mismatches by check. */
function tally(): { checks: Partial<Record<ContractCheck, number>>; onMismatch(check: ContractCheck, n: number): void } {
  const checks: Partial<Record<ContractCheck, number>> = {};
  return { checks, onMismatch: (check, n) => void (checks[check] = (checks[check] ?? 0) + n) };
}

describe('WAF events: one reading at a time', () => {
  it('with every reading off: no mismatch', async () => {
    rig.sim.readings.reset();
    const seen = tally();
    await polls(rig.forwarder(new FakeSink(50), new LastSamples(), { observer: seen }), rig.sim, 4, 30 * S);
    expect(seen.checks).toEqual({});
  });

  it('timeStamps without an offset are read in the platform zone: the events carry the true times; timestamp_offset counted', async () => {
    rig.sim.readings.reset();
    rig.sim.readings.merge({ naiveTimestamps: true });
    const sink = new FakeSink(50);
    const seen = tally();
    await polls(rig.forwarder(sink, new LastSamples(), { observer: seen }), rig.sim, 3, 30 * S);
    expect(seen.checks.timestamp_offset).toBeGreaterThan(0);
    const truth = new Map(rig.sim.truth.wafEvents(ORIGIN, cursorOf(rig.dir)).map((e) => [e.record.requestId, e.time]));
    expect(sink.events().length).toBeGreaterThan(10);
    // Whatever the host's zone: the instant the simulator meant, to the millisecond.
    for (const e of sink.events()) expect(e.timestampMs, e.uid).toBe(truth.get(e.uid));
  });

  it.each([
    { name: 'record times 10 minutes behind the window they come in', readings: { recordTimeLagMs: 10 * MIN } },
    { name: 'the range ignored (the last hour, whatever was asked)', readings: { ignoreRanges: true } },
  ])('$name: out_of_range counted, every deny event once, the counter exact, across a restart', async ({ readings }) => {
    rig.sim.readings.reset();
    rig.sim.readings.merge(readings);
    const sink = new FakeSink(50);
    const seen = tally();
    await polls(rig.forwarder(sink, new LastSamples(), { observer: seen }), rig.sim, 6, 30 * S);
    // A restart (a new forwarder on the same state), then more polls: nothing the first one delivered comes again.
    const samples = new LastSamples();
    await polls(rig.forwarder(sink, samples, { observer: seen }), rig.sim, 6, 30 * S);
    expect(seen.checks.out_of_range).toBeGreaterThan(0);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    expect(sink.events().every((e) => e.attributes['http.response.status_code'] === DENY)).toBe(true);
    // Every deny event of the windows read is there (a record is never dropped for what its time says).
    const cursor = cursorOf(rig.dir);
    const delivered = new Set(uids);
    const want = denyIds(rig.sim, ORIGIN, cursor);
    expect(want.length).toBeGreaterThan(10);
    expect(want.filter((uid) => !delivered.has(uid))).toEqual([]);
    // The denied counter counts each delivered event once: its total is the number delivered, not more.
    expect([...counterMap(samples.counters).values()].reduce((a, b) => a + b, 0)).toBe(delivered.size);
    expect(delivered.size).toBeGreaterThanOrEqual([...expectedCounters(rig.sim, ORIGIN, cursor).values()].reduce((a, b) => a + b, 0));
  });
});
