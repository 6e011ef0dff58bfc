// Statistics answers inside their documented shapes (src/api/schemas/
// statistics.ts and waf-log.ts), filled with hostile content: strings that
// break escaping, numbers as numeric strings, huge, negative and fractional
// values, points duplicated, unordered and in the future, null gaps, unknown
// extra keys, and item lists with unknown or repeated metric names.
import fc from 'fast-check';
import { anyFinite, anyInt, hostileString, loose, looseIntInput, looseNumberInput, nullish, optional } from './hostile.js';
import { T0 } from './series-cycles.js';

/** Bucket-ish times around T0, on and off the grid, and a few absurd ones. */
const pointTime = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -600, max: 600 }).map((k) => T0 + k * 60_000) },
  { weight: 2, arbitrary: fc.integer({ min: -3_600_000, max: 3_600_000 }).map((k) => T0 + k * 1000 + 1) },
  { weight: 1, arbitrary: anyInt },
);

const point = fc.tuple(looseIntInput(pointTime), fc.option(looseNumberInput(), { nil: null }));
const points = fc.array(point, { maxLength: 40 });

/** A metricName: the documented one, another operation's, or hostile text. */
function metricName(documented: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...documented) }, { weight: 1, arbitrary: hostileString });
}

/** An object of optional series under the given keys. */
function seriesMap(keys: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  return loose(fc.record(Object.fromEntries(keys.map((k) => [k, points])), { requiredKeys: [] }));
}

function numberMap(keys: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  return loose(fc.record(Object.fromEntries(keys.map((k) => [k, looseNumberInput()])), { requiredKeys: [] }));
}

function envelope(data: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return loose(fc.record({ code: fc.constantFrom(200, '200'), msg: nullish(hostileString), data }, { requiredKeys: ['code'] }));
}

const items = <T>(item: fc.Arbitrary<T>) => nullish(fc.array(item, { maxLength: 6 }));

// --------------------------------------------------------------- describeL7UsageData

const USAGE_SERIES = ['inTraffic', 'ouTraffic', 'outTraffic', 'totalTraffic', 'inBandwidth', 'outBandwidth', 'totalBandwidth'] as const;
const USAGE_TOTALS = ['inTotalTraffic', 'outTotalTraffic', 'totalTraffic', 'maxInBandwidth', 'maxOutBandwidth', 'maxTotalBandwidth'] as const;

export const usageBody = envelope(items(loose(fc.record({
  metricName: metricName(['trafficTrend', 'bandwidthTrend', 'totalTraffic', 'totalBandwidth']),
  objectArrayListMap: nullish(seriesMap(USAGE_SERIES)),
  totalMap: nullish(numberMap(USAGE_TOTALS)),
}, { requiredKeys: ['metricName'] }))));

// --------------------------------------------------------------- describeL7DataV2

const V2_SERIES = ['upstreamBytesSent', 'totalBytesSent', 'bytesSent', 'requestCounter', 'list1xx', 'list2xx', 'list3xx', 'list4xx', 'list5xx', 'requestTime'];
const V2_TOTALS = ['upstreamBytesSent', 'totalBytesSent', 'bytesSent', 'requestCounter', '1xx', '2xx', '3xx', '4xx', '5xx'];
const V2_MAX = ['upstreamBytesSent', 'totalBytesSent', 'bytesSent', 'bytesSent95Peak', 'totalBytesSent95Peak', 'upstreamBytesSent95Peak'];

export const accessV2Body = envelope(items(loose(fc.record({
  metricName: metricName(['trafficTrend', 'bandwidthTrend', 'requestTrend', 'statusCodeTrend', 'requestTimeTrend', 'trafficRank']),
  objectArrayListMap: nullish(seriesMap(V2_SERIES)),
  totalMap: nullish(numberMap(V2_TOTALS)),
  maxMap: nullish(numberMap(V2_MAX)),
  list: nullish(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 })),
  total: optional(looseNumberInput()),
}, { requiredKeys: ['metricName'] }))));

// ----------------------------------------------------------------- describeL7Data (v1)

