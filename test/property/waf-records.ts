// WAF log records (describeLogV2 `logs`, src/api/schemas/waf-log.ts) inside
// the documented shape, hostile everywhere: header names in any case, header
// values of any JSON type, URIs with signed queries and fragments, times in
// any form, undocumented severities, rules with any `match`. Credential
// headers carry a marker that must never leave the conversion.
import fc from 'fast-check';
import { anyFinite, anyInt, hostileString, loose, looseIntInput, nullish } from './hostile.js';

/** Put in credential headers only: if it shows up in an event, a credential leaked. */
export const SECRET = 'cr3d-\u2603-leak';

const CREDENTIAL_HEADERS = ['Authorization', 'authorization', 'AUTHORIZATION', 'Proxy-Authorization', 'Cookie', 'cookie', 'Set-Cookie', 'set-COOKIE'] as const;
const ORDINARY_HEADERS = ['Host', 'host', 'User-Agent', 'Referer', 'X-Forwarded-For', 'Content-Type', 'X-Api-Key', 'x-custom'] as const;

const headerValue = fc.oneof(
  hostileString,
  fc.array(hostileString, { maxLength: 3 }),
  anyFinite,
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 2 }),
);
const secretValue = fc.oneof(
  fc.constant(SECRET),
  fc.constant(`Bearer ${SECRET}`),
  fc.constant([`a=${SECRET}`, 'b=2']),
);

/** Ordinary and hostile headers, plus credential headers holding the secret. */
const headers = fc
  .tuple(
    fc.dictionary(fc.oneof(fc.constantFrom(...ORDINARY_HEADERS), hostileString.filter((s) => !s.toLowerCase().includes('auth') && !s.toLowerCase().includes('cookie'))), headerValue, { maxKeys: 5 }),
    fc.dictionary(fc.constantFrom(...CREDENTIAL_HEADERS), secretValue, { maxKeys: 3 }),
  )
  .map(([ordinary, credentials]) => ({ ...ordinary, ...credentials }));

const uri = fc.oneof(
  hostileString,
  fc.constantFrom('/', '/a?b=1', '/p?Signature=s3&x=1#frag', 'https://evil.example:8443/x?sig=1', '?', '#', '//double', '/%FF%FE', '/a?AWSAccessKeyId=AK&Signature=xx'),
  fc.tuple(hostileString, hostileString).map(([p, q]) => `/${p}?${q}`),
);

const time = fc.oneof(
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2026-03-02T04:00:00.000Z', '2026-03-02 12:00:00', '', 'yesterday', '+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00.000Z'),
  hostileString,
);

const rule = loose(fc.record({
  ruleId: fc.oneof(hostileString, anyFinite),
  ruleMessage: hostileString,
  group: hostileString,
  severity: hostileString,
  severityLevel: fc.oneof(fc.constantFrom('高风险', '中风险', '低风险'), hostileString),
  match: fc.jsonValue({ maxDepth: 2 }),
}, { requiredKeys: ['ruleId', 'ruleMessage', 'group', 'severity', 'severityLevel'] }));

/** A record as the upstream sends it (before the client's parsing). */
export const wafRecord = loose(fc.record({
  oid: hostileString,
  requestId: hostileString,
  wafId: fc.oneof(hostileString, anyFinite),
  clientIp: hostileString,
  hostPort: looseIntInput(anyInt),
  timeStamp: time,
  severityLevel: fc.oneof(fc.constantFrom('高风险', '中风险', '低风险'), hostileString),
  ua: nullish(loose(fc.record({ name: fc.jsonValue({ maxDepth: 1 }), version: hostileString, os_name: hostileString, os_version: fc.jsonValue({ maxDepth: 1 }), device: hostileString }, { requiredKeys: [] }))),
  response: loose(fc.record({ httpCode: looseIntInput(fc.oneof(fc.constant(417), anyInt)) })),
  geoip: nullish(loose(fc.record({
    country_code2: hostileString, city_name: fc.jsonValue({ maxDepth: 1 }), country_name: hostileString, region_name: hostileString, timezone: hostileString,
  }, { requiredKeys: [] }))),
  request: loose(fc.record({ method: fc.oneof(fc.constantFrom('GET', 'post', 'PURGE', ''), hostileString), uri, headers: nullish(headers) }, { requiredKeys: ['method', 'uri'] })),
  rules: nullish(fc.array(rule, { maxLength: 3 })),
}, { requiredKeys: ['oid', 'requestId', 'wafId', 'clientIp', 'hostPort', 'timeStamp', 'severityLevel', 'response', 'request'] }));

/** A describeLogV2 `logs` answer holding records. */
export const logsBody = fc.record({
  code: fc.constant(200),
  data: fc.array(fc.record({ metricName: fc.constant('logs'), list: fc.array(wafRecord, { maxLength: 4 }) }), { maxLength: 2 }),
});
