// Readings that change the statistics operations (4-8): each is compared with
// the default answer or the ground truth on one simulator whose readings are
// put back to their defaults (and clock to T0) before every test.
import { describe, expect, it } from 'vitest';
import { DAY, HOUR, items, MIN, params, type Point, sumPoints, T0, useReadingsSim } from './helpers.js';

const rig = useReadingsSim({ domains: 6 });

// Settled at T0: every bucket ended more than the revision delay ago.
const FROM = T0 - 6 * HOUR;
const TO = T0 - HOUR;

type Series = Record<string, Point[]>;
const seriesOf = (item: Record<string, unknown> | undefined) => (item?.objectArrayListMap ?? {}) as Series;
const mapOf = (item: Record<string, unknown> | undefined, key: string) => (item?.[key] ?? {}) as Record<string, number>;

function usage(metricName: string, interval: string, p: unknown = params(FROM, TO)) {
  return rig.h.call('describeL7UsageData', { interval, oids: [], params: p, action: [{ metricName }] });
}

function v2(metricName: string, extra: Record<string, unknown> = {}) {
  return rig.h.call('describeL7DataV2', { action: [{ metricName }], domains: [], interval: '5m', params: params(FROM, TO), ...extra });
}

function v1(metricName: string) {
  return rig.h.call('describeL7Data', {
    action: [{ metricName }], domains: [], interval: '5m', params: params(FROM, TO), terminal: 'cdn', mostDimension: 'requestCount', pageNum: 1, pageSize: 10,
  });
}

/** Every domain's edge bytes in one 5-minute bucket. */
const bytesIn5m = (t: number) => rig.h.sim.truth.total('bytesSent', t, t + 5 * MIN);

describe('reading bandwidthUnit', () => {
  it('bytes_per_second: every bandwidth value is floor(bytes / seconds), in 4, 5 and 6', async () => {
    const bits = seriesOf(items(await usage('bandwidthTrend', '5m'))[0]).outBandwidth ?? [];
    rig.h.sim.readings.merge({ bandwidthUnit: 'bytes_per_second' });
    const [usageItem] = items(await usage('bandwidthTrend', '5m'));
    const out = seriesOf(usageItem).outBandwidth ?? [];
    expect(out).toHaveLength(60);
    out.forEach(([t, v], i) => {
      expect(v).toBe(Math.floor(bytesIn5m(t) / 300));
      expect(bits[i]).toEqual([t, Math.floor((bytesIn5m(t) * 8) / 300)]);
      expect(v).toBe(rig.h.sim.truth.bandwidth(bytesIn5m(t), '5m'));
    });
    expect(mapOf(usageItem, 'totalMap').maxOutBandwidth).toBe(Math.max(...out.map((p) => p[1])));

    const [access] = items(await v2('bandwidthTrend'));
    const edge = seriesOf(access).bytesSent ?? [];
    expect(edge).toEqual(out);
    expect(mapOf(access, 'maxMap').bytesSent95Peak).toBe(rig.h.sim.truth.percentile95(out.map((p) => p[1])));

    const [legacy] = items(await v1('bandwidthTrend'));
    expect((legacy?.data as { trend: Point[] }).trend).toEqual(out);
  });

  it('truth.bandwidth follows the reading unless given a unit', () => {
    rig.h.sim.readings.merge({ bandwidthUnit: 'bytes_per_second' });
    expect(rig.h.sim.truth.bandwidth(6000, '1m')).toBe(100);
    expect(rig.h.sim.truth.bandwidth(6000, '1m', 'bits_per_second')).toBe(800);
  });
});

describe('reading totalsSkew', () => {
  it('reports every totalMap as floor(sum of points × factor) and leaves the points alone', async () => {
    const plain = items(await v2('requestTrend'))[0];
    rig.h.sim.readings.merge({ totalsSkew: 1.1 });
    const [requests] = items(await v2('requestTrend'));
    const points = seriesOf(requests).requestCounter ?? [];
    expect(points).toEqual(seriesOf(plain).requestCounter);
    expect(mapOf(plain, 'totalMap').requestCounter).toBe(sumPoints(points));
    expect(mapOf(requests, 'totalMap').requestCounter).toBe(Math.floor(sumPoints(points) * 1.1));

    const [status] = items(await v2('statusCodeTrend'));
    expect(mapOf(status, 'totalMap')['4xx']).toBe(Math.floor(sumPoints(seriesOf(status).list4xx ?? []) * 1.1));
    const [traffic] = items(await v2('trafficTrend'));
    expect(mapOf(traffic, 'totalMap').bytesSent).toBe(Math.floor(sumPoints(seriesOf(traffic).bytesSent ?? []) * 1.1));

    const [trend] = items(await usage('trafficTrend', '1h'));
    const out = sumPoints(seriesOf(trend).ouTraffic ?? []);
    expect(out).toBe(rig.h.sim.truth.total('bytesSent', FROM, TO));
    expect(mapOf(trend, 'totalMap').outTotalTraffic).toBe(Math.floor(out * 1.1));
    expect(mapOf(items(await usage('totalTraffic', '1h'))[0], 'totalMap')).toEqual(mapOf(trend, 'totalMap'));
  });
});

