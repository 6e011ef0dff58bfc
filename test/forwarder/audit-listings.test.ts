// The delivery audit under every way the simulator lists logTread buckets
// (docs/upstream-notes.md): sized by the range (one minute here), five-minute
// buckets counted whole with the one holding beginTime listed, or not
// (strict), or only complete ones (the in-progress bucket absent), or zero
// buckets left out, or ranges ignored. Records ingested up to 20 minutes late
// are recovered under each: every deny event of the run once, none missing.
// (With ranges ignored every window reads the last hour, so the windows find
// the late records themselves and the audit finds nothing short.)
import { describe, expect, it } from 'vitest';
import type { Readings } from '../../src/simulator/readings.js';
import { denyIds, FakeSink, LastSamples, MIN, S, savedCheckpoint, useRig } from './fakes.js';

const LAG = 20 * MIN;
const FIVE = 5 * MIN;
const rig = useRig({ wafIngestLagMs: LAG });

describe.each<[string, Partial<Readings>, boolean]>([
  ['buckets sized by the range', {}, true],
  ['five-minute buckets counted whole, the one holding beginTime listed', { logTreadBucketMs: FIVE }, true],
  ['five-minute buckets, only those beginning inside the range', { logTreadBucketMs: FIVE, logTreadStrictRange: true }, true],
  ['five-minute buckets, only complete ones and only those beginning inside the range', { logTreadBucketMs: FIVE, logTreadStrictRange: true, logTreadCompleteOnly: true }, true],
  ['zero buckets left out', { omitZeroBuckets: true }, true],
  ['ranges ignored (the last hour answered)', { ignoreRanges: true }, false],
])('the WAF delivery audit, %s', (_name, readings, recovers) => {
  it('recovers every late record once', async () => {
    rig.sim.readings.merge(readings);
    try {
      const sink = new FakeSink(50);
      let recovered = 0;
      let missing = -1;
      const f = rig.forwarder(sink, new LastSamples(), {
        startBackMs: 10 * MIN,
        audit: { lookbackMs: 60 * MIN, intervalMs: MIN, maxHashes: 1_000_000 },
        observer: { onRecovered: (late) => void (recovered += late.length), onAuditChecked: (s) => void (missing = s.missing) },
      });
      let last = 0;
      for (let i = 0; i < 120; i++) {
        last = rig.sim.clock.now();
        expect((await f.pollOnce()).ok).toBe(true);
        rig.sim.clock.advance(30 * S);
      }
      const { originMs } = savedCheckpoint(rig.dir);
      const uids = sink.uids();
      const delivered = new Set(uids);
      expect(uids.length).toBe(delivered.size);
      // Whole five-minute buckets: the first one begun before the audit's start is never compared; the last ones take a bucket more to settle.
      const first = Math.ceil(originMs / FIVE) * FIVE;
      const settled = Math.floor((last - LAG - 9 * MIN - FIVE) / FIVE) * FIVE;
      const expected = denyIds(rig.sim, first, settled);
      expect(expected.length).toBeGreaterThan(60);
      expect(expected.filter((id) => !delivered.has(id))).toEqual([]);
      if (recovers) expect(recovered).toBeGreaterThan(10);
      else expect(recovered).toBe(0);
      expect(missing).toBe(0);
    } finally {
      rig.sim.readings.reset();
    }
  });
});
