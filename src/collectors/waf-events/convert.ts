// One WAF log record (describeLogV2 `logs`) -> one LogEvent. Pure: no clock,
// no I/O; the caller says when the record was read. Field by field mapping in
// attributes.ts. Credentials never pass: headers are forwarded only from an
// allow-list, and NEVER_FORWARDED_HEADERS are removed from any list given.
import type { WafLogRecord } from '../../api/index.js';
import { DEFAULT_FORWARDED_HEADERS, NEVER_FORWARDED_HEADERS } from '../../config/sections/waf-events.js';
import type { LogEvent } from '../log-sink.js';
import { recordTime } from './record-time.js';
import { ATTR, EDGE_ATTR, EVENT_NAME, KNOWN_METHODS, REDACTED_QUERY_KEYS, requestHeaderAttr } from './attributes.js';

/** The documented meaning of action=deny: the response status is 417. */
const DENY_STATUS = 417;
/** The URL in the body is cut here: the body is a summary, url.path/url.query hold it whole. */
const BODY_URL_MAX = 256;

// A Map, not an object: the upstream's text is the key, and `__proto__` or `constructor` must not find anything.
const SEVERITY: ReadonlyMap<string, LogEvent['severity']> = new Map<string, LogEvent['severity']>([['高风险', 'ERROR'], ['中风险', 'WARN'], ['低风险', 'INFO']]);

type Attributes = Record<string, LogEvent['attributes'][string]>;

/** Lower-case header names that may be forwarded. Build once with headerPolicy(). */
export type HeaderPolicy = ReadonlySet<string>;

/** The allow-list, lower-cased, minus the headers that are never forwarded. */
export function headerPolicy(allow: readonly string[] = DEFAULT_FORWARDED_HEADERS): HeaderPolicy {
  return new Set(allow.map((h) => h.toLowerCase()).filter((h) => !NEVER_FORWARDED_HEADERS.includes(h)));
}

/**
 * `offsetMinutes` is the platform zone (upstream.timezone), for a timeStamp
 * without an offset; default UTC+8, the document's zone.
 */
export function toLogEvent(record: WafLogRecord, observedMs: number, headers: HeaderPolicy = headerPolicy(), offsetMinutes = 480): LogEvent {
  const parsedTime = recordTime(record.timeStamp, offsetMinutes)?.ms;
  const action = record.response.httpCode === DENY_STATUS ? 'deny' : 'pass';
  const requestHeaders = record.request.headers ?? undefined;
  const host = hostOf(firstHeader(requestHeaders, 'host'));
  const { path, query } = splitTarget(record.request.uri);
  const primary = record.rules[0];
  // Assigned one by one, in the order the spreads of optional parts used to give: those spreads were a third of the conversion.
  const attributes: Attributes = {};
  setMethod(attributes, record.request.method);
  attributes[ATTR.URL_PATH] = path;
  if (query !== undefined) attributes[ATTR.URL_QUERY] = query;
  attributes[ATTR.HTTP_RESPONSE_STATUS_CODE] = record.response.httpCode;
  attributes[ATTR.CLIENT_ADDRESS] = record.clientIp;
  if (host !== undefined) attributes[ATTR.SERVER_ADDRESS] = host;
  attributes[ATTR.SERVER_PORT] = record.hostPort;
  optional(attributes, ATTR.USER_AGENT_ORIGINAL, firstHeader(requestHeaders, 'user-agent'));
  optional(attributes, ATTR.USER_AGENT_NAME, record.ua?.name);
  optional(attributes, ATTR.USER_AGENT_VERSION, record.ua?.version);
  optional(attributes, ATTR.USER_AGENT_OS_NAME, record.ua?.os_name);
  optional(attributes, ATTR.USER_AGENT_OS_VERSION, record.ua?.os_version);
  optional(attributes, EDGE_ATTR.UA_DEVICE, record.ua?.device);
  optional(attributes, ATTR.GEO_COUNTRY_ISO_CODE, record.geoip?.country_code2);
  optional(attributes, ATTR.GEO_LOCALITY_NAME, record.geoip?.city_name);
  optional(attributes, EDGE_ATTR.GEO_COUNTRY_NAME, record.geoip?.country_name);
  optional(attributes, EDGE_ATTR.GEO_REGION_NAME, record.geoip?.region_name);
  optional(attributes, EDGE_ATTR.GEO_TIMEZONE, record.geoip?.timezone);
  if (primary !== undefined) {
    attributes[ATTR.SECURITY_RULE_UUID] = primary.ruleId;
    optional(attributes, ATTR.SECURITY_RULE_DESCRIPTION, primary.ruleMessage);
    optional(attributes, ATTR.SECURITY_RULE_CATEGORY, primary.group);
    optional(attributes, EDGE_ATTR.RULE_SEVERITY, primary.severity);
    optional(attributes, EDGE_ATTR.RULE_SEVERITY_LEVEL, primary.severityLevel);
  }
  attributes[EDGE_ATTR.ACTION] = action;
  optional(attributes, EDGE_ATTR.POLICY_ID, record.wafId);
  optional(attributes, EDGE_ATTR.PACKAGE_ID, record.oid);
  attributes[EDGE_ATTR.SEVERITY_LEVEL] = record.severityLevel;
  attributes[EDGE_ATTR.RULES] = JSON.stringify(record.rules);
  attributes[EDGE_ATTR.RULE_COUNT] = record.rules.length;
  if (requestHeaders !== undefined) forwardHeaders(attributes, requestHeaders, headers);
  const url = `${host ?? ''}${path}${query === undefined ? '' : `?${query}`}`;
  const rule = primary === undefined ? 'no rule' : `${primary.ruleMessage} (rule ${primary.ruleId})`;
  return {
    uid: record.requestId,
    // An unreadable time must not stop forwarding; the read time is the best bound we have.
    timestampMs: parsedTime ?? observedMs,
    observedMs,
    severity: SEVERITY.get(record.severityLevel) ?? 'UNSPECIFIED',
    severityText: record.severityLevel,
    eventName: EVENT_NAME[action],
    body: `${action} ${record.request.method} ${truncate(url, BODY_URL_MAX)} from ${record.clientIp}: ${rule}`,
    attributes,
  };
}