describe('reading lateRevision', () => {
  const S = T0 - 30 * MIN;
  const END = S + MIN;
  const after = 20 * MIN;
  const one = async (domain: string) =>
    (seriesOf(items(await v2('requestTrend', { domains: [domain], interval: '1m', params: params(S, END) }))[0]).requestCounter ?? [])[0]?.[1];

  it('reports the settled value until afterMs past the end, then floor(settled × factor)', async () => {
    const domain = rig.h.sim.truth.domains()[0] ?? '';
    const settled = rig.h.sim.truth.bucket(domain, 'requests', '1m', S);
    rig.h.sim.readings.merge({ lateRevision: { afterMs: after, factor: 1.25 } });
    rig.h.sim.clock.set(END + after - 1000);
    expect(await one(domain)).toBe(settled);
    expect(rig.h.sim.truth.reported(domain, 'requests', '1m', S, rig.h.sim.clock.now())).toBe(settled);
    rig.h.sim.clock.set(END + after);
    expect(await one(domain)).toBe(Math.floor(settled * 1.25));
    expect(rig.h.sim.truth.revised(domain, 'requests', '1m', S)).toBe(Math.floor(settled * 1.25));
    expect(Math.floor(settled * 1.25)).toBeGreaterThan(settled);
  });

  it('revises downward below 1, and truth.revisedTotal is what a revised window adds up to', async () => {
    rig.h.sim.readings.merge({ lateRevision: { afterMs: 0, factor: 0.8 } });
    const total = mapOf(items(await v2('requestTrend', { interval: '1m' }))[0], 'totalMap').requestCounter;
    expect(total).toBe(rig.h.sim.truth.revisedTotal('requests', '1m', FROM, TO));
    expect(total).toBeLessThan(rig.h.sim.truth.total('requests', FROM, TO));
    const domain = rig.h.sim.truth.domains()[1] ?? '';
    expect(rig.h.sim.truth.revisedSample(domain, '1h', FROM).requests).toBe(Math.floor(rig.h.sim.truth.bucket(domain, 'requests', '1h', FROM) * 0.8));
    rig.h.sim.readings.merge({ lateRevision: null });
    expect(rig.h.sim.truth.revised(domain, 'requests', '1h', FROM)).toBe(rig.h.sim.truth.bucket(domain, 'requests', '1h', FROM));
  });
});

describe('reading ignoreRanges', () => {
  it('answers the 60 buckets up to now whatever beginTime and endTime say', async () => {
    const current = seriesOf(items(await usage('trafficTrend', '5m', params(T0 - 59 * 5 * MIN, T0 + 5 * MIN)))[0]);
    rig.h.sim.readings.merge({ ignoreRanges: true });
    const ignored = seriesOf(items(await usage('trafficTrend', '5m', params(T0 - 3 * DAY, T0 - 3 * DAY + HOUR)))[0]);
    expect(ignored).toEqual(current);
    const out = ignored.ouTraffic ?? [];
    expect(out).toHaveLength(60);
    expect(out[0]?.[0]).toBe(T0 - 59 * 5 * MIN);
    expect(out.at(-1)?.[0]).toBe(T0);
  });

  it('applies to the optional ranges of operations 7 and 8 as well', async () => {
    const cc = (p?: unknown) => rig.h.call('describeL7CCAttack', { interval: '1h', domains: [], ...(p ? { params: p } : {}) });
    const most = (p: unknown) => rig.h.call('describeL7MostData', {
      interval: '1h', params: p, mostDimension: 'requestCount', pageNum: 1, pageSize: 10, otherFilter: [], action: [{ metricName: 'url' }],
    });
    const last60 = params(T0 - 59 * HOUR, T0 + HOUR);
    const [ccCurrent, mostCurrent] = [items(await cc(last60)), items(await most(last60))];
    rig.h.sim.readings.merge({ ignoreRanges: true });
    const ccIgnored = items(await cc());
    expect(ccIgnored).toEqual(ccCurrent);
    expect((ccIgnored[0]?.data as { trend: Point[] }).trend.map((p) => p[0])).toEqual(Array.from({ length: 60 }, (_, i) => T0 - (59 - i) * HOUR));
    const mostIgnored = items(await most(params(T0 - 2 * DAY, T0 - 2 * DAY + HOUR)));
    expect(mostIgnored).toEqual(mostCurrent);
    expect((mostIgnored[0]?.data as { total: number }).total).toBeGreaterThan(rig.h.sim.truth.total('requests', T0 - 2 * DAY, T0 - 2 * DAY + HOUR));
  });
});

