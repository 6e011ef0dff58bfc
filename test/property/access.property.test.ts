// Access (describeL7DataV2 per domain, and describeL7Data with `api: v1`):
// hostile answers in and out of the documented shape never break the
// conversion, gauges stay finite, and every counter series counts each
// settled bucket exactly once.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { DescribeL7DataV2Answer } from '../../src/api/index.js';
import { describeL7DataAnswer, describeL7DataV2Answer } from '../../src/api/schemas/statistics.js';
import { lastSettledStart } from '../../src/collectors/buckets.js';
import { accessCounters, accessGauges, convertAccessV2, type V2TrendMetric } from '../../src/collectors/access/convert.js';
import { accessV1Counters, convertAccessV1, type V1Pair } from '../../src/collectors/access/convert-v1.js';
import { v1Request, v2Request } from '../../src/collectors/access/fetch.js';
import { ACCESS_V1_FAMILIES, ACCESS_V2_FAMILIES } from '../../src/collectors/access/metrics.js';
import { planSeries, type Grid } from '../../src/collectors/series/index.js';
import { runs, wire } from './hostile.js';
import { outsideBodies } from './outside.js';
import { expectWellFormed } from './samples.js';
import { runCycles, scenario, silentLog, T0, tz, type CycleOptions, type InputPoint, type SeriesHarness } from './series-cycles.js';
import { accessV1Body, accessV2Body } from './statistics-bodies.js';
import { BODY_ERROR_CODES, WireClient } from './through-client.js';
import { driven } from '../collectors/series/fixtures.js';

type V2 = DescribeL7DataV2Answer;
const DOMAIN = 'a.example.com';
const v2Specs = accessCounters(DOMAIN);
const v1Specs = accessV1Counters(DOMAIN);
const V2_GAUGES = ACCESS_V2_FAMILIES.filter((f) => f.type === 'gauge').map((f) => f.name);
const V1_GAUGES = ACCESS_V1_FAMILIES.filter((f) => f.type === 'gauge').map((f) => f.name);
const params = { beginTime: '2026-03-02 11:00:00', endTime: '2026-03-02 12:00:00' };

/** Where each v2 counter series (accessCounters order) sits in an answer. */
const V2_PLACES: ReadonlyArray<readonly [V2TrendMetric, string]> = [
  ['trafficTrend', 'bytesSent'], ['trafficTrend', 'upstreamBytesSent'], ['requestTrend', 'requestCounter'],
  ['statusCodeTrend', 'list1xx'], ['statusCodeTrend', 'list2xx'], ['statusCodeTrend', 'list3xx'], ['statusCodeTrend', 'list4xx'], ['statusCodeTrend', 'list5xx'],
];

function v2Body(points: ReadonlyArray<readonly InputPoint[] | undefined>): unknown {
  const items = new Map<string, Record<string, unknown>>();
  V2_PLACES.forEach(([metric, key], i) => {
    const series = points[i];
    if (series === undefined) return;
    items.set(metric, { ...items.get(metric), [key]: series });
  });
  return { code: 200, msg: 'success', data: [...items].map(([metricName, objectArrayListMap]) => ({ metricName, objectArrayListMap, list: [] })) };
}

function gaugeInput(o: CycleOptions, grid: Grid, families: readonly string[]) {
  const lastSettled = lastSettledStart(o.now, o.interval, o.delayMs, grid.offsetMinutes);
  return { domain: DOMAIN, lastSettled, windowBucket: lastSettled, timestamps: o.timestamps, families };
}

const v2Harness: SeriesHarness<V2> = {
  specs: v2Specs,
  body: v2Body,
  read: (body) => describeL7DataV2Answer.parse(wire(body)),
  convert: (plans, pieces, grid, o) => driven(convertAccessV2, { specs: v2Specs, plans, pieces, main: undefined, grid, gauges: gaugeInput(o, grid, []) }),
};

/** v1: the cdn terminal carries edge traffic and requests, the source terminal origin traffic. */
const v1Harness: SeriesHarness<V1Pair> = {
  specs: v1Specs,
  body: ([edge, origin, requests]) => {
    const answer = (items: Array<[string, readonly InputPoint[] | undefined]>) => ({
      code: 200,
      data: items.flatMap(([metricName, trend]) => (trend === undefined ? [] : [{ metricName, data: { trend } }])),
    });
    return { cdn: answer([['trafficTrend', edge], ['requestTrend', requests]]), source: answer([['trafficTrend', origin]]) };
  },
  read: (body) => {
    const { cdn, source } = body as { cdn: unknown; source: unknown };
    return { cdn: describeL7DataAnswer.parse(wire(cdn)), source: describeL7DataAnswer.parse(wire(source)) };
  },
  convert: (plans, pieces, grid, o) => driven(convertAccessV1, { specs: v1Specs, plans, pieces, main: undefined, grid, gauges: gaugeInput(o, grid, []) }),
};

/** One parsed answer as the main answer and the only piece, every family enabled. */
function convertV2Once(answer: V2, now: number, watermarkAgo: number) {
  const grid: Grid = { interval: '1m', offsetMinutes: tz.offsetMinutes };
  const o: CycleOptions = { interval: '1m', delayMs: 60_000, maxBackfillMs: 86_400_000, timestamps: true, now, maxBuckets: 60, gaugeWindowMs: 600_000 };
  const plans = planSeries(v2Specs.map((s) => s.key), { now, watermarks: Object.fromEntries(v2Specs.map((s) => [s.key, now - watermarkAgo])), tz, log: silentLog }, o);
  return driven(convertAccessV2, { specs: v2Specs, plans, grid, main: answer, pieces: [{ range: { first: now - 86_400_000, last: now }, answer }], gauges: gaugeInput(o, grid, V2_GAUGES) });
}

