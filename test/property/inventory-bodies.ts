// Inventory answers inside their documented shapes (src/api/schemas/
// packages.ts, domains.ts, certificates.ts, cache.ts, orders.ts), with
// hostile text everywhere a string may go, codes outside the documented
// states, times in every readable and unreadable form, and keys drawn from a
// small pool so that rows repeat.
import fc from 'fast-check';
import { anyFinite, anyInt, hostileString, loose, looseIntInput, looseNumberInput, nullish } from './hostile.js';

/** Row identities: a few common ones (so rows repeat) or hostile text. */
const key = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('a', 'b', 'c', 'www.example.com') }, { weight: 1, arbitrary: hostileString });
/** looseText: a string, or a number the client turns into one. */
const text = fc.oneof(hostileString, anyFinite, fc.constantFrom('0', '1', '2', ' 1 ', '-1', '3', '4', '11', '21'));
const code = looseIntInput(fc.oneof(fc.integer({ min: -2, max: 30 }), anyInt));

/** Platform times: valid, bare dates, off-calendar, padded, and hostile text. */
const timeText = fc.oneof(
  fc.constantFrom(
    '2026-03-02 12:00:00', '2026-03-02', ' 2026-03-02 12:00:00 ', '2026-02-31 00:00:00', '2026-13-01', '9999-12-31 23:59:59',
    '0000-01-01 00:00:00', '2026-03-02T12:00:00Z', '1772424000000', '', ' ', '2026-03-02 24:00:00',
  ),
  fc.date({ min: new Date(0), max: new Date(Date.UTC(2200, 0, 1)), noInvalidDate: true }).map((d) => d.toISOString().replace('T', ' ').slice(0, 19)),
  hostileString,
);

function paged(row: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return loose(fc.record({
    code: fc.constantFrom(200, '200'), msg: nullish(hostileString), total: looseIntInput(anyInt), rows: nullish(fc.array(row, { maxLength: 8 })),
  }, { requiredKeys: ['code'] }));
}

export const packagesBody = loose(fc.record({
  code: fc.constantFrom(200, '200'),
  data: nullish(fc.array(loose(fc.record({ label: hostileString, value: fc.oneof(key, anyFinite) })), { maxLength: 8 })),
}, { requiredKeys: ['code'] }));

export const layer4ListBody = paged(loose(fc.record({
  ctime: code, isTest: code, oid: key, packageName: hostileString, ruleCnt: code, remark: nullish(hostileString), activate: code,
  mday: nullish(timeText), lastday: nullish(code), alias: nullish(hostileString), cname: nullish(hostileString), bandwidth: nullish(looseNumberInput()),
}, { requiredKeys: ['ctime', 'isTest', 'oid', 'packageName', 'ruleCnt', 'activate'] })));

export const layer4DetailsBody = loose(fc.record({
  code: fc.constantFrom(200, '200'),
  data: nullish(loose(fc.record({
    oid: key, isTest: code, alias: nullish(hostileString), name: hostileString, cname: nullish(hostileString), fdesc: nullish(hostileString),
    nodes: nullish(fc.array(fc.array(text, { maxLength: 3 }), { maxLength: 3 })), ctime: code, utime: code,
    packages: nullish(fc.array(loose(fc.record({ name: hostileString, alias: nullish(hostileString), oid: key }, { requiredKeys: ['name', 'oid'] })), { maxLength: 3 })),
    activate: code, mday: nullish(timeText), consumptionPort: code, totalPort: code, isParsing: nullish(hostileString),
  }, { requiredKeys: ['oid', 'isTest', 'name', 'ctime', 'utime', 'activate', 'consumptionPort', 'totalPort'] }))),
}, { requiredKeys: ['code'] }));

export const domainsBody = paged(loose(fc.record({
  id: code, sslsupport: text, domainName: key, ip: hostileString, port: text, cNamePre: nullish(hostileString), cNameSuf: nullish(hostileString),
  doid: key, isActive: text, customerRemark: nullish(hostileString), alias: nullish(hostileString), coreId: nullish(text), waf: nullish(text),
  stopTime: nullish(timeText), updateTime: nullish(timeText), certEndTime: nullish(timeText), wafInternalRulesList: fc.jsonValue({ maxDepth: 2 }),
}, { requiredKeys: ['id', 'sslsupport', 'domainName', 'ip', 'port', 'doid', 'isActive'] })));

export const certificatesBody = paged(loose(fc.record({
  certId: looseIntInput(fc.oneof(fc.integer({ min: 0, max: 5 }), anyInt)), status: code, dnsName: nullish(hostileString), alias: nullish(hostileString),
  sslcrt: nullish(hostileString), subjectDN: nullish(hostileString), issuerDN: nullish(hostileString), beginTime: nullish(timeText),
  endTime: timeText, createTime: nullish(timeText),
}, { requiredKeys: ['certId', 'status', 'endTime'] })));

export const cacheBody = paged(loose(fc.record({
  id: looseIntInput(fc.oneof(fc.integer({ min: 0, max: 5 }), anyInt)), value: hostileString, ctime: code, total: code, success: code,
})));

export const liveOrdersBody = paged(loose(fc.record({
  uid: key, platformId: nullish(hostileString), startTime: timeText, endTime: timeText, isRenew: nullish(fc.boolean()), renew: nullish(fc.boolean()),
  status: code, province: nullish(hostileString), source: nullish(hostileString), nickName: nullish(hostileString), message: nullish(hostileString),
  orderId: key, executeTime: nullish(timeText),
}, { requiredKeys: ['uid', 'startTime', 'endTime', 'status', 'orderId'] })));

export const liveQualityBody = paged(loose(fc.record({
  dataId: fc.oneof(key, anyFinite), uid: key, image: nullish(hostileString), message: nullish(hostileString), date: timeText, createTime: nullish(timeText),
}, { requiredKeys: ['dataId', 'uid', 'date'] })));
