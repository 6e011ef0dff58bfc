// The access collector against the simulator: counters equal the simulator's
// settled ground truth for exactly the buckets counted, gauges equal what the
// API computes, and a cycle costs one request per domain.
import { describe, expect, it } from 'vitest';
import type { DescribeL7DataV2Request, ReadClient } from '../../../src/api/index.js';
import { createAccessCollector, type AccessOptions } from '../../../src/collectors/access/index.js';
import {
  DOMAIN_BANDWIDTH, DOMAIN_BANDWIDTH_P95, DOMAIN_BANDWIDTH_PEAK, DOMAIN_REQUEST_TIME, DOMAIN_REQUESTS, DOMAIN_RESPONSES, DOMAIN_TRAFFIC_BYTES,
} from '../../../src/collectors/access/metrics.js';
import { alignDown } from '../../../src/collectors/buckets.js';
import type { StatMetric } from '../../../src/simulator/stats.js';
import { Driver, HOUR, MIN, T0, useSim } from '../series/sim-driver.js';

const rig = useSim();
const OPTIONS: AccessOptions = { interval: '1m', delayMs: 3 * MIN, maxBackfillMs: 6 * HOUR, timestamps: false, api: 'v2', summaryWindowMs: 30 * MIN };
const UTC8 = 480;

function driver(options: Partial<AccessOptions> = {}, extra: ConstructorParameters<typeof Driver>[3] = {}): Driver {
  return new Driver(rig, createAccessCollector({ ...OPTIONS, ...options }), { domains: rig.sim.truth.domains(), packages: [] }, extra);
}

/** Every counter series of every domain equals the settled truth over [from, to). */
function expectCounters(d: Driver, from: number, to: number, metrics: Array<[string, Record<string, string>, StatMetric]> = COUNTERS): void {
  const truth = rig.sim.truth;
  for (const domain of truth.domains()) {
    for (const [family, labels, metric] of metrics) {
      expect(d.counter(family, { domain, ...labels }), `${family} ${domain} ${JSON.stringify(labels)}`).toBe(truth.domainTotal(domain, metric, from, to));
    }
  }
}

const COUNTERS: Array<[string, Record<string, string>, StatMetric]> = [
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'edge' }, 'bytesSent'],
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'origin' }, 'upstreamBytesSent'],
  [DOMAIN_REQUESTS.name, {}, 'requests'],
  ...(['1xx', '2xx', '3xx', '4xx', '5xx'] as const).map((c): [string, Record<string, string>, StatMetric] => [DOMAIN_RESPONSES.name, { code_class: c }, `status${c}`]),
];

