// toLogEvent field by field: every attribute of every simulator event of an
// hour against the record it came from, then the cases the simulator does not
// produce (unknown method, absolute URI, signed query, odd headers, bad time).
import { describe, expect, it } from 'vitest';
import type { WafLogRecord } from '../../src/api/index.js';
import { wafLogRecord } from '../../src/api/schemas/waf-log.js';
import { ATTR, EDGE_ATTR, requestHeaderAttr } from '../../src/forwarder/attributes.js';
import { headerPolicy, hostOf, splitTarget, toLogEvent } from '../../src/forwarder/convert.js';
import type { LogEvent } from '../../src/forwarder/log-sink.js';
import { createSimulator } from '../../src/simulator/index.js';
import { type WafEvent } from '../../src/simulator/waf.js';

const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const OBSERVED = T0 + 5 * 60_000;
const sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, domains: 6 });
// What the client hands over: the simulator's record through the answer schema.
const EVENTS = sim.truth.wafEvents(T0 - 3_600_000, T0).map((e) => ({ e, record: wafLogRecord.parse(e.record) }));
const SEVERITY: Record<string, string> = { 高风险: 'ERROR', 中风险: 'WARN', 低风险: 'INFO' };

type Expect = (e: WafEvent, out: LogEvent) => unknown;
const attr = (name: string) => (_e: WafEvent, out: LogEvent): unknown => out.attributes[name];
const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);

// [what, actual, expected]
const FIELDS: Array<[string, Expect, Expect]> = [
  ['uid', (_e, o) => o.uid, (e) => e.record.requestId],
  ['timestampMs', (_e, o) => o.timestampMs, (e) => e.time],
  ['observedMs', (_e, o) => o.observedMs, () => OBSERVED],
  ['severity', (_e, o) => o.severity, (e) => SEVERITY[e.record.severityLevel]],
  ['severityText', (_e, o) => o.severityText, (e) => e.record.severityLevel],
  ['eventName', (_e, o) => o.eventName, (e) => (e.record.response.httpCode === 417 ? 'edge.waf.deny' : 'edge.waf.pass')],
  [ATTR.HTTP_REQUEST_METHOD, attr(ATTR.HTTP_REQUEST_METHOD), (e) => e.record.request.method],
  [ATTR.URL_PATH, attr(ATTR.URL_PATH), (e) => e.record.request.uri.split('?')[0]],
  [ATTR.URL_QUERY, attr(ATTR.URL_QUERY), (e) => e.record.request.uri.split('?')[1]],
  [ATTR.HTTP_RESPONSE_STATUS_CODE, attr(ATTR.HTTP_RESPONSE_STATUS_CODE), (e) => e.record.response.httpCode],
  [ATTR.CLIENT_ADDRESS, attr(ATTR.CLIENT_ADDRESS), (e) => e.record.clientIp],
  [ATTR.SERVER_ADDRESS, attr(ATTR.SERVER_ADDRESS), (e) => e.domain],
  [ATTR.SERVER_PORT, attr(ATTR.SERVER_PORT), (e) => e.record.hostPort],
  [ATTR.USER_AGENT_ORIGINAL, attr(ATTR.USER_AGENT_ORIGINAL), (e) => e.record.request.headers['user-agent']],
  [ATTR.USER_AGENT_NAME, attr(ATTR.USER_AGENT_NAME), (e) => nonEmpty(e.record.ua?.name)],
  [ATTR.USER_AGENT_VERSION, attr(ATTR.USER_AGENT_VERSION), (e) => nonEmpty(e.record.ua?.version)],
  [ATTR.USER_AGENT_OS_NAME, attr(ATTR.USER_AGENT_OS_NAME), (e) => nonEmpty(e.record.ua?.os_name)],
  [ATTR.USER_AGENT_OS_VERSION, attr(ATTR.USER_AGENT_OS_VERSION), (e) => nonEmpty(e.record.ua?.os_version)],
  [EDGE_ATTR.UA_DEVICE, attr(EDGE_ATTR.UA_DEVICE), (e) => nonEmpty(e.record.ua?.device)],
  [ATTR.GEO_COUNTRY_ISO_CODE, attr(ATTR.GEO_COUNTRY_ISO_CODE), (e) => e.record.geoip.country_code2],
  [ATTR.GEO_LOCALITY_NAME, attr(ATTR.GEO_LOCALITY_NAME), (e) => e.record.geoip.city_name],
  [EDGE_ATTR.GEO_COUNTRY_NAME, attr(EDGE_ATTR.GEO_COUNTRY_NAME), (e) => e.record.geoip.country_name],
  [EDGE_ATTR.GEO_REGION_NAME, attr(EDGE_ATTR.GEO_REGION_NAME), (e) => e.record.geoip.region_name],
  [EDGE_ATTR.GEO_TIMEZONE, attr(EDGE_ATTR.GEO_TIMEZONE), (e) => e.record.geoip.timezone],
  [ATTR.SECURITY_RULE_UUID, attr(ATTR.SECURITY_RULE_UUID), (e) => e.record.rules[0]?.ruleId],
  [ATTR.SECURITY_RULE_DESCRIPTION, attr(ATTR.SECURITY_RULE_DESCRIPTION), (e) => e.record.rules[0]?.ruleMessage],
  [ATTR.SECURITY_RULE_CATEGORY, attr(ATTR.SECURITY_RULE_CATEGORY), (e) => e.record.rules[0]?.group],
  [EDGE_ATTR.RULE_SEVERITY, attr(EDGE_ATTR.RULE_SEVERITY), (e) => e.record.rules[0]?.severity],
  [EDGE_ATTR.RULE_SEVERITY_LEVEL, attr(EDGE_ATTR.RULE_SEVERITY_LEVEL), (e) => e.record.rules[0]?.severityLevel],
  [EDGE_ATTR.ACTION, attr(EDGE_ATTR.ACTION), (e) => (e.record.response.httpCode === 417 ? 'deny' : 'pass')],
  [EDGE_ATTR.POLICY_ID, attr(EDGE_ATTR.POLICY_ID), (e) => e.record.wafId],
  [EDGE_ATTR.PACKAGE_ID, attr(EDGE_ATTR.PACKAGE_ID), (e) => e.record.oid],
  [EDGE_ATTR.SEVERITY_LEVEL, attr(EDGE_ATTR.SEVERITY_LEVEL), (e) => e.record.severityLevel],
  [EDGE_ATTR.RULES, (_e, o) => JSON.parse(String(o.attributes[EDGE_ATTR.RULES])), (e) => e.record.rules],
  [EDGE_ATTR.RULE_COUNT, attr(EDGE_ATTR.RULE_COUNT), (e) => e.record.rules.length],
  [requestHeaderAttr('host'), attr(requestHeaderAttr('host')), (e) => [e.domain]],
  [requestHeaderAttr('user-agent'), attr(requestHeaderAttr('user-agent')), (e) => optionalList(e.record.request.headers['user-agent'])],
  // Not in the default allow-list:
  [requestHeaderAttr('accept'), attr(requestHeaderAttr('accept')), () => undefined],
  // Never, whatever the list says (below, too):
  [requestHeaderAttr('cookie'), attr(requestHeaderAttr('cookie')), () => undefined],
  [requestHeaderAttr('authorization'), attr(requestHeaderAttr('authorization')), () => undefined],
  ['body', (_e, o) => o.body, (e) => {
    const rule = e.record.rules[0];
    return `${e.record.response.httpCode === 417 ? 'deny' : 'pass'} ${e.record.request.method} ${e.domain}${e.record.request.uri} from ${e.record.clientIp}: ` +
      `${rule?.ruleMessage} (rule ${rule?.ruleId})`;
  }],
];

