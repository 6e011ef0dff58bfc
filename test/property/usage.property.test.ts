// Usage (describeL7UsageData per package): hostile answers in and out of the
// documented shape never break the conversion, and the traffic counters
// count each settled bucket exactly once.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { describeL7UsageDataAnswer } from '../../src/api/schemas/statistics.js';
import type { DescribeL7UsageDataAnswer } from '../../src/api/index.js';
import { lastSettledStart } from '../../src/collectors/buckets.js';
import { planSeries } from '../../src/collectors/series/index.js';
import { convertUsage, usageCounters, usageGauges } from '../../src/collectors/usage/convert.js';
import { usageRequest } from '../../src/collectors/usage/fetch.js';
import { USAGE_FAMILIES } from '../../src/collectors/usage/metrics.js';
import { runs, wire } from './hostile.js';
import { outsideBodies } from './outside.js';
import { expectWellFormed } from './samples.js';
import { runCycles, scenario, silentLog, T0, tz, type SeriesHarness } from './series-cycles.js';
import { usageBody } from './statistics-bodies.js';
import { BODY_ERROR_CODES, WireClient } from './through-client.js';
import { driven } from '../collectors/series/fixtures.js';

type Usage = DescribeL7UsageDataAnswer;
const PKG = 'pkg-1';
const specs = usageCounters(PKG);
const GAUGES = USAGE_FAMILIES.filter((f) => f.type === 'gauge').map((f) => f.name);

const harness: SeriesHarness<Usage> = {
  specs,
  body: ([inbound, outbound]) => ({
    code: 200, msg: 'success',
    data: [{ metricName: 'trafficTrend', objectArrayListMap: { inTraffic: inbound, ouTraffic: outbound } }],
  }),
  read: (body) => describeL7UsageDataAnswer.parse(wire(body)),
  convert: (plans, pieces, grid, o) => driven(convertUsage, {
    specs, plans, pieces, main: undefined, grid,
    gauges: { pkg: PKG, lastSettled: lastSettledStart(o.now, o.interval, o.delayMs, grid.offsetMinutes), windowBucket: o.now, timestamps: o.timestamps, families: [] },
  }),
};

/** Counters and gauges from one parsed answer used as the main answer and the only piece. */
function convertOne(answer: Usage, now: number, watermarkAgo: number) {
  const grid = { interval: '5m' as const, offsetMinutes: tz.offsetMinutes };
  const options = { interval: grid.interval, delayMs: 120_000, maxBackfillMs: 86_400_000, timestamps: true };
  const watermarks = Object.fromEntries(specs.map((s) => [s.key, now - watermarkAgo]));
  const plans = planSeries(specs.map((s) => s.key), { now, watermarks, tz, log: silentLog }, options);
  const lastSettled = lastSettledStart(now, grid.interval, options.delayMs, grid.offsetMinutes);
  return driven(convertUsage, {
    specs, plans, grid, main: answer,
    pieces: [{ range: { first: now - 86_400_000, last: now }, answer }],
    gauges: { pkg: PKG, lastSettled, windowBucket: lastSettled, timestamps: true, families: GAUGES },
  });
}

describe('usage: answers outside the documented shape', () => {
  const client = new WireClient();
  afterAll(() => client.close());
  const request = usageRequest(PKG, '5m', { beginTime: '2026-03-02 11:00:00', endTime: '2026-03-02 12:00:00' }, ['trafficTrend', 'bandwidthTrend']);

  it('are rejected with a typed error, or parse into answers the conversion takes without throwing', async () => {
    await fc.assert(
      fc.asyncProperty(outsideBodies(usageBody), fc.integer({ min: 0, max: 3_600_000 }), async (body, ago) => {
        const answer = await client.answer('describeL7UsageData', request, body);
        if (!answer.ok) {
          expect([...BODY_ERROR_CODES]).toContain(answer.error.code);
          return;
        }
        const out = convertOne(answer.value, T0, ago);
        expectWellFormed([...out.gauges], USAGE_FAMILIES);
      }),
      runs(200),
    );
  });
});

describe('usage: hostile answers inside the documented shape', () => {
  it('parse, and give finite gauges and increments with the family labels, each series once', () => {
    fc.assert(
      fc.property(usageBody, fc.integer({ min: 0, max: 7_200_000 }), fc.integer({ min: -600, max: 600 }), (body, ago, shift) => {
        const parsed = describeL7UsageDataAnswer.safeParse(wire(body));
        expect(parsed.error?.issues ?? []).toEqual([]);
        if (!parsed.success) return;
        const out = convertOne(parsed.data, T0 + shift * 60_000, ago);
        expectWellFormed([...out.gauges], USAGE_FAMILIES);
        expectWellFormed(out.increments.filter((s) => Number.isFinite(s.value)), USAGE_FAMILIES);
        const gauges = usageGauges(parsed.data, { pkg: PKG, lastSettled: T0, windowBucket: T0, timestamps: false, families: GAUGES });
        expect(gauges.length).toBeLessThanOrEqual(4);
      }),
      runs(300),
    );
  });

  it('counters across cycles stay finite, never go down, and count nothing twice', () => {
    fc.assert(fc.property(scenario(false), fc.gen(), (s, g) => void runCycles(harness, s, g, false)), runs(200));
  });

  it('every settled bucket counted is counted exactly once, with its final value', () => {
    fc.assert(fc.property(scenario(true), fc.gen(), (s, g) => void runCycles(harness, s, g, true)), runs(200));
  });
});
