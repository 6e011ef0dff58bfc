// CC attack (describeL7CCAttack, items undocumented and read by shape):
// any item list parses without throwing, the gauges are finite and one per
// label set, and the attack counter counts each settled bucket exactly once.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { describeL7CCAttackAnswer } from '../../src/api/schemas/statistics.js';
import { lastSettledStart } from '../../src/collectors/buckets.js';
import { ccCounter, ccGauges, convertCc } from '../../src/collectors/cc-attack/convert.js';
import { ccRequest } from '../../src/collectors/cc-attack/fetch.js';
import { CC_ATTACK_REQUESTS, CC_ATTACK_REQUESTS_BY_DOMAIN, CC_GAUGES } from '../../src/collectors/cc-attack/metrics.js';
import { parseCcAnswer, type CcParsed } from '../../src/collectors/cc-attack/parse.js';
import { planSeries } from '../../src/collectors/series/index.js';
import { runs, wire } from './hostile.js';
import { outsideBodies } from './outside.js';
import { expectWellFormed } from './samples.js';
import { runCycles, scenario, silentLog, T0, tz, type InputPoint, type SeriesHarness } from './series-cycles.js';
import { ccBody } from './statistics-bodies.js';
import { BODY_ERROR_CODES, WireClient } from './through-client.js';
import { driven } from '../collectors/series/fixtures.js';

const FAMILIES = [CC_ATTACK_REQUESTS, ...CC_GAUGES];
const GAUGES = CC_GAUGES.map((f) => f.name);
const spec = ccCounter();

/** The three trend forms parse.ts recognises, taken in turn. */
function trendItem(points: readonly InputPoint[]): unknown {
  switch (points.length % 3) {
    case 0: return { metricName: 'ccPolicyTrend', data: { trend: points } };
    case 1: return { metricName: 'ccPolicyTrend', objectArrayList: points };
    default: return JSON.stringify({ metricName: 'ccPolicyTrend', data: points });
  }
}

const harness: SeriesHarness<CcParsed> = {
  specs: [spec],
  body: ([points]) => ({ code: 200, data: points === undefined ? [{ metricName: 'attack_detail', data: { peakRequests: 1 } }] : [trendItem(points)] }),
  read: (body) => parseCcAnswer(describeL7CCAttackAnswer.parse(wire(body)).data),
  convert: (plans, pieces, grid, o) => driven(convertCc, {
    specs: [spec], plans, pieces, main: undefined, grid, gauges: { windowBucket: o.now, timestamps: o.timestamps, families: [] },
  }),
};

function convertOne(parsed: CcParsed, now: number, watermarkAgo: number, perDomain: boolean) {
  const specs = [perDomain ? ccCounter('a.example.com') : spec];
  const grid = { interval: '1m' as const, offsetMinutes: tz.offsetMinutes };
  const o = { interval: grid.interval, delayMs: 120_000, maxBackfillMs: 86_400_000, timestamps: true };
  const plans = planSeries(specs.map((s) => s.key), { now, watermarks: { [specs[0]?.key ?? '']: now - watermarkAgo }, tz, log: silentLog }, o);
  const lastSettled = lastSettledStart(now, grid.interval, o.delayMs, grid.offsetMinutes);
  return driven(convertCc, {
    specs, plans, grid, main: parsed, pieces: [{ range: { first: now - 86_400_000, last: now }, answer: parsed }],
    gauges: { windowBucket: lastSettled, timestamps: true, families: GAUGES },
  });
}

describe('cc-attack: answers outside the documented shape', () => {
  const client = new WireClient();
  afterAll(() => client.close());
  const request = ccRequest(['a.example.com'], '1m', { beginTime: '2026-03-02 11:00:00', endTime: '2026-03-02 12:00:00' },
    ['ccPolicyTrend', 'attack_detail', 'domain', 'http_user_agent']);

  it('are rejected with a typed error, or read and converted without throwing', async () => {
    await fc.assert(
      fc.asyncProperty(outsideBodies(ccBody), fc.integer({ min: 0, max: 7_200_000 }), fc.boolean(), async (body, ago, perDomain) => {
        const answer = await client.answer('describeL7CCAttack', request, body);
        if (!answer.ok) return void expect([...BODY_ERROR_CODES]).toContain(answer.error.code);
        const out = convertOne(parseCcAnswer(answer.value.data), T0, ago, perDomain);
        expectWellFormed([...out.gauges], FAMILIES);
      }),
      runs(200),
    );
  });
});

describe('cc-attack: hostile answers inside the documented shape', () => {
  it('parse, and give finite gauges with the family labels, each series once', () => {
    fc.assert(
      fc.property(ccBody, fc.integer({ min: 0, max: 7_200_000 }), fc.boolean(), (body, ago, perDomain) => {
        const parsed = describeL7CCAttackAnswer.safeParse(wire(body));
        expect(parsed.error?.issues ?? []).toEqual([]);
        if (!parsed.success) return;
        const cc = parseCcAnswer(parsed.data.data);
        for (const [, v] of cc.trend ?? []) if (v !== null) expect(Number.isFinite(v)).toBe(true);
        const out = convertOne(cc, T0, ago, perDomain);
        expectWellFormed([...out.gauges], FAMILIES);
        expectWellFormed(ccGauges(cc, { windowBucket: T0, timestamps: false, families: GAUGES }), FAMILIES);
        for (const inc of out.increments) expect(inc.value).toBeGreaterThanOrEqual(0);
        expect(out.increments.every((s) => s.name === CC_ATTACK_REQUESTS_BY_DOMAIN.name)).toBe(true);
      }),
      runs(300),
    );
  });

  it('the counter across cycles stays finite, never goes down, and counts nothing twice', () => {
    fc.assert(fc.property(scenario(false), fc.gen(), (s, g) => void runCycles(harness, s, g, false)), runs(200));
  });

  it('every settled bucket counted is counted exactly once, with its final value', () => {
    fc.assert(fc.property(scenario(true), fc.gen(), (s, g) => void runCycles(harness, s, g, true)), runs(200));
  });
});
