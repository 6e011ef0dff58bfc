import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES, type OperationName } from '../../src/api/operations.js';
import { operationSchemas, type RequestOf } from '../../src/api/schemas/index.js';

const range = { beginTime: '2026-03-01 00:00:00', endTime: '2026-03-01 01:00:00' };

function issuesOf(operation: OperationName, body: unknown, part: 'request' | 'answer' = 'request') {
  const result = operationSchemas[operation][part].safeParse(body);
  return result.success ? [] : result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
}

const rule = {
  hyPort: '8080',
  listenPort: '80',
  node: 'node-a',
  originAddress: '10.0.0.1;10.0.0.2',
  protocolType: 'tcp',
  proxyProtocol: 'off',
  types: 'on',
  limitConn: '',
  remark: 'sample',
} as const;

// Typed against RequestOf so a schema change that breaks callers fails the type check too.
const validRequests: { [K in OperationName]: RequestOf<K> } = {
  describeLogV2: {
    action: [{ metricName: 'logs', pageNo: 1, pageSize: 10 }, { metricName: 'logTread' }],
    domains: [],
    otherFilter: [{ oneVal: 'client_ip', twoVal: 'eq', threeVal: ['1.2.3.4'] }],
    searchHeader: { severityLevel: '高风险', action: 'deny' },
    params: range,
    cluster: 'default',
  },
  batchUpdateDomainCertInfo: { domainIdList: [1, 2], protocol: 1, source: 1, certId: 42 },
  getPackages: {},
  describeL7UsageData: { interval: '5m', oids: ['p1'], params: range, action: [{ metricName: 'trafficTrend' }] },
  describeL7DataV2: {
    action: [{ metricName: 'statusCodeTrend' }],
    domains: [],
    interval: '1m',
    params: range,
    otherFilter: [{ oneVal: 'domain', twoVal: 'x', threeVals: ['a'] }],
  },
  describeL7Data: {
    action: [{ metricName: 'totalTraffic' }],
    domains: ['a.example'],
    interval: '1h',
    params: range,
    mostDimension: 'requestCount',
    pageNum: 1,
    pageSize: 10,
    terminal: 'cdn',
  },
  describeL7MostData: {
    action: [{ metricName: 'ua_os_name' }],
    interval: '1d',
    pageNum: 1,
    pageSize: 20,
    mostDimension: 'trafficSum',
    terminal: 'source',
  },
  describeL7CCAttack: { action: [{ metricName: 'attack_detail' }], interval: '5m', params: range },
  listLayer4Packages: { pageNum: 1, pageSize: 10, filters: [{ label: 'packageName', value: ['x'] }], searchHeader: { activate: ['1', '-1'] } },
  getPackageDetails: { oid: 'L4-001' },
  insertRule: { oid: 'L4-001', rules: [rule] },
  updateRule: { ...rule, limitConn: 100, ruleId: 9007 },
  listDomains: { filters: [{ label: 'domainName', value: ['a.example'] }], searchHeader: { isActive: ['0', '1', '2'] } },
  describeHosting: { pageNum: 1, pageSize: 50, searchHeader: { certEndDay: '30' }, filters: [{ label: 'issuerDN', value: ['R3'] }] },
  getCacheRecordList: { type: '2', pageNum: 1, pageSize: 10, params: range },
  pushUrlsCache: { urls: ['https://a.example/x.m3u8'], area: 'global', parseM3U8: true, urlEncode: false },
  createHostAcceleratePackOrder: {
    packOrder: [{ platformId: 'p1', uid: 'u1', source: '电信', endMonthTime: '2026-04-30 23:59:59', isRenew: true }],
  },
  updateHostAcceleratePackOrder: {
    updateOrders: [{ orderId: 'o1', uid: 'u1', source: '联通', endMonthTime: '2026-04-30', isRenew: false, nickname: 'n' }],
  },
  modifyHostAcceleratePackOrder: {
    modifyOrders: [{ orderId: 'o1', oldUid: 'u1', newUid: 'u2', newPlatformId: 'p2', executeTime: '2026-03-02' }],
  },
  describeHostAcceleratePackOrder: { pageNum: 1, pageSize: 10, source: '移动', startTime: '2026-03-01 00:00:00' },
  describeVQUserData: { pageNum: 1, pageSize: 10, filters: [{ label: 'dataId', value: ['17'] }] },
};

