// Per-target freshness against the simulator: one domain whose data stops
// (its answers say nothing, data: null) keeps its newest bucket end while the
// other domains' move on; the run report carries one end per domain.
import { describe, expect, it } from 'vitest';
import { createAccessCollector } from '../../../src/collectors/access/index.js';
import { Driver, HOUR, MIN, T0, useSim } from '../series/sim-driver.js';

const rig = useSim();

describe('access collector: newest bucket end per domain', () => {
  it("holds a quiet domain's end while the others advance, one entry per domain", async () => {
    const domains = rig.sim.truth.domains();
    const [quiet, ...others] = domains;
    if (quiet === undefined) throw new Error('the simulator has no domain');
    const d = new Driver(rig, createAccessCollector({ interval: '1m', delayMs: 3 * MIN, maxBackfillMs: 6 * HOUR, timestamps: false, api: 'v2', summaryWindowMs: 30 * MIN }), { domains, packages: [] });
    const first = await d.cycle();
    // First sight: every domain starts after the last settled bucket, T0-4m, which ends at T0-3m.
    expect(first.targetNewestBucketEndMs).toEqual(new Map(domains.map((x) => [x, T0 - 3 * MIN])));
    rig.sim.faults.add({ dataNull: true, domains: [quiet], operations: ['describeL7DataV2'] });
    rig.sim.clock.set(T0 + 10 * MIN);
    const later = await d.cycle();
    expect(later.targetNewestBucketEndMs?.size).toBe(domains.length);
    expect(later.targetNewestBucketEndMs?.get(quiet)).toBe(T0 - 3 * MIN);
    for (const other of others) expect(later.targetNewestBucketEndMs?.get(other), other).toBe(T0 + 7 * MIN);
    expect(later.newestBucketEndMs).toBe(T0 + 7 * MIN);
  });
});
