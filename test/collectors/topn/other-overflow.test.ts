// Found by the property tests (test/property/topn): absurd list values whose
// sum overflows made __other__ (total minus the listed sum) +Infinity.
import { describe, expect, it } from 'vitest';
import type { DescribeL7MostDataAnswer } from '../../../src/api/index.js';
import { convertTopn } from '../../../src/collectors/topn/convert.js';
import { OTHER_KEY, TOPN_REQUESTS } from '../../../src/collectors/topn/metrics.js';
import { T0 } from '../series/fixtures.js';

const input = { family: TOPN_REQUESTS.name, dimensions: ['url'], top: 3, other: true, bucketStart: T0, timestamps: false };
const answer = (total: number, values: number[]): DescribeL7MostDataAnswer => ({
  code: 200, data: [{ metricName: 'url', data: { total, list: values.map((value, i) => ({ name: `/${i}`, value })), termsCount: values.length } }],
});

describe('convertTopn when the listed values overflow', () => {
  it.each<[string, DescribeL7MostDataAnswer, string[]]>([
    ['a negative overflow would make __other__ +Inf: none is produced', answer(1e308, [-Number.MAX_VALUE, -Number.MAX_VALUE]), ['/0', '/1']],
    ['a positive overflow leaves nothing for __other__', answer(1, [Number.MAX_VALUE, Number.MAX_VALUE]), ['/0', '/1']],
    ['ordinary values keep their __other__', answer(10, [3, 2]), ['/0', '/1', OTHER_KEY]],
  ])('%s', (_name, answer, keys) => {
    const samples = convertTopn(answer, input);
    expect(samples.map((s) => s.labels.key)).toEqual(keys);
    expect(samples.every((s) => Number.isFinite(s.value))).toBe(true);
  });
});