function setMethod(attributes: Attributes, method: string): void {
  const upper = method.toUpperCase();
  if (KNOWN_METHODS.has(upper)) {
    attributes[ATTR.HTTP_REQUEST_METHOD] = upper;
  } else {
    attributes[ATTR.HTTP_REQUEST_METHOD] = '_OTHER';
    attributes[ATTR.HTTP_REQUEST_METHOD_ORIGINAL] = method;
  }
}

function optional(attributes: Attributes, name: string, value: unknown): void {
  if (typeof value === 'string' && value !== '') attributes[name] = value;
}

// The request's headers are read where they lie, names compared in lower
// case (names differing in case are one header, as in HTTP; their values join
// in the record's order): a Map and two arrays per header per event were a
// quarter of the conversion (issue 25). A value is a string, a number or
// boolean (as text), or an array of those; anything else is no value.
type RawHeaders = Readonly<Record<string, unknown>>;

/** The first value of the header `name` (lower case). */
function firstHeader(raw: RawHeaders | undefined, name: string): string | undefined {
  for (const key in raw) {
    if (key.length !== name.length || key.toLowerCase() !== name) continue;
    const value = raw[key];
    if (!Array.isArray(value)) {
      const text = headerText(value);
      if (text !== undefined) return text;
      continue;
    }
    for (const v of value as readonly unknown[]) {
      const text = headerText(v);
      if (text !== undefined) return text;
    }
  }
  return undefined;
}

/** `http.request.header.<name>` for every header the policy allows, in the order of their first appearance. */
function forwardHeaders(attributes: Attributes, raw: RawHeaders, policy: HeaderPolicy): void {
  for (const key in raw) {
    const name = key.toLowerCase();
    if (!policy.has(name) || NEVER_FORWARDED_HEADERS.includes(name)) continue;
    const attr = requestHeaderAttr(name);
    const known = attributes[attr];
    const values: string[] = Array.isArray(known) ? [...(known as readonly string[])] : [];
    const value = raw[key];
    if (Array.isArray(value)) {
      for (const v of value as readonly unknown[]) {
        const text = headerText(v);
        if (text !== undefined) values.push(text);
      }
    } else {
      const text = headerText(value);
      if (text !== undefined) values.push(text);
    }
    if (values.length > 0) attributes[attr] = values;
  }
}

function headerText(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}

/** Host header -> host name without port (IPv6 brackets removed), lower case. */
export function hostOf(header: string | undefined): string | undefined {
  const text = header?.trim().toLowerCase();
  if (!text) return undefined;
  const v6 = /^\[([^\]]+)\](?::\d*)?$/.exec(text);
  if (v6?.[1]) return v6[1];
  const colon = text.indexOf(':');
  return colon >= 0 && colon === text.lastIndexOf(':') ? text.slice(0, colon) || undefined : text;
}

/** Request target -> url.path and url.query (fragment dropped; absolute-form reduced to its path). */
export function splitTarget(uri: string): { path: string; query: string | undefined } {
  // Most targets are origin-form without a fragment: nothing for the two regular expressions to remove.
  const target = uri.startsWith('/') && !uri.includes('#') ? uri : uri.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '').replace(/#.*$/s, '');
  const q = target.indexOf('?');
  const path = (q < 0 ? target : target.slice(0, q)) || '/';
  const query = q < 0 ? undefined : redactQuery(target.slice(q + 1));
  return { path, query: query === '' ? undefined : query };
}

function redactQuery(query: string): string {
  // A query naming none of the keys is left as it is, without splitting it into parts.
  let named = false;
  for (const key of REDACTED_QUERY_KEYS) named ||= query.includes(key);
  if (!named) return query;
  return query
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const key = eq < 0 ? part : part.slice(0, eq);
      return REDACTED_QUERY_KEYS.has(key) ? `${key}=REDACTED` : part;
    })
    .join('&');
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