const valueBox = loose(fc.record({ value: fc.oneof(hostileString, anyFinite) }));
const trafficBranch = loose(fc.record({ totalTraffic: valueBox }, { requiredKeys: [] }));
const v1Summary = loose(fc.record({
  cnd: trafficBranch, cdn: trafficBranch, source: trafficBranch,
  bandwidth95Peak: fc.oneof(hostileString, anyFinite),
  totalRequest: valueBox,
  topBandwidth: loose(fc.record({ value: fc.oneof(hostileString, anyFinite), date: fc.oneof(hostileString, anyFinite) }, { requiredKeys: ['value'] })),
}, { requiredKeys: [] }));
const v1Item = loose(fc.record({
  metricName: metricName(['trafficTrend', 'bandwidthTrend', 'requestTrend', 'trafficRank', 'totalTraffic']),
  data: nullish(fc.oneof(loose(fc.record({ trend: points }, { requiredKeys: [] })), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }))),
}, { requiredKeys: ['metricName'] }));

export const accessV1Body = envelope(nullish(fc.oneof({ weight: 4, arbitrary: fc.array(v1Item, { maxLength: 6 }) }, v1Summary)));

// ------------------------------------------------------------- describeL7MostData

/** Values at the edge of the doubles, so sums of them overflow. */
const extreme = fc.constantFrom(1e308, -1e308, Number.MAX_VALUE, -Number.MAX_VALUE);
const rankEntry = loose(fc.record({ name: fc.oneof(hostileString, anyFinite), value: fc.oneof(looseNumberInput(), extreme) }));

export const mostBody = envelope(items(loose(fc.record({
  metricName: metricName(['url', 'ip', 'referer', 'status', 'http_user_agent', 'domain', 'country_name']),
  data: nullish(loose(fc.record({
    total: fc.oneof(looseNumberInput(), extreme),
    list: nullish(fc.array(rankEntry, { maxLength: 25 })),
    termsCount: looseIntInput(anyInt),
  }, { requiredKeys: ['total', 'termsCount'] }))),
}, { requiredKeys: ['metricName'] }))));

// ------------------------------------------------------------- describeL7CCAttack

const numberish = fc.oneof(anyFinite, extreme, fc.constantFrom(' 12 ', '-3', '1.5', '1e3', 'NaN', '', '9'.repeat(400)), hostileString);

/** One cc item in a recognised shape (or close to one), as an object or as its JSON text. */
const ccObject = fc.oneof(
  fc.record({ metricName: fc.constant('ccPolicyTrend'), data: loose(fc.record({ trend: points })) }),
  fc.record({ metricName: fc.constant('ccPolicyTrend'), objectArrayList: points }),
  fc.record({ metricName: fc.constant('ccPolicyTrend'), data: points }),
  fc.record({ metricName: fc.constant('attack_detail'), data: loose(fc.record({ attackedDomains: numberish, peakRequests: numberish, attackRequests: numberish }, { requiredKeys: [] })) }),
  fc.record({
    metricName: fc.constantFrom('domain', 'http_user_agent'),
    data: loose(fc.record({ list: fc.array(loose(fc.record({ name: fc.oneof(hostileString, anyFinite), value: numberish })), { maxLength: 12 }), total: numberish }, { requiredKeys: ['list'] })),
  }),
  fc.record({ metricName: hostileString, data: fc.jsonValue({ maxDepth: 2 }) }),
);

const ccItem = fc.oneof(
  { weight: 6, arbitrary: loose(ccObject) },
  { weight: 2, arbitrary: ccObject.map((o) => JSON.stringify(o)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

export const ccBody = envelope(items(ccItem));

// ------------------------------------------------------------------ describeLogV2 logTread

export const logTreadBody = envelope(nullish(fc.array(loose(fc.record({
  metricName: metricName(['logTread', 'logs']),
  list: nullish(fc.constant([])),
  objectArrayList: nullish(points),
  count: optional(looseIntInput(anyInt)),
}, { requiredKeys: ['metricName'] })), { maxLength: 3 })));
