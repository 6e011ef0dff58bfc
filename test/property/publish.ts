// One hostile cycle of every collector, as the daemon would publish it: the
// answers parsed as the client does, converted purely, counters through the
// ledger, and each collector's update handed to a FamilyStore. Targets
// (domain, package) are hostile too: they become label values.
import fc from 'fast-check';
import type { DescribeL7MostDataAnswer } from '../../src/api/index.js';
import { getCacheRecordListAnswer } from '../../src/api/schemas/cache.js';
import { describeHostingAnswer } from '../../src/api/schemas/certificates.js';
import { listDomainsAnswer } from '../../src/api/schemas/domains.js';
import { describeHostAcceleratePackOrderAnswer, describeVQUserDataAnswer } from '../../src/api/schemas/orders.js';
import { getPackagesAnswer, listLayer4PackagesAnswer } from '../../src/api/schemas/packages.js';
import {
  describeL7CCAttackAnswer, describeL7DataV2Answer, describeL7MostDataAnswer, describeL7UsageDataAnswer,
} from '../../src/api/schemas/statistics.js';
import { describeLogV2Answer } from '../../src/api/schemas/waf-log.js';
import { accessCounters, convertAccessV2 } from '../../src/collectors/access/convert.js';
import { ACCESS_V2_FAMILIES } from '../../src/collectors/access/metrics.js';
import { lastSettledStart, type Plan } from '../../src/collectors/buckets.js';
import { ccCounter, convertCc } from '../../src/collectors/cc-attack/convert.js';
import { CC_ATTACK_REQUESTS, CC_GAUGES } from '../../src/collectors/cc-attack/metrics.js';
import { parseCcAnswer } from '../../src/collectors/cc-attack/parse.js';
import { convertCacheRecords } from '../../src/collectors/inventory/convert-cache.js';
import { convertCertificates } from '../../src/collectors/inventory/convert-certificates.js';
import { convertDomains } from '../../src/collectors/inventory/convert-domains.js';
import { convertLiveOrders, convertLiveQuality } from '../../src/collectors/inventory/convert-live.js';
import { convertLayer4List, convertPackages } from '../../src/collectors/inventory/convert-packages.js';
import { INVENTORY_FAMILIES } from '../../src/collectors/inventory/metrics.js';
import type { Converted } from '../../src/collectors/inventory/sample-set.js';
import { CounterTotals } from '../../src/counters/ledger.js';
import { planSeries, type CounterSpec, type Grid, type TargetResult } from '../../src/collectors/series/index.js';
import { convertTopn } from '../../src/collectors/topn/convert.js';
import { TOPN_FAMILIES, TOPN_REQUESTS, TOPN_TRAFFIC_BYTES } from '../../src/collectors/topn/metrics.js';
import type { MetricDef, Sample, SampleSink } from '../../src/collectors/collector.js';
import { convertUsage, usageCounters } from '../../src/collectors/usage/convert.js';
import { USAGE_FAMILIES } from '../../src/collectors/usage/metrics.js';
import { wafCombos, wafCounter } from '../../src/collectors/waf-trend/convert.js';
import { WAF_TREND_FAMILIES } from '../../src/collectors/waf-trend/metrics.js';
import { hostileString, wire } from './hostile.js';
import { cacheBody, certificatesBody, domainsBody, layer4ListBody, liveOrdersBody, liveQualityBody, packagesBody } from './inventory-bodies.js';
import { silentLog, T0, tz } from './series-cycles.js';
import { accessV2Body, ccBody, logTreadBody, mostBody, usageBody } from './statistics-bodies.js';
import { driven, drivenWaf } from '../collectors/series/fixtures.js';

/** Every family the cycle below can publish (cc-attack account-wide). */
export const ALL_FAMILIES: readonly MetricDef[] = [
  ...ACCESS_V2_FAMILIES, ...USAGE_FAMILIES, ...TOPN_FAMILIES, CC_ATTACK_REQUESTS, ...CC_GAUGES, ...WAF_TREND_FAMILIES, ...INVENTORY_FAMILIES,
];

export interface World {
  readonly domain: string;
  readonly pkg: string;
  readonly watermarkAgo: number;
  readonly timestamps: boolean;
  readonly bodies: Readonly<Record<'usage' | 'access' | 'most' | 'cc' | 'waf' | 'packages' | 'l4' | 'domains' | 'certs' | 'cache' | 'orders' | 'quality', unknown>>;
}

export const world: fc.Arbitrary<World> = fc.record({
  domain: fc.oneof(fc.constant('a.example.com'), hostileString),
  pkg: fc.oneof(fc.constant('pkg-1'), hostileString),
  watermarkAgo: fc.integer({ min: 0, max: 7_200_000 }),
  timestamps: fc.boolean(),
  bodies: fc.record({
    usage: usageBody, access: accessV2Body, most: mostBody, cc: ccBody, waf: logTreadBody, packages: packagesBody, l4: layer4ListBody,
    domains: domainsBody, certs: certificatesBody, cache: cacheBody, orders: liveOrdersBody, quality: liveQualityBody,
  }),
});

type Update = Parameters<SampleSink['publish']>[1];

const grid: Grid = { interval: '1m', offsetMinutes: tz.offsetMinutes };
const options = { interval: grid.interval, delayMs: 120_000, maxBackfillMs: 86_400_000 };
const lastSettled = lastSettledStart(T0, grid.interval, options.delayMs, grid.offsetMinutes);
const range = { first: T0 - 7_200_000, last: T0 };