describe('access collector against the simulator', () => {
  it('counts every settled bucket once over consecutive cycles, one request per domain and cycle', async () => {
    const d = driver();
    await d.cycles(6, MIN);
    // First cycle at T0: series start after T0-4m; the last (T0+5m) counted through T0+1m.
    expectCounters(d, T0 - 3 * MIN, T0 + 2 * MIN);
    expect(rig.sim.truth.total('bytesSent', T0 - 3 * MIN, T0 + 2 * MIN)).toBeGreaterThan(0);
    const n = rig.sim.truth.domains().length;
    expect(d.requests).toEqual(Array.from({ length: 6 }, () => ({ describeL7DataV2: n })));
  });

  it('gauges equal the API: latest settled bucket, peak and p95 over the window, request time in seconds', async () => {
    const d = driver({ timestamps: true });
    rig.sim.clock.set(T0 + 17 * MIN + 25_000);
    await d.cycle();
    const now = rig.sim.clock.now();
    const { truth } = rig.sim;
    const lastSettled = T0 + 13 * MIN;
    const current = T0 + 17 * MIN;
    const windowStart = alignDown('1m', now - 30 * MIN, UTC8);
    for (const domain of truth.domains()) {
      for (const [source, metric] of [['edge', 'bytesSent'], ['origin', 'upstreamBytesSent']] as const) {
        const labels = { domain, source };
        const window: number[] = [];
        for (let s = windowStart; s <= current; s += MIN) window.push(truth.bandwidth(truth.reported(domain, metric, '1m', s, now) ?? 0, '1m'));
        expect(d.gauge(DOMAIN_BANDWIDTH.name, labels)).toEqual({
          name: DOMAIN_BANDWIDTH.name, labels, value: truth.bandwidth(truth.bucket(domain, metric, '1m', lastSettled), '1m') / 8, timestampMs: lastSettled, bucketStartMs: lastSettled,
        });
        expect(d.gauge(DOMAIN_BANDWIDTH_PEAK.name, labels)?.value).toBe(Math.max(...window) / 8);
        expect(d.gauge(DOMAIN_BANDWIDTH_P95.name, labels)?.value).toBe(truth.percentile95(window) / 8);
        expect(d.gauge(DOMAIN_BANDWIDTH_PEAK.name, labels)?.timestampMs).toBe(current);
      }
      expect(d.gauge(DOMAIN_REQUEST_TIME.name, { domain })?.value).toBe(truth.requestTime(domain, '1m', lastSettled) / 1000);
    }
  });

  it('back-fills a downtime gap exactly, in chunks outside the gauge window, with progress in the log', async () => {
    const d = driver({ maxBucketsPerRequest: 60 });
    await d.cycles(2, 3 * HOUR);
    // Second cycle at T0+3h: counts T0-3m .. T0+3h-4m; back-fill T0-3m .. window start - 1m = 153 buckets = 3 chunks.
    expectCounters(d, T0 - 3 * MIN, T0 + 3 * HOUR - 3 * MIN);
    const n = rig.sim.truth.domains().length;
    expect(d.requests[1]).toEqual({ describeL7DataV2: 4 * n });
    const progress = d.logs.filter((l) => l.level === 'info' && l.msg === 'back-filled');
    expect(progress).toHaveLength(3 * n);
    expect(progress[0]?.fields).toMatchObject({ collector: 'access', chunk: 1, of: 3, from: '2026-03-02T11:57:00+08:00' });
  });

  it('gives up buckets older than max_backfill and says how many', async () => {
    const d = driver({ maxBackfillMs: HOUR });
    await d.cycles(2, 3 * HOUR);
    const lastSettled = T0 + 3 * HOUR - 4 * MIN;
    expectCounters(d, lastSettled - HOUR, lastSettled + MIN);
    const warns = d.logs.filter((l) => l.level === 'warn');
    expect(warns).toHaveLength(rig.sim.truth.domains().length);
    expect(warns[0]?.fields).toMatchObject({ collector: 'access', skipped: (lastSettled - HOUR - (T0 - 3 * MIN)) / MIN });
  });

  it('continues exactly after a restart from persisted watermarks', async () => {
    const before = driver();
    await before.cycles(3, MIN);
    const after = before.restart(createAccessCollector(OPTIONS));
    rig.sim.clock.advance(10 * MIN);
    await after.cycles(2, MIN);
    // Last cycle at T0+14m: counted through T0+10m.
    expectCounters(after, T0 - 3 * MIN, T0 + 11 * MIN);
  });

  it('a failed request or data: null holds that domain back; a later cycle catches up exactly', async () => {
    const d = driver();
    const n = rig.sim.truth.domains().length;
    await d.cycles(1, MIN);
    for (const fault of [{ status5xx: 503 }, { dataNull: true }]) {
      rig.sim.faults.add({ operations: ['describeL7DataV2'], count: 1, ...fault });
      const out = await d.cycle();
      expect(out.errors).toHaveLength('status5xx' in fault ? 1 : 0);
      // One domain got nothing: no bandwidth for it this cycle, its watermarks held.
      expect(out.gauges.get(DOMAIN_BANDWIDTH.name)).toHaveLength(2 * (n - 1));
      const lastSettled = rig.sim.clock.now() - 4 * MIN;
      expect(Object.values(out.watermarks).filter((w) => w !== lastSettled)).toHaveLength(COUNTERS.length);
      rig.sim.clock.advance(MIN);
    }
    await d.cycle();
    expectCounters(d, T0 - 3 * MIN, T0);
  });

  it('throws when every request fails', async () => {
    const d = driver();
    rig.sim.faults.add({ operations: ['describeL7DataV2'], status5xx: 500 });
    await expect(d.cycle()).rejects.toThrow();
  });

  it('denied families cost no request items, and all denied costs no request', async () => {
    const seen: DescribeL7DataV2Request[] = [];
    const client: ReadClient = { ...rig.client, describeL7DataV2: (r, o) => (seen.push(r), rig.client.describeL7DataV2(r, o)) };
    const partly = driver({}, { client, enabled: (f) => f !== DOMAIN_RESPONSES.name && f !== DOMAIN_REQUEST_TIME.name });
    await partly.cycles(2, MIN);
    expect(new Set(seen.flatMap((r) => r.action.map((a) => a.metricName)))).toEqual(new Set(['trafficTrend', 'bandwidthTrend', 'requestTrend']));
    const none = driver({}, { enabled: () => false });
    await none.cycles(2, MIN);
    expect(none.requests).toEqual([{}, {}]);
  });

  it('api v1: traffic and requests from describeL7Data, one request per terminal', async () => {
    const d = driver({ api: 'v1' });
    await d.cycles(4, MIN);
    expectCounters(d, T0 - 3 * MIN, T0, COUNTERS.slice(0, 3));
    expect(d.requests.at(-1)).toEqual({ describeL7Data: 2 * rig.sim.truth.domains().length });
    const domain = rig.sim.truth.domains()[0] ?? '';
    expect(d.gauge(DOMAIN_BANDWIDTH.name, { domain, source: 'origin' })?.value)
      .toBe(rig.sim.truth.bandwidth(rig.sim.truth.bucket(domain, 'upstreamBytesSent', '1m', T0 - MIN), '1m') / 8);
  });
});
