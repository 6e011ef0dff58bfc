// Readings that change the WAF log query (operation 1), each compared with
// the default answer or the ground truth; readings and clock are put back
// before every test.
import { describe, expect, it } from 'vitest';
import type { WafRecord } from '../../src/simulator/waf.js';
import { DAY, HOUR, items, MIN, params, type Point, sumPoints, T0, useReadingsSim } from './helpers.js';

const rig = useReadingsSim({ domains: 6 });

const HOUR_RANGE = params(T0 - HOUR, T0);

async function trend(p: unknown = HOUR_RANGE, extra: Record<string, unknown> = {}) {
  const res = await rig.h.call('describeLogV2', { action: [{ metricName: 'logTread' }], otherFilter: [], params: p, ...extra });
  const [item] = items(res);
  return { count: Number(item?.count), points: item?.objectArrayList as Point[] };
}

async function logs(p: unknown = HOUR_RANGE): Promise<WafRecord[]> {
  const res = await rig.h.call('describeLogV2', { action: [{ metricName: 'logs', pageSize: 10_000 }], otherFilter: [], params: p });
  return (items(res)[0]?.list ?? []) as WafRecord[];
}

const visible = (from: number, to: number) => rig.h.sim.truth.wafEvents(from, to, { visibleAt: rig.h.sim.clock.now() });

describe('reading logTreadBucketMs', () => {
  it('lists whole hour buckets from before beginTime, each counting its whole hour', async () => {
    rig.h.sim.readings.merge({ logTreadBucketMs: HOUR });
    const begin = T0 - 100 * MIN;
    const end = T0 - 20 * MIN;
    const { count, points } = await trend(params(begin, end));
    expect(points.map((p) => p[0])).toEqual([T0 - 2 * HOUR, T0 - HOUR]);
    points.forEach(([t, v]) => expect(v).toBe(visible(t, t + HOUR).length));
    expect(points[0]?.[1]).toBeGreaterThan(visible(begin, T0 - HOUR).length);
    expect(count).toBe(sumPoints(points));
    expect(count).toBeGreaterThan(visible(begin, end).length);
    // The logs keep to the range.
    expect((await logs(params(begin, end))).length).toBe(visible(begin, end).length);
  });

  it('uses the size whatever the range: 5 minutes over an hour, and a platform day', async () => {
    rig.h.sim.readings.merge({ logTreadBucketMs: 5 * MIN });
    const fine = await trend(params(T0 - HOUR - 2 * MIN, T0));
    expect(fine.points).toHaveLength(13);
    expect(fine.points[0]).toEqual([T0 - 65 * MIN, visible(T0 - 65 * MIN, T0 - 60 * MIN).length]);
    rig.h.sim.readings.merge({ logTreadBucketMs: DAY });
    const day = await trend();
    const midnight = T0 - 12 * HOUR;
    expect(day.points).toEqual([[midnight, visible(midnight, midnight + DAY).length]]);
    const deny = await trend(HOUR_RANGE, { searchHeader: { action: 'deny' } });
    expect(deny.points).toEqual([[midnight, visible(midnight, T0).filter((e) => e.record.response.httpCode === 417).length]]);
  });
});

describe('reading logTreadStrictRange', () => {
  it('lists only the buckets beginning inside the range, each still whole; a range no bucket begins in lists none', async () => {
    rig.h.sim.readings.merge({ logTreadBucketMs: 5 * MIN });
    const begin = T0 - 23 * MIN;
    const end = T0 - 2 * MIN;
    const lenient = await trend(params(begin, end));
    expect(lenient.points.map((p) => p[0])).toEqual([T0 - 25 * MIN, T0 - 20 * MIN, T0 - 15 * MIN, T0 - 10 * MIN, T0 - 5 * MIN]);
    rig.h.sim.readings.merge({ logTreadStrictRange: true });
    const strict = await trend(params(begin, end));
    expect(strict.points).toEqual(lenient.points.slice(1));
    strict.points.forEach(([t, v]) => expect(v).toBe(visible(t, t + 5 * MIN).length));
    expect(strict.count).toBe(sumPoints(strict.points));
    // One minute inside a bucket: it began before the range, so nothing is listed, though the minute holds events.
    expect(visible(T0 - 9 * MIN, T0 - 8 * MIN).length).toBeGreaterThan(0);
    expect(await trend(params(T0 - 9 * MIN, T0 - 8 * MIN))).toEqual({ count: 0, points: [] });
    // A range starting on a bucket boundary lists that bucket under both readings.
    const aligned = await trend(params(T0 - 10 * MIN, T0 - 9 * MIN));
    expect(aligned.points).toEqual([[T0 - 10 * MIN, visible(T0 - 10 * MIN, T0 - 5 * MIN).length]]);
  });

  it('changes nothing without logTreadBucketMs', async () => {
    const p = params(T0 - 23 * MIN, T0 - 2 * MIN);
    const plain = await trend(p);
    rig.h.sim.readings.merge({ logTreadStrictRange: true });
    expect(await trend(p)).toEqual(plain);
  });
});