describe('reading clockOffsetMs', () => {
  const window = () => v2('requestTrend', { interval: '1m', params: params(T0 - HOUR, T0 + HOUR) });

  it('answers as the default does 10 minutes earlier', async () => {
    rig.h.sim.readings.merge({ clockOffsetMs: 10 * MIN });
    const behind = items(await window());
    const points = seriesOf(behind[0]).requestCounter ?? [];
    expect(points.at(-1)?.[0]).toBe(T0 - 10 * MIN);
    const domain = rig.h.sim.truth.domains()[0] ?? '';
    const one = seriesOf(items(await v2('requestTrend', { domains: [domain], interval: '1m', params: params(T0 - 12 * MIN, T0 - 11 * MIN) }))[0]).requestCounter;
    expect(one?.[0]?.[1]).toBe(rig.h.sim.truth.reported(domain, 'requests', '1m', T0 - 12 * MIN, T0));
    rig.h.sim.readings.reset();
    rig.h.sim.clock.set(T0 - 10 * MIN);
    expect(items(await window())).toEqual(behind);
    expect(one?.[0]?.[1]).toBeLessThan(rig.h.sim.truth.bucket(domain, 'requests', '1m', T0 - 12 * MIN));
  });

  it('keeps futurePoints after the simulator clock too, where the upstream runs behind', async () => {
    rig.h.sim.readings.merge({ clockOffsetMs: 10 * MIN });
    rig.h.sim.faults.add({ futurePoints: 3, operations: ['describeL7DataV2'], count: 1 });
    const points = seriesOf(items(await window())[0]).requestCounter ?? [];
    const future = points.filter((p) => p[1] >= 1e12);
    expect(future).toHaveLength(3);
    expect(Math.min(...future.map((p) => p[0]))).toBeGreaterThan(T0);
    expect(points.filter((p) => p[1] < 1e12).at(-1)?.[0]).toBe(T0 - 10 * MIN);
  });

  it('runs ahead when negative', async () => {
    rig.h.sim.readings.merge({ clockOffsetMs: -10 * MIN });
    expect((seriesOf(items(await window())[0]).requestCounter ?? []).at(-1)?.[0]).toBe(T0 + 10 * MIN);
  });
});

describe('reading paramsZone', () => {
  /** Wall-clock text of `ms` in a zone `hours` east of UTC. */
  const textIn = (ms: number, hours: number) => new Date(ms + hours * HOUR).toISOString().slice(0, 19).replace('T', ' ');

  it('reads beginTime and endTime in the given offset', async () => {
    const platform = items(await usage('trafficTrend', '1h'));
    rig.h.sim.readings.merge({ paramsZone: '+00:00' });
    const utc = { beginTime: textIn(FROM, 0), endTime: textIn(TO, 0) };
    expect(items(await usage('trafficTrend', '1h', utc))).toEqual(platform);
    // The platform's own text, read 8 hours later.
    const shifted = seriesOf(items(await usage('trafficTrend', '1h', params(FROM - 12 * HOUR, TO - 12 * HOUR)))[0]).ouTraffic ?? [];
    expect(shifted.map((p) => p[0])).toEqual(Array.from({ length: 5 }, (_, i) => FROM - 4 * HOUR + i * HOUR));
  });

  it('takes any offset, e.g. +09:00 reads an hour earlier than the platform', async () => {
    rig.h.sim.readings.merge({ paramsZone: '+09:00' });
    const points = seriesOf(items(await usage('trafficTrend', '1h'))[0]).ouTraffic ?? [];
    expect(points[0]?.[0]).toBe(FROM - HOUR);
  });
});

describe('reading omitZeroBuckets', () => {
  it('leaves out exactly the zero points of every series; the others are as by default', async () => {
    // One domain at 1m: its rarer status classes are idle in many buckets.
    const one = { domains: [rig.h.sim.truth.domains()[0]], interval: '1m' };
    const [plain] = items(await v2('statusCodeTrend', one));
    rig.h.sim.readings.merge({ omitZeroBuckets: true });
    const [sparse] = items(await v2('statusCodeTrend', one));
    const keys = Object.keys(seriesOf(plain));
    expect(keys.length).toBeGreaterThan(0);
    let zeros = 0;
    for (const key of keys) {
      const all = seriesOf(plain)[key] ?? [];
      zeros += all.filter(([, v]) => v === 0).length;
      expect(seriesOf(sparse)[key], key).toEqual(all.filter(([, v]) => v !== 0));
    }
    // Some status class is idle in some bucket, or the reading would test nothing.
    expect(zeros).toBeGreaterThan(0);
  });
});