describe('request schemas', () => {
  it('cover every operation', () => {
    expect(Object.keys(operationSchemas).sort()).toEqual([...OPERATION_NAMES].sort());
  });

  it.each(OPERATION_NAMES)('%s accepts a valid request', (operation) => {
    expect(issuesOf(operation, validRequests[operation])).toEqual([]);
  });

  it('keeps keys it does not model, so undocumented public parameters reach the server', () => {
    const sent = operationSchemas.pushUrlsCache.request.parse({ ...validRequests.pushUrlsCache, extra: 'kept' });
    expect(sent).toMatchObject({ extra: 'kept' });
  });

  it.each([
    ['describeLogV2', validRequests.describeLogV2],
    ['describeL7MostData', validRequests.describeL7MostData],
  ] as const)('%s sends otherFilter: [] when the caller omits it', (operation, body) => {
    const { otherFilter: _omitted, ...rest } = body;
    expect(operationSchemas[operation].request.parse(rest)).toMatchObject({ otherFilter: [] });
  });

  const { certId: _certId, ...managedWithoutId } = validRequests.batchUpdateDomainCertInfo;
  const v = validRequests;

  // [case, operation, body, path of the expected issue, words its message must contain]
  it.each<[string, OperationName, unknown, string, string[]]>([
    ['interval 2m', 'describeL7UsageData', { ...v.describeL7UsageData, interval: '2m' }, 'interval', ['1m', '5m', '1h', '1d']],
    ['interval missing', 'describeL7CCAttack', { action: [] }, 'interval', ['1m', '5m', '1h', '1d']],
    ['WAF twoVal gt', 'describeLogV2', { ...v.describeLogV2, otherFilter: [{ oneVal: 'domain', twoVal: 'gt' }] }, 'otherFilter.0.twoVal', ['eq', 'ne', 'contain']],
    ['WAF oneVal ip', 'describeLogV2', { ...v.describeLogV2, otherFilter: [{ oneVal: 'ip' }] }, 'otherFilter.0.oneVal', ['client_ip', 'rule_tags', 'waf_acl_id', 'oid']],
    ['WAF severityLevel', 'describeLogV2', { ...v.describeLogV2, searchHeader: { severityLevel: 'high' } }, 'searchHeader.severityLevel', ['高风险', '中风险', '低风险']],
    ['WAF searchHeader action', 'describeLogV2', { ...v.describeLogV2, searchHeader: { action: 'block' } }, 'searchHeader.action', ['deny', 'pass']],
    ['log metric logTrend', 'describeLogV2', { ...v.describeLogV2, action: [{ metricName: 'logTrend' }] }, 'action.0.metricName', ['logs', 'logTread']],
    ['log action empty', 'describeLogV2', { ...v.describeLogV2, action: [] }, 'action', ['at least one']],
    ['log pageNo 0', 'describeLogV2', { ...v.describeLogV2, action: [{ metricName: 'logs', pageNo: 0 }] }, 'action.0.pageNo', ['>=1']],
    ['log params missing', 'describeLogV2', { action: [{ metricName: 'logs' }] }, 'params', ['expected object']],
    ['usage metric', 'describeL7UsageData', { ...v.describeL7UsageData, action: [{ metricName: 'requestTrend' }] }, 'action.0.metricName', ['trafficTrend', 'totalTraffic', 'bandwidthTrend', 'totalBandwidth']],
    ['usage metricName required', 'describeL7UsageData', { ...v.describeL7UsageData, action: [{}] }, 'action.0.metricName', ['trafficTrend']],
    ['v2 metric totalTraffic', 'describeL7DataV2', { ...v.describeL7DataV2, action: [{ metricName: 'totalTraffic' }] }, 'action.0.metricName', ['trafficRank', 'statusCodeRank', 'requestTimeTrend']],
    ['v2 domains required', 'describeL7DataV2', { ...v.describeL7DataV2, domains: undefined }, 'domains', ['expected array']],
    ['op6 metric statusCodeTrend', 'describeL7Data', { ...v.describeL7Data, action: [{ metricName: 'statusCodeTrend' }] }, 'action.0.metricName', ['totalTraffic', 'bandwidthRank', 'totalRequest']],
    ['op6 terminal required', 'describeL7Data', { ...v.describeL7Data, terminal: undefined }, 'terminal', ['expected string']],
    ['op6 mostDimension required', 'describeL7Data', { ...v.describeL7Data, mostDimension: undefined }, 'mostDimension', ['expected string']],
    ['op6 pageSize required', 'describeL7Data', { ...v.describeL7Data, pageSize: undefined }, 'pageSize', ['expected number']],
    ['most metric requestTrend', 'describeL7MostData', { ...v.describeL7MostData, action: [{ metricName: 'requestTrend' }] }, 'action.0.metricName', ['ip', 'referer', 'scheme', 'country_name']],
    ['most dimension', 'describeL7MostData', { ...v.describeL7MostData, mostDimension: 'count' }, 'mostDimension', ['requestCount', 'trafficSum']],
    ['most pageNum required', 'describeL7MostData', { ...v.describeL7MostData, pageNum: undefined }, 'pageNum', ['expected number']],
    ['CC metric', 'describeL7CCAttack', { ...v.describeL7CCAttack, action: [{ metricName: 'trafficTrend' }] }, 'action.0.metricName', ['ccPolicyTrend', 'attack_detail', 'domain', 'http_user_agent']],
    ['date format', 'getCacheRecordList', { ...v.getCacheRecordList, params: { beginTime: '2026-03-01T00:00:00Z', endTime: range.endTime } }, 'params.beginTime', ['yyyy-MM-dd HH:mm:ss']],
    ['calendar date', 'describeL7UsageData', { ...v.describeL7UsageData, params: { beginTime: '2026-02-30 00:00:00', endTime: range.endTime } }, 'params.beginTime', ['yyyy-MM-dd HH:mm:ss']],
    ['range reversed', 'describeL7UsageData', { ...v.describeL7UsageData, params: { beginTime: range.endTime, endTime: range.beginTime } }, 'params.endTime', ['beginTime']],
    ['cert protocol', 'batchUpdateDomainCertInfo', { ...v.batchUpdateDomainCertInfo, protocol: 2 }, 'protocol', ['0', '1']],
    ['cert source', 'batchUpdateDomainCertInfo', { ...v.batchUpdateDomainCertInfo, source: '1' }, 'source', ['0', '1']],
    ['managed cert without certId', 'batchUpdateDomainCertInfo', managedWithoutId, 'certId', ['source is 1']],
    ['own cert without key', 'batchUpdateDomainCertInfo', { domainIdList: [1], protocol: 0, source: 0, sslCert: 'PEM' }, 'sslKey', ['source is 0']],
    ['own cert with empty cert', 'batchUpdateDomainCertInfo', { domainIdList: [1], protocol: 0, source: 0, sslCert: '', sslKey: 'K' }, 'sslCert', ['source is 0']],
    ['layer-4 activate code', 'listLayer4Packages', { ...v.listLayer4Packages, searchHeader: { activate: ['2'] } }, 'searchHeader.activate.0', ['0', '-1', '1', '3', '4']],
    ['layer-4 filter label', 'listLayer4Packages', { ...v.listLayer4Packages, filters: [{ label: 'name', value: [] }] }, 'filters.0.label', ['oid', 'packageName']],
    ['details oid empty', 'getPackageDetails', { oid: '' }, 'oid', ['empty']],
    ['insert without oid', 'insertRule', { rules: [rule] }, 'oid', ['expected string']],
    ['protocolType', 'insertRule', { oid: 'L4', rules: [{ ...rule, protocolType: 'http' }] }, 'rules.0.protocolType', ['tcp', 'udp']],
    ['proxyProtocol', 'updateRule', { ...v.updateRule, proxyProtocol: 'yes' }, 'proxyProtocol', ['on', 'off']],
    ['types', 'updateRule', { ...v.updateRule, types: true }, 'types', ['on', 'off']],
    ['limitConn text', 'updateRule', { ...v.updateRule, limitConn: '10' }, 'limitConn', ['int32', '""']],
    ['hyPort required', 'updateRule', { ...v.updateRule, hyPort: undefined }, 'hyPort', ['expected string']],
    ['update without ruleId', 'updateRule', { ...rule }, 'ruleId', ['expected number']],
    ['isActive code', 'listDomains', { ...v.listDomains, searchHeader: { isActive: ['3'] } }, 'searchHeader.isActive.0', ['0', '1', '2']],
    ['domain filters required', 'listDomains', { searchHeader: { isActive: [] } }, 'filters', ['expected array']],
    ['domain filter label required', 'listDomains', { ...v.listDomains, filters: [{ value: ['x'] }] }, 'filters.0.label', ['domainName', 'customerRemark']],
    ['certEndDay', 'describeHosting', { ...v.describeHosting, searchHeader: { certEndDay: '14' } }, 'searchHeader.certEndDay', ['7', '30']],
    ['hosting pageSize 0', 'describeHosting', { ...v.describeHosting, pageSize: 0 }, 'pageSize', ['>=1']],
    ['pageSize beyond int32', 'getCacheRecordList', { ...v.getCacheRecordList, pageSize: 2 ** 31 }, 'pageSize', ['2147483647']],
    ['cache type', 'getCacheRecordList', { ...v.getCacheRecordList, type: 2 }, 'type', ['1', '2', '3']],
    ['area', 'pushUrlsCache', { ...v.pushUrlsCache, area: 'china' }, 'area', ['mainland', 'overseas', 'global']],
    ['urls empty', 'pushUrlsCache', { ...v.pushUrlsCache, urls: [] }, 'urls', ['at least one']],
    ['carrier', 'createHostAcceleratePackOrder', { packOrder: [{ ...v.createHostAcceleratePackOrder.packOrder[0], source: '广电' }] }, 'packOrder.0.source', ['联通', '移动', '电信']],
    ['endMonthTime format', 'createHostAcceleratePackOrder', { packOrder: [{ ...v.createHostAcceleratePackOrder.packOrder[0], endMonthTime: '2026/04/30' }] }, 'packOrder.0.endMonthTime', ['yyyy-MM-dd']],
    ['isRenew required', 'createHostAcceleratePackOrder', { packOrder: [{ platformId: 'p', uid: 'u', source: '电信', endMonthTime: '2026-04-30' }] }, 'packOrder.0.isRenew', ['expected boolean']],
    ['packOrder empty', 'createHostAcceleratePackOrder', { packOrder: [] }, 'packOrder', ['at least one']],
    ['update orderId required', 'updateHostAcceleratePackOrder', { updateOrders: [{ uid: 'u', source: '移动', endMonthTime: '2026-04-30', isRenew: true }] }, 'updateOrders.0.orderId', ['expected string']],
    ['executeTime with clock', 'modifyHostAcceleratePackOrder', { modifyOrders: [{ ...v.modifyHostAcceleratePackOrder.modifyOrders[0], executeTime: '2026-03-02 00:00:00' }] }, 'modifyOrders.0.executeTime', ['yyyy-MM-dd']],
    ['newPlatformId required', 'modifyHostAcceleratePackOrder', { modifyOrders: [{ orderId: 'o', oldUid: 'u', newUid: 'v', executeTime: '2026-03-02' }] }, 'modifyOrders.0.newPlatformId', ['expected string']],
    ['order list carrier', 'describeHostAcceleratePackOrder', { ...v.describeHostAcceleratePackOrder, source: 'CT' }, 'source', ['联通', '移动', '电信']],
    ['order list pageNum required', 'describeHostAcceleratePackOrder', { pageSize: 10 }, 'pageNum', ['expected number']],
    ['VQ filter label', 'describeVQUserData', { filters: [{ label: 'image', value: ['x'] }] }, 'filters.0.label', ['dataId', 'uid']],
  ])('rejects %s', (_case, operation, body, path, words) => {
    const issue = issuesOf(operation, body).find((i) => i.path === path);
    expect(issue, `no issue at "${path}": ${JSON.stringify(issuesOf(operation, body))}`).toBeDefined();
    for (const word of words) expect(issue?.message).toContain(word);
  });

  it('reports a missing certificate together with other mistakes', () => {
    const paths = issuesOf('batchUpdateDomainCertInfo', { domainIdList: [1], protocol: 9, source: 0 }).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['protocol', 'sslCert', 'sslKey']));
  });

  it('does not check uid against platformId: the server reports that per item', () => {
    const body = { packOrder: [{ platformId: 'p1', uid: 'someone-else', source: '电信', endMonthTime: '2026-04-30', isRenew: false }] };
    expect(issuesOf('createHostAcceleratePackOrder', body)).toEqual([]);
  });
});

