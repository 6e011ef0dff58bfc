// Records ingested later than `delay` (here: a simulator whose ingest lag is
// up to 10 minutes, polled with a 30 s delay) are found by the overlap of a
// later window: with an overlap covering the lag nothing is missed; without
// one, some are. The second row shows the first one is not trivially true.
import { describe, expect, it } from 'vitest';
import { cursorOf, denyIds, FakeSink, LastSamples, MIN, S, T0, useRig } from './fakes.js';

const LAG = 10 * MIN;
const rig = useRig({ wafIngestLagMs: LAG });

describe('late-arriving WAF records', () => {
  it.each<[string, number, (missed: number) => void]>([
    ['overlap 15m > lag: none missed', 15 * MIN, (missed) => expect(missed).toBe(0)],
    ['overlap 0: some missed', 0, (missed) => expect(missed).toBeGreaterThan(0)],
  ])('%s', async (_name, overlapMs, check) => {
    const sink = new FakeSink(16);
    const f = rig.forwarder(sink, new LastSamples(), { delayMs: 30 * S, overlapMs });
    let lastPoll = 0;
    for (let i = 0; i < 60; i++) {
      lastPoll = rig.sim.clock.now();
      const report = await f.pollOnce();
      expect(report.ok).toBe(true);
      rig.sim.clock.advance(30 * S);
    }
    const cursor = cursorOf(rig.dir);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    // Everything in range that had arrived by the last poll, and nothing else.
    const arrived = denyIds(rig.sim, T0 - 60 * MIN, cursor, lastPoll);
    expect(arrived.length).toBeLessThan(denyIds(rig.sim, T0 - 60 * MIN, cursor).length);
    const delivered = new Set(uids);
    expect(uids.every((id) => arrived.includes(id))).toBe(true);
    check(arrived.filter((id) => !delivered.has(id)).length);
  });
});
