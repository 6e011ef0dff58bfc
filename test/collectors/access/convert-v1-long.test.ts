// An answer far longer than the window asked for (the upstream decides how
// many points it sends): the peak gauge was Math.max(...values), which throws
// RangeError past roughly 150k points and failed the whole access cycle.
import { describe, expect, it } from 'vitest';
import type { DescribeL7DataAnswer } from '../../../src/api/index.js';
import { accessV1Gauges } from '../../../src/collectors/access/convert-v1.js';
import { DOMAIN_BANDWIDTH, DOMAIN_BANDWIDTH_PEAK } from '../../../src/collectors/access/metrics.js';
import { MIN, T0 } from '../series/fixtures.js';

describe('access v1 gauges on a very long bandwidth trend', () => {
  it('give the latest settled bucket and the highest one', () => {
    const trend = Array.from({ length: 300_000 }, (_, i): [number, number] => [T0 - i * MIN, i % 977]);
    const cdn: DescribeL7DataAnswer = { code: 200, data: [{ metricName: 'bandwidthTrend', data: { trend } }] };
    const gauges = accessV1Gauges({ cdn }, {
      domain: 'a.example.com', lastSettled: T0 - 5 * MIN, windowBucket: T0, timestamps: false,
      families: [DOMAIN_BANDWIDTH.name, DOMAIN_BANDWIDTH_PEAK.name],
    });
    expect(gauges).toEqual([
      { name: DOMAIN_BANDWIDTH.name, labels: { domain: 'a.example.com', source: 'edge' }, value: 5 / 8, bucketStartMs: T0 - 5 * MIN },
      { name: DOMAIN_BANDWIDTH_PEAK.name, labels: { domain: 'a.example.com', source: 'edge' }, value: 976 / 8, bucketStartMs: T0 },
    ]);
  });
});
