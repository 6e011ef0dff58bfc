// One request per operation that passes the client's validation and, for
// operations 1-16, succeeds against the simulated world it is built from (the
// order operations' per-item verdicts are test/contract/orders.test.ts's
// business; here they only need to be well-formed). Used where a test needs
// "some valid call" of every operation: authentication and faults.
import type { OperationName, RequestOf } from '../../src/api/index.js';
import type { World } from '../../src/simulator/world.js';
import { HOUR, MIN, params, T0 } from './harness.js';

export type ValidRequests = { readonly [K in OperationName]: RequestOf<K> };

/** A settled hour well before T0. */
const RANGE = params(T0 - 3 * HOUR, T0 - 2 * HOUR);

export function validRequests(world: World): ValidRequests {
  const l4 = world.l4Packages.find((p) => p.activate === 1 && p.rules.length > 0 && p.rules.length < p.totalPort);
  const rule = l4?.rules[0];
  const node = l4?.nodes[0]?.[1];
  const domain = world.domains[0];
  const cert = world.certificates.find((c) => c.status === 3);
  if (!l4 || !rule || !node || !domain || !cert) throw new Error('the seeded world lacks a usable layer-4 package, domain or certificate');
  const { ruleId: _ruleId, ...ruleFields } = rule;
  return {
    // Ten minutes: WAF events are generated per query, and an hour of them is slow to page.
    describeLogV2: { action: [{ metricName: 'logTread' }], params: params(T0 - 3 * HOUR, T0 - 3 * HOUR + 10 * MIN) },
    // Protocol 0 differs from every seeded domain's, so the write always changes the world.
    batchUpdateDomainCertInfo: { domainIdList: [domain.id], protocol: 0, source: 1, certId: cert.certId },
    getPackages: {},
    describeL7UsageData: { interval: '1h', oids: [], params: RANGE, action: [{ metricName: 'totalTraffic' }] },
    describeL7DataV2: { domains: [], interval: '1h', params: RANGE, action: [{ metricName: 'requestTrend' }] },
    describeL7Data: {
      domains: [], interval: '1h', params: RANGE, action: [{ metricName: 'totalRequest' }],
      mostDimension: 'domain', pageNum: 1, pageSize: 10, terminal: 'cdn',
    },
    describeL7MostData: {
      action: [{ metricName: 'domain' }], interval: '1h', params: RANGE, pageNum: 1, pageSize: 10, mostDimension: 'requestCount',
    },
    describeL7CCAttack: { interval: '1h', params: RANGE, action: [{ metricName: 'ccPolicyTrend' }] },
    listLayer4Packages: { pageNum: 1, pageSize: 10 },
    getPackageDetails: { oid: l4.oid },
    insertRule: {
      oid: l4.oid,
      rules: [{ ...ruleFields, hyPort: '39001', node, limitConn: '' }],
    },
    updateRule: { ...ruleFields, ruleId: rule.ruleId, remark: 'contract test' },
    listDomains: { filters: [], searchHeader: { isActive: [] }, pageNum: 1, pageSize: 10 },
    describeHosting: { pageNum: 1, pageSize: 10 },
    getCacheRecordList: { type: '1', pageNum: 1, pageSize: 10, params: params(T0 - 7 * 24 * HOUR, T0) },
    pushUrlsCache: { urls: [`https://${domain.domainName}/index.html`], area: 'global' },
    createHostAcceleratePackOrder: {
      packOrder: [{ platformId: '982945000', uid: '5747000', source: '电信', endMonthTime: '2026-12-31', isRenew: false }],
    },
    updateHostAcceleratePackOrder: {
      updateOrders: [{ orderId: 'order-1', uid: '5747000', source: '电信', endMonthTime: '2026-12-31', isRenew: false }],
    },
    modifyHostAcceleratePackOrder: {
      modifyOrders: [{ orderId: 'order-1', oldUid: '5747000', newUid: '5747001', newPlatformId: '982945001', executeTime: '2026-03-05' }],
    },
    describeHostAcceleratePackOrder: { pageNum: 1, pageSize: 10 },
    describeVQUserData: { pageNum: 1, pageSize: 10 },
  };
}