function optionalList(v: string | undefined): string[] | undefined {
  return v === undefined ? undefined : [v];
}

describe('toLogEvent: every field of an hour of simulator events', () => {
  it('the hour has deny and pass events, parsed and tool user agents, cookies and authorization headers', () => {
    const records = EVENTS.map(({ e }) => e.record);
    expect(records.filter((r) => r.response.httpCode === 417).length).toBeGreaterThan(50);
    expect(records.filter((r) => r.response.httpCode !== 417).length).toBeGreaterThan(50);
    expect(records.some((r) => r.ua === null) && records.some((r) => r.ua !== null)).toBe(true);
    expect(records.some((r) => r.request.headers.cookie) && records.some((r) => r.request.headers.authorization)).toBe(true);
    expect(records.some((r) => r.rules.length > 1) && records.some((r) => r.request.uri.includes('?'))).toBe(true);
  });

  it.each(FIELDS)('%s', (_name, actual, expected) => {
    for (const { e, record } of EVENTS) {
      expect(actual(e, toLogEvent(record, OBSERVED)), e.record.requestId).toEqual(expected(e, toLogEvent(record, OBSERVED)));
    }
  });

  it('never forwards authorization, cookie or set-cookie, even when allow-listed', () => {
    const policy = headerPolicy(['Authorization', 'cookie', 'SET-COOKIE', 'proxy-authorization', 'host']);
    expect([...policy.keys()]).toEqual(['host']);
    for (const { e, record } of EVENTS) {
      const out = toLogEvent(record, OBSERVED, policy);
      const text = JSON.stringify(out);
      expect(text, e.record.requestId).not.toMatch(/sim-secret|sessionid=/);
      expect(Object.keys(out.attributes).filter((k) => k.startsWith('http.request.header.'))).toEqual(['http.request.header.host']);
    }
  });
});

/** A record with the fields the simulator always sets, changed by `patch`. */
function record(patch: (r: WafLogRecord) => WafLogRecord = (r) => r): WafLogRecord {
  const first = EVENTS[0];
  if (!first) throw new Error('no simulator events');
  return patch(structuredClone(first.record));
}

