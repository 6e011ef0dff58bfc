// The real daemon with `delay: auto` against an upstream that revises every
// bucket once more 7 minutes after it ends (later than the 5m auto starts
// at): the audit (every minute) sees the revisions, suggests 7m, and the
// delay in force settles there, within a bucket; after every cycle the
// counters equal the upstream's truth as it stands at that moment for every
// bucket counted: nothing counted twice when the delay grew (the watermark
// waits), nothing skipped, every revision seen added by the audit.
import { describe, expect, it } from 'vitest';
import { lastSettledStart } from '../../src/collectors/buckets.js';
import { DOMAIN_REQUESTS, DOMAIN_TRAFFIC_BYTES } from '../../src/collectors/access/metrics.js';
import { seriesKey } from '../../src/collectors/series/keys.js';
import type { StatMetric } from '../../src/simulator/stats.js';
import { MIN, expectClean, useRigs, type Rig, type Series } from './fault-rig.js';

const rigs = useRigs();
const REVISED_AFTER = 7 * MIN;
const AUTO_START = 5 * MIN;
const UTC8 = 480;
const suggested = (collector: string) => seriesKey('edge_exporter_suggested_delay_seconds', { collector });
const COUNTERS: Array<[string, Record<string, string>, StatMetric]> = [
  [DOMAIN_REQUESTS.name, {}, 'requests'],
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'edge' }, 'bytesSent'],
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'origin' }, 'upstreamBytesSent'],
];

/** The access counters over the buckets starting in [from, to), each as the upstream reports it at `now`. */
function truthNow(rig: Rig, from: number, to: number, now: number): Series {
  // A bucket is revised once its end is REVISED_AFTER behind now: starts before now - REVISED_AFTER (whole minutes).
  const split = Math.max(from, Math.min(to, now - REVISED_AFTER));
  const out: Series = {};
  for (const domain of rig.sim.truth.domains()) {
    for (const [family, labels, metric] of COUNTERS) {
      out[seriesKey(family, { domain, ...labels })] =
        rig.sim.truth.revisedDomainTotal(domain, metric, '1m', from, split) + rig.sim.truth.domainTotal(domain, metric, split, to);
    }
  }
  return out;
}

function counters(m: Series): Series {
  return Object.fromEntries(Object.entries(m).filter(([k]) => COUNTERS.some(([family, labels]) => {
    const extra = Object.entries(labels).every(([l, v]) => k.includes(`${l}="${v}"`));
    return k.startsWith(`${family}{`) && extra;
  })));
}

describe('delay: auto against an upstream revising buckets 7 minutes after they end', () => {
  it('the delay in force settles within a bucket of 7m, and the counters equal the truth after every cycle', async () => {
    const rig = await rigs({ readings: { lateRevision: { afterMs: REVISED_AFTER, factor: 1.25 } }, delay: 'auto', audit: '{ every: 1m }' });
    expectClean(await rig.cycle());
    const first = rig.firstCycleAt;
    // Counting starts after the last bucket settled at the first cycle, by the delay auto starts at.
    const from = lastSettledStart(first, '1m', AUTO_START, UTC8) + MIN;
    let to = from;
    let inForce = AUTO_START;
    const seen: number[] = [];
    for (let k = 1; k <= 20; k++) {
      expectClean(await rig.cycle(MIN));
      const now = rig.sim.clock.now();
      // This cycle counted up to the buckets settled by the delay in force, never back (the watermark stays).
      to = Math.max(to, lastSettledStart(now, '1m', inForce, UTC8) + MIN);
      const m = await rig.scrape();
      expect(counters(m), `cycle ${k}`).toEqual(truthNow(rig, from, to, now));
      // After the cycle's audit, the suggestion is the delay in force for the next one (within 5m..1h).
      const s = m[suggested('access')];
      if (s !== undefined) inForce = Math.min(3_600_000, Math.max(AUTO_START, s * 1000));
      seen.push(s ?? Number.NaN);
    }
    // Auto started at 5m: nothing seen revised by the first audits (cycle 1 starts the audit clock); the audit of
    // cycle 3 saw the first bucket counted revised at 7m, and that is where it stayed. A daemon that kept 5m would
    // have counted two buckets more than the truth above holds, each cycle.
    expect(seen.slice(0, 2)).toEqual([AUTO_START / 1000, AUTO_START / 1000]);
    const last = seen.at(-1) ?? Number.NaN;
    expect(Math.abs(last - REVISED_AFTER / 1000)).toBeLessThanOrEqual(60);
    expect(seen.slice(2)).toEqual(seen.slice(2).map(() => last));
  });
});