const ms = 1772294400000;
const ok = { msg: '操作成功', code: 200 };

const logRecord = {
  oid: 'p1',
  requestId: 'r-1',
  wafId: 'w-1',
  clientIp: '203.0.113.7',
  hostPort: 443,
  timeStamp: '2026-03-01T00:00:01.000+08:00',
  severityLevel: '高风险',
  ua: null,
  response: { httpCode: 417 },
  geoip: { country_name: '中国', city_name: '杭州' },
  request: { method: 'GET', uri: '/login?id=1', headers: { host: 'a.example', 'x-forwarded-for': ['1.1.1.1'] } },
  rules: [
    { ruleId: '100012', ruleMessage: 'SQL injection', group: 'sqli', severity: 'CRITICAL', severityLevel: '高风险', match: { field: 'args' } },
    { ruleId: 7, ruleMessage: 'scanner', group: 'scan', severity: 'NOTICE', severityLevel: '低风险' },
  ],
};

describe('answer schemas', () => {
  // [case, operation, body shaped like the document's samples]
  it.each<[string, OperationName, unknown]>([
    ['log detail and trend', 'describeLogV2', { ...ok, data: [{ metricName: 'logs', list: [logRecord] }, { metricName: 'logTread', objectArrayList: [[ms, 12], [ms + 60_000, 0]], count: 12 }] }],
    ['log data null', 'describeLogV2', { ...ok, data: null }],
    ['cert update', 'batchUpdateDomainCertInfo', ok],
    ['package options', 'getPackages', { ...ok, data: [{ label: 'Package A', value: 'p1' }] }],
    ['usage with ouTraffic', 'describeL7UsageData', { ...ok, data: [
      { metricName: 'trafficTrend', objectArrayListMap: { inTraffic: [[ms, 1]], ouTraffic: [[ms, 2]], totalTraffic: [[ms, 3]] }, totalMap: { inTotalTraffic: 1, outTotalTraffic: 2, totalTraffic: 3 } },
      { metricName: 'bandwidthTrend', objectArrayListMap: { inBandwidth: [], outBandwidth: [], totalBandwidth: [] }, totalMap: { maxInBandwidth: '10', maxOutBandwidth: 20.5, maxTotalBandwidth: 30 } },
      { metricName: 'totalTraffic', somethingUndocumented: 1 },
    ] }],
    ['access v2 trends and ranks', 'describeL7DataV2', { ...ok, data: [
      { metricName: 'statusCodeTrend', objectArrayListMap: { list2xx: [[ms, 5], [ms + 60_000, null]], list5xx: [[ms, 0]] }, totalMap: { '2xx': 5, '5xx': 0 } },
      { metricName: 'bandwidthTrend', objectArrayListMap: { bytesSent: [[String(ms), '1.5']] }, maxMap: { bytesSent95Peak: 1 } },
      { metricName: 'requestRank', list: [{ anything: true }], total: 1 },
    ] }],
    ['op 6 array form', 'describeL7Data', { ...ok, data: [{ metricName: 'trafficTrend', data: { trend: [[ms, 1024]] } }, { metricName: 'trafficRank', data: [] }] }],
    ['op 6 object form', 'describeL7Data', { ...ok, data: { cnd: { totalTraffic: { value: '1024' } }, source: { totalTraffic: { value: '12' } }, bandwidth95Peak: '88.1', totalRequest: { value: '9' }, topBandwidth: { value: '100', date: '2026-03-01 00:05:00' } } }],
    ['top-N', 'describeL7MostData', { ...ok, data: [{ metricName: 'status', data: { total: 10, list: [{ name: '200', value: 9 }, { name: 404, value: 1 }], termsCount: 2 } }] }],
    ['CC attack items unknown', 'describeL7CCAttack', { ...ok, data: ['x', { y: 1 }] }],
    ['CC attack data null', 'describeL7CCAttack', { ...ok, data: null }],
    ['layer-4 list', 'listLayer4Packages', { ...ok, total: 1, rows: [{ ctime: 1772294400, isTest: 1, oid: 'L4-1', packageName: 'L4', ruleCnt: 2, remark: '', activate: 1, mday: null, lastday: null, alias: 'a', cname: 'c.example', bandwidth: 100 }] }],
    ['layer-4 details', 'getPackageDetails', { ...ok, data: { oid: 'L4-1', isTest: 0, alias: 'a', name: 'L4', cname: 'c', fdesc: '', nodes: [['198.51.100.1', 'node-a']], ctime: 1, utime: 2, packages: [{ name: 'L4', alias: 'a', oid: 'L4-1' }], activate: 4, mday: '2026-12-31', consumptionPort: 3, totalPort: 10, isParsing: 'off' } }],
    ['insert rule', 'insertRule', ok],
    ['update rule', 'updateRule', { msg: 'ok', code: '200' }],
    ['domain list', 'listDomains', { ...ok, total: '1', rows: [{ id: 7, sslsupport: '1', domainName: 'a.example', ip: '10.0.0.1\n10.0.0.2', port: '80', cNamePre: 'a', cNameSuf: 'cdn.example', doid: 'p1', isActive: '1', customerRemark: '', alias: '', coreId: '1', waf: '0', stopTime: '', updateTime: '2026-01-01 00:00:00', certEndTime: null, wafInternalRulesList: null }] }],
    ['hosted certificates', 'describeHosting', { ...ok, total: 1, rows: [{ certId: 5, status: 3, dnsName: 'b.example', alias: 'main', sslcrt: '-----BEGIN CERTIFICATE-----', subjectDN: 'a.example', issuerDN: 'R3', beginTime: null, endTime: '2026-06-01 00:00:00', createTime: '2026-01-01 00:00:00' }] }],
    ['cache records', 'getCacheRecordList', { ...ok, total: 1, rows: [{ id: 1, value: 'https://a.example/', ctime: 1772294400, total: 3, success: 3 }] }],
    ['push urls', 'pushUrlsCache', ok],
    ['create orders, one rejected', 'createHostAcceleratePackOrder', { ...ok, data: [
      { startTime: '2026-03-02', source: '电信', uid: 'u1', status: '1', orderId: 'o1', platformId: 'p1', isRenew: true, province: 'zj', endTime: '2026-04-30' },
      { uid: 'u2', status: '2', orderId: null },
    ] }],
    ['update orders', 'updateHostAcceleratePackOrder', { ...ok, data: [{ startTime: '2026-03-02', source: '联通', uid: 'u1', status: 1, orderId: 'o1', isRenew: false, province: 'zj', endTime: '2026-04-30' }] }],
    ['modify orders, body not shown', 'modifyHostAcceleratePackOrder', ok],
    ['modify orders with items', 'modifyHostAcceleratePackOrder', { ...ok, data: [{ status: '9', orderId: 'o1' }] }],
    ['order list', 'describeHostAcceleratePackOrder', { ...ok, total: 1, rows: [{ uid: 'u1', platformId: 'p1', startTime: '2026-03-02', endTime: '2026-04-30', isRenew: true, renew: true, status: 1, province: 'zj', source: '电信', nickName: null, message: null, orderId: 'o1', executeTime: null }] }],
    ['live-quality reports', 'describeVQUserData', { ...ok, total: 1, rows: [{ dataId: 17, uid: 'u1', image: 'img/17.png', message: 'stutter', date: '2026-03-01', createTime: '2026-03-01 10:00:00' }] }],
    ['error envelope without data', 'listDomains', { msg: '无权限', code: 403 }],
  ])('parses %s', (_case, operation, body) => {
    expect(issuesOf(operation, body, 'answer')).toEqual([]);
  });

  it('normalises what consumers rely on', () => {
    const logs = operationSchemas.describeLogV2.answer.parse({ msg: 'ok', code: '200', data: null });
    expect(logs).toEqual({ msg: 'ok', code: 200, data: [] });

    const detail = operationSchemas.describeLogV2.answer.parse({ ...ok, data: [{ metricName: 'logs', list: [logRecord] }] });
    expect(detail.data[0]?.list[0]?.rules.map((r) => r.ruleId)).toEqual(['100012', '7']);
    expect(detail.data[0]?.objectArrayList).toEqual([]);

    const orders = operationSchemas.createHostAcceleratePackOrder.answer.parse({ ...ok, data: [{ status: '2' }] });
    expect(orders.data[0]?.status).toBe(2);

    const reports = operationSchemas.describeVQUserData.answer.parse({ ...ok, total: '1', rows: [{ dataId: 17, uid: 'u', date: '2026-03-01' }] });
    expect(reports.total).toBe(1);
    expect(reports.rows[0]?.dataId).toBe('17');

    const empty = operationSchemas.listDomains.answer.parse({ ...ok, total: 0, rows: null });
    expect(empty.rows).toEqual([]);

    const usage = operationSchemas.describeL7UsageData.answer.parse({ ...ok, data: [{ metricName: 'trafficTrend', objectArrayListMap: { ouTraffic: [[String(ms), '2']] } }] });
    expect(usage.data[0]?.objectArrayListMap?.ouTraffic).toEqual([[ms, 2]]);

    const gaps = operationSchemas.describeL7DataV2.answer.parse({ ...ok, data: [{ metricName: 'requestTrend', objectArrayListMap: { requestCounter: [[ms, null]] } }] });
    expect(gaps.data[0]?.objectArrayListMap?.requestCounter).toEqual([[ms, null]]);
  });

  // [case, operation, body with a field of the wrong type, path of the issue]
  it.each<[string, OperationName, unknown, string]>([
    ['code missing', 'insertRule', { msg: 'ok' }, 'code'],
    ['code not numeric', 'pushUrlsCache', { msg: 'ok', code: 'OK' }, 'code'],
    ['data not a list', 'describeLogV2', { ...ok, data: 'none' }, 'data'],
    ['rows not a list', 'listDomains', { ...ok, total: 1, rows: 'x' }, 'rows'],
    ['total an object', 'describeHosting', { ...ok, total: {}, rows: [] }, 'total'],
    ['point timestamp text', 'describeL7UsageData', { ...ok, data: [{ metricName: 'trafficTrend', objectArrayListMap: { inTraffic: [['now', 1]] } }] }, 'data.0.objectArrayListMap.inTraffic.0.0'],
    ['point with three elements', 'describeLogV2', { ...ok, data: [{ metricName: 'logTread', objectArrayList: [[ms, 1, 2]] }] }, 'data.0.objectArrayList.0'],
    ['hostPort text', 'describeLogV2', { ...ok, data: [{ metricName: 'logs', list: [{ ...logRecord, hostPort: 'https' }] }] }, 'data.0.list.0.hostPort'],
    ['order status boolean', 'createHostAcceleratePackOrder', { ...ok, data: [{ status: true }] }, 'data.0.status'],
    ['op 6 data a string', 'describeL7Data', { ...ok, data: 'x' }, 'data'],
    ['cert endTime missing', 'describeHosting', { ...ok, total: 1, rows: [{ certId: 1, status: 3 }] }, 'rows.0.endTime'],
  ])('rejects %s', (_case, operation, body, path) => {
    expect(issuesOf(operation, body, 'answer').map((i) => i.path)).toContain(path);
  });
});