function convertV1Once(pair: V1Pair, now: number, watermarkAgo: number) {
  const grid: Grid = { interval: '5m', offsetMinutes: tz.offsetMinutes };
  const o: CycleOptions = { interval: '5m', delayMs: 0, maxBackfillMs: 86_400_000, timestamps: false, now, maxBuckets: 60, gaugeWindowMs: undefined };
  const plans = planSeries(v1Specs.map((s) => s.key), { now, watermarks: Object.fromEntries(v1Specs.map((s) => [s.key, now - watermarkAgo])), tz, log: silentLog }, o);
  return driven(convertAccessV1, { specs: v1Specs, plans, grid, main: pair, pieces: [{ range: { first: now - 86_400_000, last: now }, answer: pair }], gauges: gaugeInput(o, grid, V1_GAUGES) });
}

describe('access: answers outside the documented shape', () => {
  const client = new WireClient();
  afterAll(() => client.close());

  it('v2: rejected with a typed error, or converted without throwing', async () => {
    const request = v2Request(DOMAIN, '1m', params, ['trafficTrend', 'bandwidthTrend', 'requestTrend', 'statusCodeTrend', 'requestTimeTrend']);
    await fc.assert(
      fc.asyncProperty(outsideBodies(accessV2Body), fc.integer({ min: 0, max: 7_200_000 }), async (body, ago) => {
        const answer = await client.answer('describeL7DataV2', request, body);
        if (!answer.ok) return void expect([...BODY_ERROR_CODES]).toContain(answer.error.code);
        expectWellFormed([...convertV2Once(answer.value, T0, ago).gauges], ACCESS_V2_FAMILIES);
      }),
      runs(150),
    );
  });

  it('v1: rejected with a typed error, or converted without throwing', async () => {
    const request = v1Request(DOMAIN, '5m', params, 'cdn', ['trafficTrend', 'bandwidthTrend', 'requestTrend']);
    await fc.assert(
      fc.asyncProperty(outsideBodies(accessV1Body), accessV1Body, fc.integer({ min: 0, max: 7_200_000 }), async (body, other, ago) => {
        const answer = await client.answer('describeL7Data', request, body);
        if (!answer.ok) return void expect([...BODY_ERROR_CODES]).toContain(answer.error.code);
        const pair = { cdn: answer.value, source: describeL7DataAnswer.parse(wire(other)) };
        expectWellFormed([...convertV1Once(pair, T0, ago).gauges], ACCESS_V1_FAMILIES);
      }),
      runs(150),
    );
  });
});

describe('access: hostile answers inside the documented shape', () => {
  it('the series places used below are where the conversion reads them', () => {
    const marked = describeL7DataV2Answer.parse(v2Body(V2_PLACES.map((_, i) => [[T0, i + 1]])));
    expect(v2Specs.map((s) => s.points(marked))).toEqual(V2_PLACES.map((_, i) => [[T0, i + 1]]));
    const pair = v1Harness.read(v1Harness.body([[[T0, 1]], [[T0, 2]], [[T0, 3]]]), { first: T0, last: T0 });
    expect(v1Specs.map((s) => s.points(pair))).toEqual([[[T0, 1]], [[T0, 2]], [[T0, 3]]]);
  });

  it('v2: parse, and give finite gauges with the family labels, each series once', () => {
    fc.assert(
      fc.property(accessV2Body, fc.integer({ min: 0, max: 7_200_000 }), fc.integer({ min: -600, max: 600 }), (body, ago, shift) => {
        const parsed = describeL7DataV2Answer.safeParse(wire(body));
        expect(parsed.error?.issues ?? []).toEqual([]);
        if (!parsed.success) return;
        const out = convertV2Once(parsed.data, T0 + shift * 60_000, ago);
        expectWellFormed([...out.gauges], ACCESS_V2_FAMILIES);
        for (const inc of out.increments) expect(inc.value).toBeGreaterThanOrEqual(0);
        const direct = accessGauges(parsed.data, { domain: DOMAIN, lastSettled: T0, windowBucket: T0, timestamps: false, families: V2_GAUGES });
        expectWellFormed(direct, ACCESS_V2_FAMILIES);
      }),
      runs(300),
    );
  });

  it('v1: parse, and give finite gauges with the family labels, each series once', () => {
    fc.assert(
      fc.property(accessV1Body, accessV1Body, fc.integer({ min: 0, max: 7_200_000 }), (cdn, source, ago) => {
        const pair = { cdn: describeL7DataAnswer.parse(wire(cdn)), source: describeL7DataAnswer.parse(wire(source)) };
        const out = convertV1Once(pair, T0, ago);
        expectWellFormed([...out.gauges], ACCESS_V1_FAMILIES);
        for (const inc of out.increments) expect(inc.value).toBeGreaterThanOrEqual(0);
      }),
      runs(300),
    );
  });

  it('v2: counters across cycles stay finite, never go down, and count nothing twice', () => {
    fc.assert(fc.property(scenario(false), fc.gen(), (s, g) => void runCycles(v2Harness, s, g, false)), runs(120));
  });

  it('v2: every settled bucket counted is counted exactly once, with its final value', () => {
    fc.assert(fc.property(scenario(true), fc.gen(), (s, g) => void runCycles(v2Harness, s, g, true)), runs(120));
  });

  it('v1: counters across cycles stay finite, never go down, and count nothing twice', () => {
    fc.assert(fc.property(scenario(false), fc.gen(), (s, g) => void runCycles(v1Harness, s, g, false)), runs(120));
  });

  it('v1: every settled bucket counted is counted exactly once, with its final value', () => {
    fc.assert(fc.property(scenario(true), fc.gen(), (s, g) => void runCycles(v1Harness, s, g, true)), runs(120));
  });
});
