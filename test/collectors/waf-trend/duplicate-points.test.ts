// Found by the property tests (test/property/waf-trend): a logTread trend
// listing one upstream bucket twice had the bucket counted twice, where every
// other trend keeps the last occurrence.
import { describe, expect, it } from 'vitest';
import type { DescribeLogV2Response } from '../../../src/api/index.js';
import { logTreadPoints } from '../../../src/collectors/waf-trend/convert.js';
import { MIN, T0, UTC8 } from '../series/fixtures.js';

type Point = [number, number | null];
const tread = (points: Point[]): DescribeLogV2Response => ({ code: 200, msg: 'success', data: [{ metricName: 'logTread', list: [], objectArrayList: points, count: 0 }] });

describe('logTreadPoints with an upstream bucket listed twice', () => {
  it.each<[string, Point[], Point[]]>([
    ['the same point twice counts once', [[T0, 4], [T0 + MIN, 2], [T0, 4]], [[T0, 6]]],
    ['a repeated bucket keeps its last value', [[T0, 4], [T0 + MIN, 2], [T0, 7]], [[T0, 9]]],
    ['a repeat as null leaves a gap', [[T0 + MIN, 2], [T0 + MIN, null]], []],
    ['distinct upstream buckets of one configured bucket still add up', [[T0, 1], [T0 + MIN, 2], [T0 + 2 * MIN, 3]], [[T0, 6]]],
  ])('%s', (_name, points, expected) => {
    expect(logTreadPoints({ range: { first: T0, last: T0 }, response: tread(points) }, { interval: '5m', offsetMinutes: UTC8 })).toEqual(expected);
  });
});
