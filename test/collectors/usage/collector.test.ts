// The usage collector against the simulator: per-package traffic equals the
// settled truth of the package's domains, bandwidth gauges equal the API's,
// and a cycle costs one request per package.
import { describe, expect, it } from 'vitest';
import { alignDown } from '../../../src/collectors/buckets.js';
import { createUsageCollector, type UsageOptions } from '../../../src/collectors/usage/index.js';
import { PACKAGE_BANDWIDTH, PACKAGE_BANDWIDTH_PEAK, PACKAGE_TRAFFIC_BYTES } from '../../../src/collectors/usage/metrics.js';
import { Driver, HOUR, MIN, T0, useSim } from '../series/sim-driver.js';

const rig = useSim();
const OPTIONS: UsageOptions = { interval: '1m', delayMs: 3 * MIN, maxBackfillMs: 6 * HOUR, timestamps: false, summaryWindowMs: 20 * MIN };

const packages = () => rig.sim.world.l7Packages.map((p) => p.alias);
const domainsOf = (pkg: string) => rig.sim.world.domains.filter((d) => d.doid === pkg).map((d) => d.domainName);

function driver(options: Partial<UsageOptions> = {}, enabled?: (f: string) => boolean): Driver {
  return new Driver(rig, createUsageCollector({ ...OPTIONS, ...options }), { domains: [], packages: packages() }, enabled ? { enabled } : {});
}

function expectTraffic(d: Driver, from: number, to: number): void {
  for (const pkg of packages()) {
    const domains = domainsOf(pkg);
    expect(d.counter(PACKAGE_TRAFFIC_BYTES.name, { package: pkg, direction: 'in' })).toBe(rig.sim.truth.total('inBytes', from, to, domains));
    expect(d.counter(PACKAGE_TRAFFIC_BYTES.name, { package: pkg, direction: 'out' })).toBe(rig.sim.truth.total('bytesSent', from, to, domains));
  }
}

describe('usage collector against the simulator', () => {
  it('counts each settled bucket once, one request per package and cycle', async () => {
    const d = driver();
    await d.cycles(5, MIN);
    expectTraffic(d, T0 - 3 * MIN, T0 + MIN);
    expect(d.requests).toEqual(Array.from({ length: 5 }, () => ({ describeL7UsageData: packages().length })));
  });

  it('back-fills downtime exactly (5m buckets, chunked), then keeps going after a restart', async () => {
    const d = driver({ interval: '5m', maxBucketsPerRequest: 12 });
    await d.cycles(2, 4 * HOUR);
    rig.sim.clock.set(T0 + 4 * HOUR + 5 * MIN);
    const after = d.restart(createUsageCollector({ ...OPTIONS, interval: '5m', maxBucketsPerRequest: 12 }));
    await after.cycles(2, 5 * MIN);
    // Cycles at T0, T0+4h, T0+4h5m, T0+4h10m; delay 3m: last settled at T0+4h10m is T0+4h.
    expectTraffic(after, T0 - 5 * MIN, T0 + 4 * HOUR + 5 * MIN);
    // Back-fill T0-5m .. T0+3h35m outside the 20 min window: ceil(44 / 12) = 4 chunks + main per package.
    expect(d.requests[1]).toEqual({ describeL7UsageData: 5 * packages().length });
  });

  it('gauges: bandwidth of the latest settled bucket and the window peak, summed over the package', async () => {
    const d = driver({ timestamps: true });
    rig.sim.clock.set(T0 + 9 * MIN + 10_000);
    await d.cycle();
    const now = rig.sim.clock.now();
    const { truth } = rig.sim;
    const lastSettled = T0 + 5 * MIN;
    for (const pkg of packages()) {
      const domains = domainsOf(pkg);
      for (const [direction, metric] of [['in', 'inBytes'], ['out', 'bytesSent']] as const) {
        const labels = { package: pkg, direction };
        expect(d.gauge(PACKAGE_BANDWIDTH.name, labels)).toEqual({
          name: PACKAGE_BANDWIDTH.name, labels, value: truth.bandwidth(truth.total(metric, lastSettled, lastSettled + MIN, domains), '1m') / 8, timestampMs: lastSettled, bucketStartMs: lastSettled,
        });
        const window: number[] = [];
        for (let s = alignDown('1m', now - 20 * MIN, 480); s <= now; s += MIN) {
          window.push(truth.bandwidth(domains.reduce((a, dom) => a + (truth.reported(dom, metric, '1m', s, now) ?? 0), 0), '1m'));
        }
        expect(d.gauge(PACKAGE_BANDWIDTH_PEAK.name, labels)?.value).toBe(Math.max(...window) / 8);
      }
    }
  });

  it('denied gauges drop bandwidthTrend but keep the one request; all denied sends none', async () => {
    const counters = driver({}, (f) => f === PACKAGE_TRAFFIC_BYTES.name);
    await counters.cycles(3, MIN);
    expect(counters.requests).toEqual([{}, { describeL7UsageData: packages().length }, { describeL7UsageData: packages().length }]);
    expectTraffic(counters, T0 - 3 * MIN, T0 - 1 * MIN);
    const none = driver({}, () => false);
    await none.cycles(2, MIN);
    expect(none.requests).toEqual([{}, {}]);
  });
});