function plansFor<R>(specs: readonly CounterSpec<R>[], ago: number, timestamps: boolean): ReadonlyMap<string, Plan> {
  const watermarks = Object.fromEntries(specs.map((s) => [s.key, T0 - ago]));
  return planSeries(specs.map((s) => s.key), { now: T0, watermarks, tz, log: silentLog }, { ...options, timestamps });
}

/**
 * A collector's counters after this cycle, as the ledger publishes them: the
 * increments it accepts (finite, >= 0) added to its CounterTotals, the write
 * taken and marked done (what CounterLedger.save does once the file is on
 * disk), then the saved totals.
 */
function countedUpdate(increments: readonly Sample[]): Sample[] {
  const totals = new CounterTotals();
  for (const inc of increments) if (Number.isFinite(inc.value) && inc.value >= 0) totals.add(inc.name, inc.labels, inc.value, inc.timestampMs);
  totals.written(totals.writing());
  return [...totals.saved];
}

/** A series collector's update: its counters as the ledger has them after this cycle, its gauges by family. */
function seriesUpdate(result: TargetResult, gaugeFamilies: readonly string[]): Update {
  const gauges = new Map<string, Sample[]>(gaugeFamilies.map((f) => [f, []]));
  for (const g of result.gauges) gauges.get(g.name)?.push(g);
  return { counters: countedUpdate(result.increments), gauges };
}

const gaugeNames = (defs: readonly MetricDef[]): string[] => defs.filter((d) => d.type === 'gauge').map((d) => d.name);

function inventoryUpdate(parts: readonly Converted[]): Update {
  return { counters: [], gauges: new Map(parts.flatMap((p) => [...p.families])) };
}

/** Each collector's update for one cycle of the world. */
export function cycleUpdates(w: World): Map<string, Update> {
  const { timestamps, watermarkAgo: ago } = w;
  const b = w.bodies;
  const out = new Map<string, Update>();

  const usage = describeL7UsageDataAnswer.parse(wire(b.usage));
  const usageSpecs = usageCounters(w.pkg);
  out.set('usage', seriesUpdate(driven(convertUsage, {
    specs: usageSpecs, plans: plansFor(usageSpecs, ago, timestamps), pieces: [{ range, answer: usage }], main: usage, grid,
    gauges: { pkg: w.pkg, lastSettled, windowBucket: lastSettled, timestamps, families: gaugeNames(USAGE_FAMILIES) },
  }), gaugeNames(USAGE_FAMILIES)));

  const access = describeL7DataV2Answer.parse(wire(b.access));
  const accessSpecs = accessCounters(w.domain);
  out.set('access', seriesUpdate(driven(convertAccessV2, {
    specs: accessSpecs, plans: plansFor(accessSpecs, ago, timestamps), pieces: [{ range, answer: access }], main: access, grid,
    gauges: { domain: w.domain, lastSettled, windowBucket: lastSettled, timestamps, families: gaugeNames(ACCESS_V2_FAMILIES) },
  }), gaugeNames(ACCESS_V2_FAMILIES)));

  const most: DescribeL7MostDataAnswer = describeL7MostDataAnswer.parse(wire(b.most));
  const topn = (family: string) => convertTopn(most, { family, dimensions: ['url', 'ip', 'referer', 'status'], top: 5, other: true, bucketStart: lastSettled, timestamps });
  out.set('topn', { counters: [], gauges: new Map([[TOPN_REQUESTS.name, topn(TOPN_REQUESTS.name)], [TOPN_TRAFFIC_BYTES.name, topn(TOPN_TRAFFIC_BYTES.name)]]) });

  const cc = parseCcAnswer(describeL7CCAttackAnswer.parse(wire(b.cc)).data);
  const ccSpecs = [ccCounter()];
  out.set('cc-attack', seriesUpdate(driven(convertCc, {
    specs: ccSpecs, plans: plansFor(ccSpecs, ago, timestamps), pieces: [{ range, answer: cc }], main: cc, grid,
    gauges: { windowBucket: lastSettled, timestamps, families: gaugeNames(CC_GAUGES) },
  }), gaugeNames(CC_GAUGES)));

  const waf = describeLogV2Answer.parse(wire(b.waf));
  const wafResults = wafCombos().map((combo) => {
    const spec = wafCounter(combo, grid);
    return drivenWaf(spec, plansFor([spec], ago, timestamps), [{ range, answer: { range, tread: waf } }], grid, timestamps);
  });
  out.set('waf-trend', { counters: countedUpdate(wafResults.flatMap((r) => r.increments)), gauges: new Map() });

  const cache = getCacheRecordListAnswer.parse(wire(b.cache)).rows;
  out.set('inventory', inventoryUpdate([
    convertPackages(getPackagesAnswer.parse(wire(b.packages)).data),
    convertLayer4List(listLayer4PackagesAnswer.parse(wire(b.l4)).rows, tz),
    convertDomains(listDomainsAnswer.parse(wire(b.domains)).rows, tz),
    convertCertificates(describeHostingAnswer.parse(wire(b.certs)).rows, tz),
    convertCacheRecords({ '1': cache, '2': [], '3': cache.slice(2) }),
    convertLiveOrders(describeHostAcceleratePackOrderAnswer.parse(wire(b.orders)).rows, tz),
    convertLiveQuality(describeVQUserDataAnswer.parse(wire(b.quality)).rows, tz),
  ]));
  return out;
}
