// The daemon against answers whose envelope is fine but whose data is not:
// `data: null`, wrong types in every field, arrays past the body cap (the
// access collector goes down with a code, then recovers exactly), and valid
// but awkward data — every point twice, points out of order, points from the
// future, a huge array within the cap (the collector stays up and every
// counter equals the settled truth, every cycle). Faults are on the access
// collector's operation only; usage must carry on exactly throughout.
import { describe, expect, it } from 'vitest';
import type { FaultRule } from '../../src/simulator/faults.js';
import {
  ACCESS_LATEST_GAUGES, MIN, accessGaugeTruth, expectClean, expectDownAndBack, expectRecovered, expectTruth, lastSettled, pick, self, useRigs,
  warmUp, type DownFault,
} from './fault-rig.js';

const rigs = useRigs();
/** upstream.max_body_bytes: the normal answers (4 domains, 10 min windows) are a few KB. */
const BODY_CAP = 256 * 1024;
/** Points padded to this many stay under the cap (~22 bytes a point); ten times as many do not. */
const HUGE_WITHIN_CAP = 2000;
const HUGE_OVER_CAP = 20_000;

const DOWN: readonly DownFault[] = [
  // Asked again next cycle (no evidence of zero), and the run fails so the outage shows.
  { name: 'data: null', rule: { dataNull: true }, scope: 'access', code: 'EDGE_NO_DATA', requestOutcome: 'success' },
  { name: 'wrong types in every field', rule: { wrongTypes: true }, scope: 'access', code: 'EDGE_BAD_RESPONSE', requestOutcome: 'EDGE_BAD_RESPONSE' },
  { name: 'a huge array over max_body_bytes', rule: { hugeArray: HUGE_OVER_CAP }, scope: 'access', code: 'EDGE_BODY_TOO_LARGE', requestOutcome: 'EDGE_BODY_TOO_LARGE' },
];

describe('data faults that take the collector down', () => {
  it.each(DOWN)('$name: down with $code while it lasts, exact after', async (fault) => {
    await expectDownAndBack(await rigs({ maxBodyBytes: BODY_CAP }), fault);
  }, 30_000);
});

interface ValidFault {
  readonly name: string;
  readonly rule: FaultRule;
  readonly cycles: number;
}

const FUTURE = 3;
const VALID: readonly ValidFault[] = [
  { name: 'every point twice', rule: { duplicatePoints: true }, cycles: 3 },
  { name: 'points out of order', rule: { shufflePoints: true }, cycles: 3 },
  { name: 'every point twice and out of order', rule: { duplicatePoints: true, shufflePoints: true }, cycles: 3 },
  { name: 'a huge array within max_body_bytes', rule: { hugeArray: HUGE_WITHIN_CAP }, cycles: 3 },
  // Long enough for the clock to pass the first answer's fake buckets and count those minutes' real values.
  { name: 'points from the future', rule: { futurePoints: FUTURE }, cycles: 2 * FUTURE + 2 },
];

describe('valid but awkward data keeps the collector up and exact', () => {
  it.each(VALID)('$name', async ({ rule, cycles }) => {
    const rig = await rigs({ maxBodyBytes: BODY_CAP });
    await warmUp(rig);
    rig.fault(rule);
    const faultFrom = rig.sim.clock.now() + MIN;
    for (let k = 0; k < cycles; k++) {
      expectClean(await rig.cycle(MIN));
      const m = await rig.scrape();
      expect([m[self.up('access')], m[self.up('usage')]]).toEqual([1, 1]);
      expectTruth(m, rig);
      expect(pick(m, ACCESS_LATEST_GAUGES)).toEqual(accessGaugeTruth(rig));
    }
    if (rule.futurePoints !== undefined) {
      // The first faulty answer's fake points started after its now; those buckets are counted by now, with real values only.
      expect(lastSettled(rig.sim.clock.now())).toBeGreaterThanOrEqual(faultFrom + FUTURE * MIN);
    }
    expect(rig.sim.faults.list()).toEqual([{ ...rule, operations: ['describeL7DataV2'] }]);
    rig.sim.faults.clear();
    await expectRecovered(rig);
  }, 30_000);
});
