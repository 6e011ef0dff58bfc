import { describe, expect, it } from 'vitest';
import { platformClock } from '../../src/api/time.js';
import { INTERVAL_MS, INTERVALS, STAT_METRICS, Stats, type Interval } from '../../src/simulator/stats.js';
import { bandwidth, bucketStarts, percentile95, querySeries } from '../../src/simulator/stats-series.js';
import { DAY, HOUR, MIN, T0 } from './helpers.js';

const tz = platformClock('+08:00');
const domains = [
  { domainName: 'a.example.com', isActive: '1' },
  { domainName: 'b.example.com', isActive: '1' },
  { domainName: 'paused.example.com', isActive: '2' },
];
const make = (seed = 1, revisionDelayMs = 180_000) => new Stats({ seed, domains, tz, revisionDelayMs });

describe('stats', () => {
  it('is a pure function of seed, domain and minute', () => {
    expect(make(1).minute('a.example.com', T0)).toEqual(make(1).minute('a.example.com', T0));
    expect(make(1).minute('a.example.com', T0)).not.toEqual(make(2).minute('a.example.com', T0));
  });

  it('gives inactive and unknown domains no traffic', () => {
    expect(make().sum('paused.example.com', T0 - DAY, T0).requests).toBe(0);
    expect(make().sum('nope.example.com', T0 - HOUR, T0).bytesSent).toBe(0);
  });

  it('splits requests exactly into status classes, minute by minute', () => {
    const s = make();
    for (let t = T0 - HOUR; t < T0; t += MIN) {
      const m = s.minute('a.example.com', t);
      expect(m.status1xx + m.status2xx + m.status3xx + m.status4xx + m.status5xx).toBe(m.requests);
      for (const k of STAT_METRICS) expect(Number.isInteger(m[k])).toBe(true);
    }
  });

  it.each([
    ['5m', '1m'], ['1h', '5m'], ['1d', '1h'],
  ] as Array<[Interval, Interval]>)('a %s bucket is the sum of its %s buckets', (coarse, fine) => {
    const s = make();
    const start = s.alignDown(coarse, T0 - 2 * DAY);
    const sub = Array.from({ length: INTERVAL_MS[coarse] / INTERVAL_MS[fine] }, (_, i) => s.bucket('b.example.com', fine, start + i * INTERVAL_MS[fine]));
    for (const k of STAT_METRICS) expect(sub.reduce((a, x) => a + x[k], 0)).toBe(s.bucket('b.example.com', coarse, start)[k]);
  });

  it('aligns 1d buckets to platform midnight and the others to the epoch', () => {
    const s = make();
    expect(tz.formatDateTime(s.alignDown('1d', T0))).toBe('2026-03-02 00:00:00');
    expect(s.alignDown('1h', T0 + 30 * MIN)).toBe(T0);
    expect(s.alignDown('5m', T0 + 7 * MIN)).toBe(T0 + 5 * MIN);
  });

  it('reports a recent bucket partially, revises it upward, then settles', () => {
    const s = make(1, 180_000);
    const start = T0;
    const final = s.bucket('a.example.com', '5m', start).bytesSent;
    expect(s.reported('a.example.com', '5m', start, start - 1)).toBeUndefined();
    const seen = [0, 1, 2, 4, 6, 7.9].map((m) => s.reported('a.example.com', '5m', start, start + m * MIN)?.bytesSent ?? -1);
    expect(seen[0]).toBe(0);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1] ?? 0);
    expect(seen.at(-1)).toBeLessThan(final);
    // value × (now − start)/(end + delay − start), rounded down
    expect(s.reported('a.example.com', '5m', start, start + 4 * MIN)?.bytesSent).toBe(Math.floor(final * (4 / 8)));
    expect(s.reported('a.example.com', '5m', start, start + 8 * MIN)?.bytesSent).toBe(final);
    expect(s.reported('a.example.com', '5m', start, start + DAY)?.bytesSent).toBe(final);
  });

  it.each(INTERVALS)('lists %s buckets from the aligned begin, end exclusive, none after now', (iv) => {
    const s = make();
    const len = INTERVAL_MS[iv];
    const begin = s.alignDown(iv, T0 - 3 * len) + 1000;
    const starts = bucketStarts(s, iv, begin, T0 + 5 * len, T0);
    expect(starts[0]).toBe(s.alignDown(iv, begin));
    expect(starts.at(-1)).toBe(s.alignDown(iv, T0));
    expect(bucketStarts(s, iv, s.alignDown(iv, T0 - 2 * len), s.alignDown(iv, T0 - len), T0 + DAY)).toEqual([s.alignDown(iv, T0 - 2 * len)]);
  });

  it('sums domains per bucket', () => {
    const s = make();
    const both = querySeries(s, ['a.example.com', 'b.example.com'], '1h', T0 - 6 * HOUR, T0, T0);
    const a = querySeries(s, ['a.example.com'], '1h', T0 - 6 * HOUR, T0, T0);
    const b = querySeries(s, ['b.example.com'], '1h', T0 - 6 * HOUR, T0, T0);
    both.forEach((p, i) => expect(p.sample.requests).toBe((a[i]?.sample.requests ?? 0) + (b[i]?.sample.requests ?? 0)));
  });

  it.each([
    [[], 0],
    [[5], 5],
    [[3, 1, 2], 3],
    [Array.from({ length: 20 }, (_, i) => i + 1), 19],
    [Array.from({ length: 100 }, (_, i) => 100 - i), 95],
  ])('95th percentile of %j is %d (sorted ascending, index ceil(0.95n)-1)', (values, expected) => {
    expect(percentile95(values)).toBe(expected);
  });

  it.each([
    [7_500_000, '1m', 1_000_000],
    [37_500_000, '5m', 1_000_000],
    [1, '1h', 0],
  ] as Array<[number, Interval, number]>)('%d bytes in a %s bucket is %d bit/s', (bytes, iv, bps) => {
    expect(bandwidth(bytes, iv)).toBe(bps);
  });
});
