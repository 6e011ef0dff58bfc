// Top-N (describeL7MostData): whatever the ranking holds, the gauges are
// finite, labelled dimension and key only, one series per key, and at most
// the configured N (plus __other__) per dimension.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { DescribeL7MostDataAnswer } from '../../src/api/index.js';
import { MOST_METRICS } from '../../src/api/schemas/index.js';
import { describeL7MostDataAnswer } from '../../src/api/schemas/statistics.js';
import { convertTopn } from '../../src/collectors/topn/convert.js';
import { topnRequest } from '../../src/collectors/topn/fetch.js';
import { OTHER_KEY, TOPN_FAMILIES, TOPN_REQUESTS } from '../../src/collectors/topn/metrics.js';
import { runs, wire } from './hostile.js';
import { outsideBodies } from './outside.js';
import { expectWellFormed } from './samples.js';
import { T0, tz } from './series-cycles.js';
import { mostBody } from './statistics-bodies.js';
import { BODY_ERROR_CODES, WireClient } from './through-client.js';

const DIMENSIONS = ['url', 'ip', 'referer', 'status', 'http_user_agent'] as const;
const options = fc.record({
  top: fc.integer({ min: 1, max: 12 }),
  other: fc.boolean(),
  timestamps: fc.boolean(),
  dimensions: fc.subarray([...DIMENSIONS], { minLength: 1 }),
});

function check(answer: DescribeL7MostDataAnswer, o: { top: number; other: boolean; timestamps: boolean; dimensions: string[] }): void {
  const samples = convertTopn(answer, { family: TOPN_REQUESTS.name, ...o, bucketStart: T0 });
  expectWellFormed(samples, TOPN_FAMILIES);
  for (const dimension of o.dimensions) {
    const mine = samples.filter((s) => s.labels.dimension === dimension);
    expect(mine.filter((s) => s.labels.key !== OTHER_KEY || !o.other).length).toBeLessThanOrEqual(o.top);
    expect(mine.length).toBeLessThanOrEqual(o.top + (o.other ? 1 : 0));
  }
  for (const s of samples) expect(o.dimensions).toContain(s.labels.dimension);
}

describe('top-N: answers outside the documented shape', () => {
  const client = new WireClient();
  afterAll(() => client.close());
  const request = topnRequest({
    by: 'requestCount', dimensions: [...DIMENSIONS], top: 10, interval: '5m', domains: ['a.example.com'],
    span: { begin: T0 - 3_600_000, end: T0 }, tz,
  });

  it('are rejected with a typed error, or converted without throwing', async () => {
    await fc.assert(
      fc.asyncProperty(outsideBodies(mostBody), options, async (body, o) => {
        const answer = await client.answer('describeL7MostData', request, body);
        if (!answer.ok) return void expect([...BODY_ERROR_CODES]).toContain(answer.error.code);
        check(answer.value, o);
      }),
      runs(200),
    );
  });
});

describe('top-N: hostile answers inside the documented shape', () => {
  it('parse, and give finite gauges, one per key, at most N per dimension', () => {
    fc.assert(
      fc.property(mostBody, options, (body, o) => {
        const parsed = describeL7MostDataAnswer.safeParse(wire(body));
        expect(parsed.error?.issues ?? []).toEqual([]);
        if (parsed.success) check(parsed.data, o);
      }),
      runs(400),
    );
  });

  it('the dimensions used are the documented ones', () => {
    for (const d of DIMENSIONS) expect(MOST_METRICS).toContain(d);
  });
});
