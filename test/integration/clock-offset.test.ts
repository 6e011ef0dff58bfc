// The real daemon against an upstream whose clock runs 10 minutes behind
// ours: /metrics counts edge_exporter_contract_mismatches_total{check=
// "clock_offset"} once per collector and cycle (the judgement doctor makes on
// day one, src/collectors/contract/clock.ts), no other check is blamed for
// it, the log says it once per collector with the delay key and the value
// that covers it, and the counters hold exactly the buckets settled by the
// upstream's clock: never a quiet zero for the buckets it has not reported.
// Three hours behind, no answer of a cycle holds a point: the collector looks
// back over the day before once an hour (src/collectors/series/lookback.ts),
// one request more, and counts clock_offset from it; in step it never does.
import { describe, expect, it } from 'vitest';
import { CONTRACT_CHECKS } from '../../src/collectors/contract/checks.js';
import { seriesKey } from '../../src/collectors/series/keys.js';
import { ACCESS_COUNTER_FAMILIES, ACCESS_OP, MIN, USAGE_OP, type Rig, USAGE_COUNTER_FAMILIES, accessTruth, expectClean, pick, usageTruth, useRigs } from './fault-rig.js';

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

  it('3 hours behind, beyond every range a cycle asks: one look-back an hour finds it, counts clock_offset once, and never counts a bucket', async () => {
    const rig = await rigs({ readings: { clockOffsetMs: 3 * 60 * MIN } });
    const lag = (m: Record<string, number>, collector: string) => m[seriesKey('edge_exporter_collector_data_lag_seconds', { collector })];
    const firstAsked = await asked(rig, 0);
    const first = await rig.scrape();
    const laterAsked: Asked[] = [];
    for (let k = 0; k < 5; k++) laterAsked.push(await asked(rig, MIN));
    const m = await rig.scrape();
    // The cycles' own answers hold no point: the range answered with nothing is still reported, and nothing counted as zero.
    expect(m[mismatches('out_of_range')]).toBeGreaterThan(0);
    for (const collector of ['access', 'usage']) expect(lag(m, collector)).toBe((lag(first, collector) ?? 0) + 5 * 60);
    for (const value of Object.values(pick(m, [...ACCESS_COUNTER_FAMILIES, ...USAGE_COUNTER_FAMILIES]))) expect(value).toBe(0);
    // One look-back per collector on the first cycle (one request more of each operation than the cycles after it), none for the rest of the hour.
    expect(m[mismatches('clock_offset')]).toBe(2);
    expect(firstAsked.access).toBe(4 + 1);
    expect(laterAsked.map((n) => n.access)).toEqual([4, 4, 4, 4, 4]);
    const usageLater = laterAsked[0]?.usage ?? 0;
    expect(laterAsked.map((n) => n.usage)).toEqual(laterAsked.map(() => usageLater));
    expect(firstAsked.usage).toBe(usageLater + 1);
    const warned = rig.log.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.check === 'clock_offset');
    expect(warned.map((l) => [l.collector, l.configKey, l.suggest]).sort()).toEqual([
      ['access', 'collectors.access.delay', '185m'],
      ['usage', 'collectors.usage.delay', '185m'],
    ]);
    expect(String(warned[0]?.seen)).toMatch(/the newest point is (179 bucket\(s\) \(179m\)|180 bucket\(s\) \(180m\)) behind it/);
    // An hour after the first look-back, the next one: counted once more per collector.
    const hourLater = await asked(rig, 55 * MIN);
    const later = await rig.scrape();
    expect(later[mismatches('clock_offset')]).toBe(4);
    // After 55 minutes unasked each domain asks its gauges' window and, in one back-fill request, the buckets before it; one look-back on top.
    expect(hourLater.access).toBe(2 * 4 + 1);
    for (const value of Object.values(pick(later, [...ACCESS_COUNTER_FAMILIES, ...USAGE_COUNTER_FAMILIES]))) expect(value).toBe(0);
  });

  it('in step: clock_offset stays at 0 and no look-back is asked (one request per domain and cycle)', async () => {
    const rig = await rigs();
    const cycles: Asked[] = [];
    for (let k = 0; k < 3; k++) cycles.push(await asked(rig, k === 0 ? 0 : MIN));
    expect((await rig.scrape())[mismatches('clock_offset')]).toBe(0);
    expect(cycles.map((n) => n.access)).toEqual([4, 4, 4]);
  });
});

interface Asked {
  readonly access: number;
  readonly usage: number;
}

/** One clean cycle, and the requests the simulator received of each statistics operation during it. */
async function asked(rig: Rig, advanceMs: number): Promise<Asked> {
  const count = (op: string) => rig.sim.budget.received().filter((r) => r.operation === op).length;
  const before = { access: count(ACCESS_OP), usage: count(USAGE_OP) };
  expectClean(await rig.cycle(advanceMs));
  return { access: count(ACCESS_OP) - before.access, usage: count(USAGE_OP) - before.usage };
}
