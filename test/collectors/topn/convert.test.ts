import { describe, expect, it } from 'vitest';
import { platformClock, type DescribeL7MostDataAnswer } from '../../../src/api/index.js';
import type { BucketInterval } from '../../../src/collectors/buckets.js';
import { convertTopn } from '../../../src/collectors/topn/convert.js';
import { topnRequest } from '../../../src/collectors/topn/fetch.js';
import { topnSpan } from '../../../src/collectors/topn/index.js';
import { OTHER_KEY, TOPN_REQUESTS } from '../../../src/collectors/topn/metrics.js';
import { DAY, HOUR, MIN, T0, UTC8 } from '../series/fixtures.js';

type Most = DescribeL7MostDataAnswer;
type Data = NonNullable<Most['data'][number]['data']>;
const most = (items: Array<[string, Data | null]>): Most => ({ code: 200, msg: 'success', data: items.map(([metricName, data]) => ({ metricName, data })) });
const data = (total: number, list: Array<[string, number]>): Data => ({ total, list: list.map(([name, value]) => ({ name, value })), termsCount: list.length });
const base = { family: TOPN_REQUESTS.name, dimensions: ['url', 'ip'], top: 2, other: true, bucketStart: T0, timestamps: false };
const g = (dimension: string, key: string, value: number, ts?: number) => ({ name: TOPN_REQUESTS.name, labels: { dimension, key }, value, ...(ts === undefined ? {} : { timestampMs: ts }), bucketStartMs: base.bucketStart });

describe('convertTopn', () => {
  it.each<[string, Most, Partial<typeof base>, ReturnType<typeof g>[]]>([
    ['top N with the rest as __other__', most([['url', data(100, [['/a', 50], ['/b', 30]])]]), {}, [g('url', '/a', 50), g('url', '/b', 30), g('url', OTHER_KEY, 20)]],
    ['more than N listed: only N kept, the rest counted in __other__', most([['url', data(100, [['/a', 50], ['/b', 30], ['/c', 15]])]]), {},
      [g('url', '/a', 50), g('url', '/b', 30), g('url', OTHER_KEY, 20)]],
    ['__other__ off', most([['url', data(100, [['/a', 50], ['/b', 30]])]]), { other: false }, [g('url', '/a', 50), g('url', '/b', 30)]],
    ['nothing outside the top N: no __other__', most([['url', data(80, [['/a', 50], ['/b', 30]])]]), {}, [g('url', '/a', 50), g('url', '/b', 30)]],
    ['every dimension of the one request', most([['url', data(5, [['/a', 5]])], ['ip', data(9, [['1.2.3.4', 9]])]]), {}, [g('url', '/a', 5), g('ip', '1.2.3.4', 9)]],
    ['data: null for a dimension: no series for it', most([['url', null], ['ip', data(9, [['1.2.3.4', 9]])]]), {}, [g('ip', '1.2.3.4', 9)]],
    ['a dimension not answered: no series for it', most([['ip', data(9, [['1.2.3.4', 9]])]]), {}, [g('ip', '1.2.3.4', 9)]],
    ['whole data: null (the client gives []): nothing', most([]), {}, []],
    ['an empty list', most([['url', data(0, [])]]), {}, []],
    ['an empty list with a total: all of it is __other__', most([['url', data(7, [])]]), {}, [g('url', OTHER_KEY, 7)]],
    ['a name listed twice keeps its first value', most([['url', data(10, [['/a', 6], ['/a', 3]])]]), {}, [g('url', '/a', 6), g('url', OTHER_KEY, 4)]],
    ['an undimensioned item is ignored', most([['referer', data(10, [['-', 10]])]]), {}, []],
    ['timestamps: the window\'s newest bucket', most([['url', data(60, [['/a', 50]])]]), { timestamps: true }, [g('url', '/a', 50, T0), g('url', OTHER_KEY, 10, T0)]],
  ])('%s', (_name, answer, options, expected) => {
    expect(convertTopn(answer, { ...base, ...options })).toEqual(expected);
  });
});

describe('topnSpan: the last windowMs of settled buckets', () => {
  it.each<[BucketInterval, number, number, number, [number, number]]>([
    ['1m', T0 + 30_000, 3 * MIN, HOUR, [T0 - 63 * MIN, T0 - 3 * MIN]],
    ['5m', T0 + 2 * MIN, 3 * MIN, HOUR, [T0 - 65 * MIN, T0 - 5 * MIN]],
    ['1h', T0 + 20 * MIN, 10 * MIN, 90 * MIN, [T0 - 2 * HOUR, T0]],
    ['1d', T0, HOUR, DAY, [T0 - 12 * HOUR - DAY, T0 - 12 * HOUR]],
    // A window shorter than a bucket still holds the newest settled bucket.
    ['1h', T0 + 20 * MIN, 10 * MIN, MIN, [T0 - HOUR, T0]],
  ])('%s at %i, delay %i, window %i', (interval, now, delayMs, windowMs, [begin, end]) => {
    expect(topnSpan(now, { interval, delayMs, windowMs }, { interval, offsetMinutes: UTC8 })).toEqual({ begin, end });
  });
});

describe('topnRequest', () => {
  it('asks for every dimension in one request, the first page of `top`, the selected domains', () => {
    expect(topnRequest({
      by: 'trafficSum', dimensions: ['url', 'ip'], top: 5, interval: '5m', domains: ['a.com'], span: { begin: T0 - HOUR, end: T0 }, tz: platformClock('+08:00'),
    })).toEqual({
      mostDimension: 'trafficSum', action: [{ metricName: 'url' }, { metricName: 'ip' }], domains: ['a.com'], interval: '5m',
      params: { beginTime: '2026-03-02 11:00:00', endTime: '2026-03-02 12:00:00' }, pageNum: 1, pageSize: 5, otherFilter: [],
    });
  });
});