describe('reading logTreadCountDelta', () => {
  // One domain's deny records in minute buckets: sparse enough that some buckets are empty.
  const sparse = () => ({ domains: [rig.h.sim.truth.domains()[0]], searchHeader: { action: 'deny' } });

  it('adds the delta to every non-empty bucket, leaves empty ones at 0, sums the points as count; the records are unchanged', async () => {
    const plain = await trend(HOUR_RANGE, sparse());
    const plainLogs = await logs();
    expect(plain.points.some(([, v]) => v === 0)).toBe(true);
    expect(plain.points.some(([, v]) => v === 1)).toBe(true);
    rig.h.sim.readings.merge({ logTreadCountDelta: 2 });
    const up = await trend(HOUR_RANGE, sparse());
    expect(up.points).toEqual(plain.points.map(([t, v]) => [t, v === 0 ? 0 : v + 2]));
    expect(up.count).toBe(sumPoints(up.points));
    expect(await logs()).toEqual(plainLogs);
    rig.h.sim.readings.merge({ logTreadCountDelta: -1, totalsSkew: 1.5 });
    const down = await trend(HOUR_RANGE, sparse());
    expect(down.points).toEqual(plain.points.map(([t, v]) => [t, Math.max(0, v - 1)]));
    expect(down.count).toBe(Math.floor(sumPoints(down.points) * 1.5));
  });

  it('clamps at 0 and still answers data, not null, when records match', async () => {
    rig.h.sim.readings.merge({ logTreadCountDelta: -1000, logTreadBucketMs: 5 * MIN });
    const { count, points } = await trend();
    expect(points).toHaveLength(12);
    expect(points.every(([, v]) => v === 0)).toBe(true);
    expect(count).toBe(0);
  });
});

describe('reading logTreadCompleteOnly', () => {
  it('lists a fixed-size bucket only once it has ended, each still whole', async () => {
    rig.h.sim.readings.merge({ logTreadBucketMs: 5 * MIN });
    rig.h.sim.clock.set(T0 + 2 * MIN);
    const p = params(T0 - 30 * MIN, T0 + 2 * MIN);
    const all = await trend(p);
    expect(all.points.at(-1)?.[0]).toBe(T0);
    rig.h.sim.readings.merge({ logTreadCompleteOnly: true });
    const complete = await trend(p);
    expect(complete.points).toEqual(all.points.slice(0, -1));
    expect(complete.count).toBe(sumPoints(complete.points));
    // The bucket ending exactly now is complete: listed, counting what is visible now.
    rig.h.sim.clock.set(T0 + 5 * MIN);
    const ended = await trend(params(T0 - 30 * MIN, T0 + 5 * MIN));
    expect(ended.points.at(-1)).toEqual([T0, visible(T0, T0 + 5 * MIN).length]);
  });

  it('with logTreadStrictRange lists the 5-minute buckets that begin inside the range and have ended', async () => {
    rig.h.sim.readings.merge({ logTreadBucketMs: 5 * MIN, logTreadStrictRange: true, logTreadCompleteOnly: true });
    rig.h.sim.clock.set(T0 + 4 * MIN);
    const { points } = await trend(params(T0 - 23 * MIN, T0 + 4 * MIN));
    expect(points.map((x) => x[0])).toEqual([T0 - 20 * MIN, T0 - 15 * MIN, T0 - 10 * MIN, T0 - 5 * MIN]);
    points.forEach(([t, v]) => expect(v).toBe(visible(t, t + 5 * MIN).length));
    // A range holding only the bucket in progress lists none.
    expect(await trend(params(T0, T0 + 4 * MIN))).toEqual({ count: 0, points: [] });
  });

  it('changes nothing without logTreadBucketMs: the range-sized minute buckets are clipped to the range anyway', async () => {
    rig.h.sim.clock.set(T0 + 30_000);
    const p = params(T0 - HOUR, T0 + MIN);
    const plain = await trend(p);
    expect(plain.points.at(-1)?.[0]).toBe(T0);
    rig.h.sim.readings.merge({ logTreadCompleteOnly: true });
    expect(await trend(p)).toEqual(plain);
  });
});

