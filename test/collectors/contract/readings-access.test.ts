// The access collector against an upstream that reads the document another
// way on one point (a simulator reading): the mismatch is found under its
// check and the counters still equal the truth of exactly the buckets
// counted; with the reading off, no mismatch at all.
import { beforeEach, describe, expect, it } from 'vitest';
import { createAccessCollector, type AccessOptions } from '../../../src/collectors/access/index.js';
import { DOMAIN_BANDWIDTH, DOMAIN_REQUESTS, DOMAIN_RESPONSES, DOMAIN_TRAFFIC_BYTES } from '../../../src/collectors/access/metrics.js';
import { lastSettledStart } from '../../../src/collectors/buckets.js';
import type { ReadingsPatch } from '../../../src/simulator/readings.js';
import type { StatMetric } from '../../../src/simulator/stats.js';
import { Driver, HOUR, MIN, T0, useSim } from '../series/sim-driver.js';

const rig = useSim({ domains: 4 });
beforeEach(() => rig.sim.readings.reset());
const DELAY = 3 * MIN;
const OPTIONS: AccessOptions = { interval: '1m', delayMs: DELAY, maxBackfillMs: 6 * HOUR, timestamps: false, api: 'v2', summaryWindowMs: 30 * MIN };
const COUNTERS: Array<[string, Record<string, string>, StatMetric]> = [
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'edge' }, 'bytesSent'],
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'origin' }, 'upstreamBytesSent'],
  [DOMAIN_REQUESTS.name, {}, 'requests'],
  ...(['1xx', '2xx', '3xx', '4xx', '5xx'] as const).map((c): [string, Record<string, string>, StatMetric] => [DOMAIN_RESPONSES.name, { code_class: c }, `status${c}`]),
];

function driver(options: Partial<AccessOptions> = {}): Driver {
  return new Driver(rig, createAccessCollector({ ...OPTIONS, ...options }), { domains: rig.sim.truth.domains(), packages: [] });
}

/** First bucket counted: the one after the last settled at the first cycle (T0). */
const FIRST = lastSettledStart(T0, '1m', DELAY, 480) + MIN;

/** Every counter equals the truth over [FIRST, end of the newest bucket counted); returns that end. */
function expectExact(d: Driver): number {
  const end = d.newestBucketEndMs;
  if (end === undefined) throw new Error('nothing counted');
  for (const domain of rig.sim.truth.domains()) {
    for (const [family, labels, metric] of COUNTERS) {
      expect(d.counter(family, { domain, ...labels }), `${family} ${domain}`).toBe(rig.sim.truth.domainTotal(domain, metric, FIRST, end));
    }
  }
  return end;
}

const READ: ReadonlyArray<{ name: string; readings: ReadingsPatch; check: string; cycles: number }> = [
  { name: 'totals that disagree with their points', readings: { totalsSkew: 1.1 }, check: 'totals', cycles: 4 },
  { name: 'ranges ignored (the last hour whatever was asked)', readings: { ignoreRanges: true }, check: 'out_of_range', cycles: 4 },
  // Ends an hour early: at run time that reads as a clock an hour behind (the doctor's timezone probe tells them apart).
  { name: 'beginTime/endTime read an hour ahead (+09:00)', readings: { paramsZone: '+09:00' }, check: 'clock_offset', cycles: 4 },
  // Idle status classes answer empty or gapped series: zeros, as the other series of the answer show the clock passed them.
  { name: 'zero buckets left out', readings: { omitZeroBuckets: true }, check: 'missing_buckets', cycles: 6 },
];

describe('access: one reading at a time', () => {
  it('with every reading off, no mismatch at all and every counter exact', async () => {
    const d = driver();
    await d.cycles(6, MIN);
    expect(d.checks()).toEqual({});
    expect(expectExact(d)).toBe(lastSettledStart(T0 + 5 * MIN, '1m', DELAY, 480) + MIN);
  });

  it.each(READ)('$name: counted under $check, counters exact', async ({ readings, check, cycles }) => {
    rig.sim.readings.merge(readings);
    const d = driver();
    await d.cycles(cycles, MIN);
    expect(d.checks()[check]).toBeGreaterThan(0);
    expectExact(d);
  });

  it('a clock 10 minutes behind: never a quiet zero; buckets wait until settled by its clock, exact, and the lag shows', async () => {
    rig.sim.readings.merge({ clockOffsetMs: 10 * MIN });
    const d = driver();
    await d.cycles(16, MIN);
    // Counted once a cycle, with the delay that covers it (10 minutes on top of the 3 configured, rounded up to 5).
    expect(d.checks().clock_offset).toBe(16);
    expect(d.mismatches.find((m) => m.check === 'clock_offset')).toMatchObject({ configKey: 'delay', suggest: '15m' });
    const end = expectExact(d);
    const now = T0 + 15 * MIN;
    // Counted up to the buckets settled by the upstream's clock, ten minutes behind ours, and no further.
    expect(end).toBe(lastSettledStart(now - 10 * MIN, '1m', DELAY, 480) + MIN);
    expect(end).toBeGreaterThan(FIRST);
  });

  it('beginTime/endTime read an hour late (+07:00): nothing counted from an answer that begins after the range, the lag grows', async () => {
    rig.sim.readings.merge({ paramsZone: '+07:00' });
    const d = driver();
    await d.cycles(5, MIN);
    expect(d.checks().out_of_range).toBeGreaterThan(0);
    // Every counter still at the 0 it started at: the buckets wait (out_of_range, data lag), none counted as zero.
    expect(d.newestBucketEndMs).toBe(FIRST);
    for (const domain of rig.sim.truth.domains()) expect(d.counter(DOMAIN_REQUESTS.name, { domain })).toBe(0);
    // Once the zone is right, the waiting buckets are counted exactly.
    rig.sim.readings.reset();
    await d.cycles(1, MIN);
    expect(expectExact(d)).toBe(lastSettledStart(T0 + 5 * MIN, '1m', DELAY, 480) + MIN);
  });

  it('bandwidth in bytes/s: bandwidth_unit names bytes_per_second; with it set the gauges are right and nothing is reported', async () => {
    rig.sim.readings.merge({ bandwidthUnit: 'bytes_per_second' });
    const wrong = driver();
    await wrong.cycles(2, MIN);
    const found = wrong.mismatches.find((m) => m.check === 'bandwidth_unit');
    expect(found?.suggest).toBe('bytes_per_second');
    expect(found?.configKey).toBe('upstream.units.bandwidth');
    rig.sim.clock.set(T0);
    const right = driver({ bandwidthUnit: 'bytes_per_second' });
    await right.cycles(2, MIN);
    expect(right.checks().bandwidth_unit).toBeUndefined();
    const bucket = lastSettledStart(T0 + MIN, '1m', DELAY, 480);
    for (const domain of rig.sim.truth.domains()) {
      const bytes = rig.sim.truth.bucket(domain, 'bytesSent', '1m', bucket);
      const truth = rig.sim.truth.bandwidth(bytes, '1m', 'bytes_per_second');
      expect(right.gauge(DOMAIN_BANDWIDTH.name, { domain, source: 'edge' })?.value).toBe(truth);
      // Read as bits per second, the same answer is 8 times too low: what the check exists for.
      expect(wrong.gauge(DOMAIN_BANDWIDTH.name, { domain, source: 'edge' })?.value).toBe(truth / 8);
    }
  });
});