describe('toLogEvent: cases the simulator does not produce', () => {
  it.each<[string, WafLogRecord, Record<string, unknown>]>([
    ['unknown method -> _OTHER plus the original', record((r) => ({ ...r, request: { ...r.request, method: 'PROPFIND' } })),
      { [ATTR.HTTP_REQUEST_METHOD]: '_OTHER', [ATTR.HTTP_REQUEST_METHOD_ORIGINAL]: 'PROPFIND' }],
    ['lower-case method normalised', record((r) => ({ ...r, request: { ...r.request, method: 'get' } })), { [ATTR.HTTP_REQUEST_METHOD]: 'GET' }],
    ['signed query values redacted, keys kept', record((r) => ({ ...r, request: { ...r.request, uri: '/f?a=1&sig=abc&Signature=x&SIG=kept' } })),
      { [ATTR.URL_PATH]: '/f', [ATTR.URL_QUERY]: 'a=1&sig=REDACTED&Signature=REDACTED&SIG=kept' }],
    ['absolute-form target and fragment', record((r) => ({ ...r, request: { ...r.request, uri: 'http://evil.example/x?y=1#frag' } })),
      { [ATTR.URL_PATH]: '/x', [ATTR.URL_QUERY]: 'y=1' }],
    ['repeated and mixed-case headers are one string array', record((r) => ({ ...r, request: { ...r.request, headers: { Host: 'A.example.com:8443', 'X-Forwarded-For': ['1.2.3.4', '5.6.7.8'], 'x-forwarded-for': '9.9.9.9', Cookie: 'c=1', Referer: 7 } } })),
      { [ATTR.SERVER_ADDRESS]: 'a.example.com', [requestHeaderAttr('host')]: ['A.example.com:8443'], [requestHeaderAttr('x-forwarded-for')]: ['1.2.3.4', '5.6.7.8', '9.9.9.9'],
        [requestHeaderAttr('referer')]: ['7'], [requestHeaderAttr('cookie')]: undefined, [ATTR.USER_AGENT_ORIGINAL]: undefined }],
    ['a header whose first values are no values: the first value of any spelling', record((r) => ({ ...r, request: { ...r.request, headers: { host: [], HOST: [null, 'B.example'], 'User-Agent': [{}, 'ua/1', 'ua/2'] } } })),
      { [ATTR.SERVER_ADDRESS]: 'b.example', [requestHeaderAttr('host')]: ['B.example'], [ATTR.USER_AGENT_ORIGINAL]: 'ua/1', [requestHeaderAttr('user-agent')]: ['ua/1', 'ua/2'] }],
    ['no headers at all', record((r) => ({ ...r, request: { ...r.request, headers: null } })), { [ATTR.SERVER_ADDRESS]: undefined, [requestHeaderAttr('host')]: undefined }],
    ['unknown severity level', record((r) => ({ ...r, severityLevel: '严重' })), { severity: 'UNSPECIFIED', severityText: '严重' }],
    ['no rules', record((r) => ({ ...r, rules: [] })), { [ATTR.SECURITY_RULE_UUID]: undefined, [EDGE_ATTR.RULES]: '[]', [EDGE_ATTR.RULE_COUNT]: 0 }],
    ['unreadable time falls back to the read time', record((r) => ({ ...r, timeStamp: 'yesterday' })), { timestampMs: OBSERVED }],
    ['no geoip, no ua', record((r) => ({ ...r, geoip: null, ua: null })), { [ATTR.GEO_COUNTRY_ISO_CODE]: undefined, [ATTR.USER_AGENT_NAME]: undefined }],
  ])('%s', (_name, input, expected) => {
    const out = toLogEvent(input, OBSERVED);
    const flat: Record<string, unknown> = { ...out.attributes, severity: out.severity, severityText: out.severityText, timestampMs: out.timestampMs };
    for (const [key, value] of Object.entries(expected)) expect(flat[key], key).toEqual(value);
  });

  it('keeps the body short: the URL is cut, the attributes keep it whole', () => {
    const long = `/${'a'.repeat(1000)}`;
    const out = toLogEvent(record((r) => ({ ...r, request: { ...r.request, uri: long } })), OBSERVED);
    expect(out.body.length).toBeLessThan(400);
    expect(out.attributes[ATTR.URL_PATH]).toBe(long);
  });

  it.each<[string | undefined, string | undefined]>([
    ['www.example.com', 'www.example.com'], ['WWW.Example.com:443', 'www.example.com'], ['[2001:db8::1]:8443', '2001:db8::1'],
    ['2001:db8::1', '2001:db8::1'], ['', undefined], [undefined, undefined], [':80', undefined],
  ])('hostOf(%j) = %j', (header, host) => {
    expect(hostOf(header)).toBe(host);
  });

  it.each<[string, string, string | undefined]>([
    ['/', '/', undefined], ['/a?', '/a', undefined], ['?q=1', '/', 'q=1'], ['https://h.example', '/', undefined], ['/a?b=1&X-Goog-Signature=s', '/a', 'b=1&X-Goog-Signature=REDACTED'],
  ])('splitTarget(%j)', (uri, path, query) => {
    expect(splitTarget(uri)).toEqual({ path, query });
  });
});
