// WAF trend (describeLogV2 logTread): any answer is read without throwing,
// and the event counters count each settled bucket exactly once, whatever
// the order, duplication or future points of the trend.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { describeLogV2Answer } from '../../src/api/schemas/waf-log.js';
import type { DescribeLogV2Answer } from '../../src/api/index.js';
import { chunkRange, planSeries, type Grid } from '../../src/collectors/series/index.js';
import { logTreadPoints, wafChunkBuckets, wafCombos, wafCounter, type WafAnswer } from '../../src/collectors/waf-trend/convert.js';
import { wafRequest } from '../../src/collectors/waf-trend/fetch.js';
import { WAF_TREND_FAMILIES } from '../../src/collectors/waf-trend/metrics.js';
import { runs, wire } from './hostile.js';
import { outsideBodies } from './outside.js';
import { expectWellFormed } from './samples.js';
import { runCycles, scenario, silentLog, T0, tz, type SeriesHarness } from './series-cycles.js';
import { logTreadBody } from './statistics-bodies.js';
import { BODY_ERROR_CODES, WireClient } from './through-client.js';
import { drivenWaf } from '../collectors/series/fixtures.js';

const [combo] = wafCombos();
if (combo === undefined) throw new Error('no WAF combos');

function harnessFor(grid: Grid): SeriesHarness<WafAnswer> {
  const spec = wafCounter(combo as NonNullable<typeof combo>, grid);
  return {
    specs: [spec],
    body: ([points]) => ({
      code: 200,
      data: points === undefined ? [{ metricName: 'logs', list: [] }] : [{ metricName: 'logTread', list: [], objectArrayList: points, count: points.length }],
    }),
    read: (body, range) => ({ range, tread: describeLogV2Answer.parse(wire(body)) }),
    convert: (plans, pieces, g, o) => drivenWaf(spec, plans, pieces, g, o.timestamps),
    // One request per chunk of the buckets to count, as the collector makes them.
    ranges: (plans, _window, g, o) => {
      const plan = plans.get(spec.key);
      return plan?.kind === 'count' ? chunkRange({ first: plan.from, last: plan.lastSettled }, g, Math.min(wafChunkBuckets(g.interval), o.maxBuckets)) : [];
    },
  };
}

/** The collector builds its counter per grid; the scenario picks the interval. */
function run(exact: boolean) {
  return fc.property(scenario(exact), fc.gen(), (s, g) => void runCycles(harnessFor({ interval: s.interval, offsetMinutes: tz.offsetMinutes }), s, g, exact));
}

function convertOne(tread: DescribeLogV2Answer, watermarkAgo: number) {
  const grid: Grid = { interval: '5m', offsetMinutes: tz.offsetMinutes };
  const spec = wafCounter(combo as NonNullable<typeof combo>, grid);
  const o = { interval: grid.interval, delayMs: 180_000, maxBackfillMs: 86_400_000, timestamps: true };
  const plans = planSeries([spec.key], { now: T0, watermarks: { [spec.key]: T0 - watermarkAgo }, tz, log: silentLog }, o);
  const range = { first: T0 - 7_200_000, last: T0 - 300_000 };
  const points = logTreadPoints({ range, tread }, grid);
  for (const [t, v] of points ?? []) {
    expect(Number.isInteger(t)).toBe(true);
    expect(v === null || !Number.isNaN(v)).toBe(true);
  }
  return drivenWaf(spec, plans, [{ range, answer: { range, tread } }], grid, true);
}

describe('waf-trend: answers outside the documented shape', () => {
  const client = new WireClient();
  afterAll(() => client.close());
  const request = wafRequest(combo, ['a.example.com'], { beginTime: '2026-03-02 11:00:00', endTime: '2026-03-02 12:00:00' });

  it('are rejected with a typed error, or converted without throwing', async () => {
    await fc.assert(
      fc.asyncProperty(outsideBodies(logTreadBody), fc.integer({ min: 0, max: 7_200_000 }), async (body, ago) => {
        const answer = await client.answer('describeLogV2', request, body);
        if (!answer.ok) return void expect([...BODY_ERROR_CODES]).toContain(answer.error.code);
        for (const inc of convertOne(answer.value, ago).increments) expect(inc.value).toBeGreaterThanOrEqual(0);
      }),
      runs(200),
    );
  });
});

describe('waf-trend: hostile answers inside the documented shape', () => {
  it('parse, and give non-negative increments of the family', () => {
    fc.assert(
      fc.property(logTreadBody, fc.integer({ min: 0, max: 7_200_000 }), (body, ago) => {
        const parsed = describeLogV2Answer.safeParse(wire(body));
        expect(parsed.error?.issues ?? []).toEqual([]);
        if (!parsed.success) return;
        const out = convertOne(parsed.data, ago);
        for (const inc of out.increments) expect(inc.value).toBeGreaterThanOrEqual(0);
        expectWellFormed(out.increments.filter((s) => Number.isFinite(s.value)), WAF_TREND_FAMILIES);
      }),
      runs(300),
    );
  });

  it('counters across cycles stay finite, never go down, and count nothing twice', () => {
    fc.assert(run(false), runs(200));
  });

  it('every settled bucket counted is counted exactly once, with its final value', () => {
    fc.assert(run(true), runs(200));
  });
});
