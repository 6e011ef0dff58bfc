// Inventory (packages, layer-4, domains, certificates, cache records, live
// orders and quality): whatever the rows hold, each conversion returns every
// family it owns, samples with exactly the family's labels, finite values,
// no series twice, and in every state set exactly one state at 1 per row.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { OperationName } from '../../src/api/index.js';
import { getCacheRecordListAnswer } from '../../src/api/schemas/cache.js';
import { describeHostingAnswer } from '../../src/api/schemas/certificates.js';
import { listDomainsAnswer } from '../../src/api/schemas/domains.js';
import type { RequestOf, AnswerOf } from '../../src/api/schemas/index.js';
import { describeHostAcceleratePackOrderAnswer, describeVQUserDataAnswer } from '../../src/api/schemas/orders.js';
import { getPackageDetailsAnswer, getPackagesAnswer, listLayer4PackagesAnswer } from '../../src/api/schemas/packages.js';
import { convertCacheRecords } from '../../src/collectors/inventory/convert-cache.js';
import { convertCertificates } from '../../src/collectors/inventory/convert-certificates.js';
import { convertDomains } from '../../src/collectors/inventory/convert-domains.js';
import { convertLiveOrders, convertLiveQuality } from '../../src/collectors/inventory/convert-live.js';
import { convertLayer4Details, convertLayer4List, convertPackages } from '../../src/collectors/inventory/convert-packages.js';
import {
  CACHE_FAMILIES, CERTIFICATE_FAMILIES, DOMAIN_FAMILIES, INVENTORY_FAMILIES, L4_DETAIL_FAMILIES, L4_LIST_FAMILIES, LIVE_ORDER_FAMILIES,
  LIVE_QUALITY_FAMILIES, PACKAGE_FAMILIES, type StateSetDef,
} from '../../src/collectors/inventory/metrics.js';
import type { Converted } from '../../src/collectors/inventory/sample-set.js';
import type { MetricDef } from '../../src/collectors/collector.js';
import { runs, wire } from './hostile.js';
import {
  cacheBody, certificatesBody, domainsBody, layer4DetailsBody, layer4ListBody, liveOrdersBody, liveQualityBody, packagesBody,
} from './inventory-bodies.js';
import { outsideBodies } from './outside.js';
import { expectWellFormed } from './samples.js';
import { tz } from './series-cycles.js';
import { BODY_ERROR_CODES, WireClient } from './through-client.js';

function isStateSet(def: MetricDef): def is StateSetDef {
  return 'stateLabel' in def;
}

/** The checks every inventory conversion must pass. */
function expectConverted(out: Converted, defs: readonly MetricDef[]): void {
  expect([...out.families.keys()]).toEqual(defs.map((d) => d.name));
  const samples = [...out.families.values()].flat();
  expectWellFormed(samples, INVENTORY_FAMILIES);
  for (const def of defs.filter(isStateSet)) {
    const rows = new Map<string, number>();
    for (const s of out.families.get(def.name) ?? []) {
      expect([0, 1]).toContain(s.value);
      const row = JSON.stringify(def.labels.filter((l) => l !== def.stateLabel).map((l) => s.labels[l]));
      rows.set(row, (rows.get(row) ?? 0) + s.value);
    }
    for (const [row, ones] of rows) expect(ones, `${def.name} ${row}: one current state`).toBe(1);
  }
}

interface Resource<K extends OperationName> {
  readonly operation: K;
  readonly request: RequestOf<K>;
  readonly body: fc.Arbitrary<unknown>;
  readonly parse: (body: unknown) => AnswerOf<K>;
  readonly convert: (answer: AnswerOf<K>) => Converted;
  readonly families: readonly MetricDef[];
}

const page = { pageNum: 1, pageSize: 100 };
const resource = <K extends OperationName>(r: Resource<K>): Resource<K> => r;

const RESOURCES = [
  resource({ operation: 'getPackages', request: {}, body: packagesBody, parse: (b) => getPackagesAnswer.parse(b), convert: (r) => convertPackages(r.data), families: PACKAGE_FAMILIES }),
  resource({ operation: 'listLayer4Packages', request: page, body: layer4ListBody, parse: (b) => listLayer4PackagesAnswer.parse(b), convert: (r) => convertLayer4List(r.rows, tz), families: L4_LIST_FAMILIES }),
  resource({
    operation: 'getPackageDetails', request: { oid: 'L4-1' }, body: layer4DetailsBody, parse: (b) => getPackageDetailsAnswer.parse(b),
    convert: (r) => convertLayer4Details([{ oid: 'L4-1', details: r.data ?? null }, { oid: r.data?.oid ?? 'L4-2', details: r.data ?? null }]),
    families: L4_DETAIL_FAMILIES,
  }),
  resource({
    operation: 'listDomains', request: { filters: [], searchHeader: { isActive: [] }, ...page }, body: domainsBody,
    parse: (b) => listDomainsAnswer.parse(b), convert: (r) => convertDomains(r.rows, tz), families: DOMAIN_FAMILIES,
  }),
  resource({ operation: 'describeHosting', request: page, body: certificatesBody, parse: (b) => describeHostingAnswer.parse(b), convert: (r) => convertCertificates(r.rows, tz), families: CERTIFICATE_FAMILIES }),
  resource({
    operation: 'getCacheRecordList', request: { type: '1', ...page, params: { beginTime: '2026-03-02 11:00:00', endTime: '2026-03-02 12:00:00' } },
    body: cacheBody, parse: (b) => getCacheRecordListAnswer.parse(b),
    // The same rows for every type: repeated ids across types are separate records.
    convert: (r) => convertCacheRecords({ '1': r.rows, '2': r.rows.slice(1), '3': [] }), families: CACHE_FAMILIES,
  }),
  resource({
    operation: 'describeHostAcceleratePackOrder', request: page, body: liveOrdersBody, parse: (b) => describeHostAcceleratePackOrderAnswer.parse(b),
    convert: (r) => convertLiveOrders(r.rows, tz), families: LIVE_ORDER_FAMILIES,
  }),
  resource({ operation: 'describeVQUserData', request: page, body: liveQualityBody, parse: (b) => describeVQUserDataAnswer.parse(b), convert: (r) => convertLiveQuality(r.rows, tz), families: LIVE_QUALITY_FAMILIES }),
] as const;

describe('inventory: hostile answers inside the documented shape', () => {
  it.each(RESOURCES.map((r) => [r.operation, r] as const))('%s: parse, and convert into well-formed families', (_op, r) => {
    const res = r as Resource<OperationName>;
    fc.assert(
      fc.property(res.body, (body) => {
        const parsed = res.parse(wire(body));
        expectConverted(res.convert(parsed), res.families);
      }),
      runs(150),
    );
  });
});

describe('inventory: answers outside the documented shape', () => {
  const client = new WireClient();
  afterAll(() => client.close());

  it.each(RESOURCES.map((r) => [r.operation, r] as const))('%s: rejected with a typed error, or converted', async (_op, r) => {
    const res = r as Resource<OperationName>;
    await fc.assert(
      fc.asyncProperty(outsideBodies(res.body), async (body) => {
        const answer = await client.answer(res.operation, res.request, body);
        if (!answer.ok) return void expect([...BODY_ERROR_CODES]).toContain(answer.error.code);
        expectConverted(res.convert(answer.value), res.families);
      }),
      runs(60),
    );
  });
});
