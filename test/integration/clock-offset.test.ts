// The real daemon against an upstream whose clock runs 10 minutes behind
// ours: /metrics counts edge_exporter_contract_mismatches_total{check=
// "clock_offset"} once per collector and cycle (the judgement doctor makes on
// day one, src/collectors/contract/clock.ts), no other check is blamed for
// it, the log says it once per collector with the delay key and the value
// that covers it, and the counters hold exactly the buckets settled by the
// upstream's clock: never a quiet zero for the buckets it has not reported.
import { describe, expect, it } from 'vitest';
import { CONTRACT_CHECKS } from '../../src/collectors/contract/checks.js';
import { seriesKey } from '../../src/collectors/series/keys.js';
import { ACCESS_COUNTER_FAMILIES, MIN, USAGE_COUNTER_FAMILIES, accessTruth, expectClean, pick, usageTruth, useRigs } from './fault-rig.js';

const rigs = useRigs();
const mismatches = (check: string) => seriesKey('edge_exporter_contract_mismatches_total', { check });
const CYCLES = 14;

describe('the daemon against an upstream clock behind ours', () => {
  it('10 minutes behind: clock_offset counted once per collector and cycle, logged with the delay to set, counters exact', async () => {
    const rig = await rigs({ readings: { clockOffsetMs: 10 * MIN } });
    for (let k = 0; k < CYCLES; k++) expectClean(await rig.cycle(k === 0 ? 0 : MIN));
    const m = await rig.scrape();
    // Two collectors (access, usage), each once a cycle whatever its number of targets.
    expect(m[mismatches('clock_offset')]).toBe(2 * CYCLES);
    const others = CONTRACT_CHECKS.filter((c) => c !== 'clock_offset');
    expect(others.map((c) => m[mismatches(c)])).toEqual(others.map(() => 0));
    const warned = rig.log.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.check === 'clock_offset');
    expect(warned.map((l) => [l.collector, l.configKey, l.suggest]).sort()).toEqual([
      ['access', 'collectors.access.delay', '15m'],
      ['usage', 'collectors.usage.delay', '15m'],
    ]);
    // Within a bucket of the truth: the cycles run on whole minutes, where a request ending now cannot hold the bucket that has just begun.
    expect(String(warned[0]?.seen)).toMatch(/the newest point is (9 bucket\(s\) \(9m\)|10 bucket\(s\) \(10m\)) behind it/);
    // Counted up to the buckets settled by the upstream's clock, ten minutes behind ours.
    const upstreamNow = rig.sim.clock.now() - 10 * MIN;
    expect(pick(m, ACCESS_COUNTER_FAMILIES)).toEqual(accessTruth(rig, upstreamNow));
    expect(pick(m, USAGE_COUNTER_FAMILIES)).toEqual(usageTruth(rig, upstreamNow));
  });

  it('3 hours behind, beyond every range a cycle asks: nothing counted as zero, the data lag grows with every cycle, out_of_range says why', async () => {
    const rig = await rigs({ readings: { clockOffsetMs: 3 * 60 * MIN } });
    const lag = (m: Record<string, number>, collector: string) => m[seriesKey('edge_exporter_collector_data_lag_seconds', { collector })];
    expectClean(await rig.cycle());
    const first = await rig.scrape();
    for (let k = 0; k < 5; k++) expectClean(await rig.cycle(MIN));
    const m = await rig.scrape();
    // No answer of a cycle holds a point, so no clock can be read off them (doctor finds the offset: test/cli/doctor-clock.test.ts);
    // the range answered with nothing is the evidence.
    expect(m[mismatches('out_of_range')]).toBeGreaterThan(0);
    for (const collector of ['access', 'usage']) expect(lag(m, collector)).toBe((lag(first, collector) ?? 0) + 5 * 60);
    for (const value of Object.values(pick(m, [...ACCESS_COUNTER_FAMILIES, ...USAGE_COUNTER_FAMILIES]))) expect(value).toBe(0);
  });

  it('in step: clock_offset stays at 0', async () => {
    const rig = await rigs();
    for (let k = 0; k < 3; k++) expectClean(await rig.cycle(k === 0 ? 0 : MIN));
    expect((await rig.scrape())[mismatches('clock_offset')]).toBe(0);
  });
});