describe('reading naiveTimestamps', () => {
  it('drops the offset and keeps the platform wall-clock time', async () => {
    const zoned = new Map((await logs()).map((r) => [r.requestId, r.timeStamp]));
    rig.h.sim.readings.merge({ naiveTimestamps: true });
    const naive = await logs();
    expect(naive.length).toBe(zoned.size);
    expect(naive.length).toBeGreaterThan(0);
    for (const r of naive) {
      expect(r.timeStamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
      expect(Date.parse(`${r.timeStamp}+08:00`)).toBe(Date.parse(zoned.get(r.requestId) ?? ''));
    }
  });
});

describe('reading recordTimeLagMs', () => {
  it('shows timeStamps that much earlier, selecting and ordering the same records', async () => {
    const plain = await logs();
    rig.h.sim.readings.merge({ recordTimeLagMs: 10 * MIN });
    const lagged = await logs();
    expect(lagged.map((r) => r.requestId)).toEqual(plain.map((r) => r.requestId));
    lagged.forEach((r, i) => {
      expect(Date.parse(r.timeStamp)).toBe(Date.parse(plain[i]?.timeStamp ?? '') - 10 * MIN);
      expect(r.timeStamp.endsWith('+08:00')).toBe(true);
    });
    expect(lagged.some((r) => Date.parse(r.timeStamp) < T0 - HOUR)).toBe(true);
  });

  it('combines with naiveTimestamps', async () => {
    const [first] = await logs();
    rig.h.sim.readings.merge({ recordTimeLagMs: 1500, naiveTimestamps: true });
    const [shown] = await logs();
    expect(Date.parse(`${shown?.timeStamp}+08:00`)).toBe(Date.parse(first?.timeStamp ?? '') - 1500);
  });
});

describe('reading totalsSkew in logTread', () => {
  it('reports count as floor(sum of points × factor)', async () => {
    const plain = await trend();
    rig.h.sim.readings.merge({ totalsSkew: 1.5 });
    const skewed = await trend();
    expect(skewed.points).toEqual(plain.points);
    expect(plain.count).toBe(sumPoints(plain.points));
    expect(skewed.count).toBe(Math.floor(sumPoints(plain.points) * 1.5));
  });
});

describe('reading ignoreRanges in the log query', () => {
  it('answers [now - 1 hour, now) whatever the params say', async () => {
    const lastHour = { trend: await trend(), logs: await logs() };
    rig.h.sim.readings.merge({ ignoreRanges: true });
    const elsewhere = params(T0 - 3 * DAY, T0 - 2 * DAY);
    expect(await trend(elsewhere)).toEqual(lastHour.trend);
    expect(await logs(elsewhere)).toEqual(lastHour.logs);
    expect(lastHour.logs.length).toBe(visible(T0 - HOUR, T0).length);
  });
});

describe('reading clockOffsetMs in the log query', () => {
  it('answers as the default does 10 minutes earlier: fewer records ingested, buckets end earlier', async () => {
    rig.h.sim.readings.merge({ clockOffsetMs: 10 * MIN });
    const behind = { trend: await trend(), logs: await logs() };
    expect(behind.trend.points.at(-1)?.[0]).toBe(T0 - 10 * MIN);
    expect(behind.logs.length).toBe(rig.h.sim.truth.wafEvents(T0 - HOUR, T0, { visibleAt: T0 - 10 * MIN }).length);
    rig.h.sim.readings.reset();
    rig.h.sim.clock.set(T0 - 10 * MIN);
    expect({ trend: await trend(), logs: await logs() }).toEqual(behind);
  });
});

describe('reading paramsZone in the log query', () => {
  it('reads the range in that offset and still writes timeStamps in the platform zone', async () => {
    const platform = await logs();
    rig.h.sim.readings.merge({ paramsZone: '+00:00' });
    const utcText = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
    const utc = await logs({ beginTime: utcText(T0 - HOUR), endTime: utcText(T0) });
    expect(utc).toEqual(platform);
    expect(utc.every((r) => r.timeStamp.endsWith('+08:00'))).toBe(true);
    // The platform's text for 8 hours earlier now means the same hour.
    expect(await logs(params(T0 - 9 * HOUR, T0 - 8 * HOUR))).toEqual(platform);
  });
});
