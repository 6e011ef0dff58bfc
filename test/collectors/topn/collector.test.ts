// The top-N collector against the simulator: the exported ranking equals the
// simulator's (each domain's settled window total split over its terms), the
// rest is __other__, families are replaced every cycle, one request per mostDimension.
import { describe, expect, it } from 'vitest';
import { createTopnCollector, type TopnOptions } from '../../../src/collectors/topn/index.js';
import { OTHER_KEY, TOPN_REQUESTS, TOPN_TRAFFIC_BYTES } from '../../../src/collectors/topn/metrics.js';
import type { Sample } from '../../../src/collectors/collector.js';
import { split, termsFor } from '../../../src/simulator/terms.js';
import { Driver, MIN, T0, useSim } from '../series/sim-driver.js';

const rig = useSim({ domains: 8 });
const OPTIONS: TopnOptions = {
  interval: '1m', delayMs: 3 * MIN, maxBackfillMs: 0, timestamps: false,
  dimensions: ['domain', 'url'], by: ['requestCount', 'trafficSum'], top: 3, other: true, windowMs: 30 * MIN,
};

function driver(options: Partial<TopnOptions> = {}, enabled?: (f: string) => boolean): Driver {
  return new Driver(rig, createTopnCollector({ ...OPTIONS, ...options }), { domains: rig.sim.truth.domains(), packages: [] }, enabled ? { enabled } : {});
}

/** The simulator's ranking over the settled window [from, to): top N then the rest, as the collector should export it, each for the window's newest bucket. */
function expected(family: string, dimension: 'domain' | 'url', metric: 'requests' | 'bytesSent', from: number, to: number, top: number): Sample[] {
  const { truth, world } = rig.sim;
  const terms = new Map<string, number>();
  for (const domain of truth.domains()) {
    const total = truth.domainTotal(domain, metric, from, to);
    for (const [name, v] of split(world.seed, `${domain}|${dimension}`, total, termsFor(world.seed, dimension, domain))) terms.set(name, (terms.get(name) ?? 0) + v);
  }
  const ranked = [...terms].filter(([, v]) => v > 0).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  const listed = ranked.slice(0, top);
  const rest = ranked.slice(top).reduce((a, [, v]) => a + v, 0);
  const bucketStartMs = to - MIN;
  return [
    ...listed.map(([key, value]) => ({ name: family, labels: { dimension, key }, value, bucketStartMs })),
    ...(rest > 0 ? [{ name: family, labels: { dimension, key: OTHER_KEY }, value: rest, bucketStartMs }] : []),
  ];
}

describe('top-N collector against the simulator', () => {
  it('exports the simulator\'s top N and __other__ over the settled window, one request per mostDimension', async () => {
    const d = driver();
    rig.sim.clock.set(T0 + 20_000);
    await d.cycle();
    // Settled window: buckets T0-33m .. T0-4m.
    const [from, to] = [T0 - 33 * MIN, T0 - 3 * MIN];
    expect(d.gauges.get(TOPN_REQUESTS.name)).toEqual([
      ...expected(TOPN_REQUESTS.name, 'domain', 'requests', from, to, 3), ...expected(TOPN_REQUESTS.name, 'url', 'requests', from, to, 3),
    ]);
    expect(d.gauges.get(TOPN_TRAFFIC_BYTES.name)).toEqual([
      ...expected(TOPN_TRAFFIC_BYTES.name, 'domain', 'bytesSent', from, to, 3), ...expected(TOPN_TRAFFIC_BYTES.name, 'url', 'bytesSent', from, to, 3),
    ]);
    expect(d.requests).toEqual([{ describeL7MostData: 2 }]);
  });

  it('replaces the families every cycle: the ranking follows the window', async () => {
    const d = driver({ top: 2, by: ['requestCount'], dimensions: ['domain'], windowMs: 5 * MIN });
    await d.cycles(2, 2 * 60 * MIN);
    const now = rig.sim.clock.now() - 2 * 60 * MIN;
    const to = now - 3 * MIN;
    expect(d.gauges.get(TOPN_REQUESTS.name)).toEqual(expected(TOPN_REQUESTS.name, 'domain', 'requests', to - 5 * MIN, to, 2));
    expect(d.requests).toEqual([{ describeL7MostData: 1 }, { describeL7MostData: 1 }]);
  });

  it('a denied family costs no request; a failed request keeps the family out of the cycle', async () => {
    const d = driver({}, (f) => f === TOPN_TRAFFIC_BYTES.name);
    const out = await d.cycle();
    expect([...out.gauges.keys()]).toEqual([TOPN_TRAFFIC_BYTES.name]);
    expect(d.requests).toEqual([{ describeL7MostData: 1 }]);
    rig.sim.faults.add({ operations: ['describeL7MostData'], status5xx: 502, count: 1 });
    const failed = await driver().cycle();
    expect(failed.gauges.size).toBe(1);
    expect(failed.errors).toHaveLength(1);
  });

  it('no domain selected: empty families and no request', async () => {
    const d = new Driver(rig, createTopnCollector(OPTIONS), { domains: [], packages: [] });
    const out = await d.cycle();
    expect(Object.fromEntries(out.gauges)).toEqual({ [TOPN_REQUESTS.name]: [], [TOPN_TRAFFIC_BYTES.name]: [] });
    expect(d.requests).toEqual([{}]);
  });
});
