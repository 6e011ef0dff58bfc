// One WAF log record (describeLogV2 `logs`) -> one LogEvent. Pure: no clock,
// no I/O; the caller says when the record was read. Field by field mapping in
// attributes.ts. Credentials never pass: headers are forwarded only from an
// allow-list, and NEVER_FORWARDED_HEADERS are removed from any list given.
import type { WafLogRecord } from '../api/index.js';
import { DEFAULT_FORWARDED_HEADERS, NEVER_FORWARDED_HEADERS } from '../config/sections/waf-events.js';
import type { LogEvent } from './log-sink.js';
import { recordTime } from './record-time.js';
import type { ATTR, EDGE_ATTR } from './attributes.js';
import { EVENT_NAME, KNOWN_METHODS, REDACTED_QUERY_KEYS, requestHeaderAttr } from './attributes.js';

/** The documented meaning of action=deny: the response status is 417. */
const DENY_STATUS = 417;
/** The URL in the body is cut here: the body is a summary, url.path/url.query hold it whole. */
const BODY_URL_MAX = 256;

// A Map, not an object: the upstream's text is the key, and `__proto__` or `constructor` must not find anything.
const SEVERITY: ReadonlyMap<string, LogEvent['severity']> = new Map<string, LogEvent['severity']>([['高风险', 'ERROR'], ['中风险', 'WARN'], ['低风险', 'INFO']]);

type AttributeValue = LogEvent['attributes'][string];
type AttributeName = (typeof ATTR)[keyof typeof ATTR] | (typeof EDGE_ATTR)[keyof typeof EDGE_ATTR];
/** The attributes a record gets: the named ones by their constants' names (a misspelt name does not compile), and the headers'. */
type NamedAttributes = { [name in AttributeName]?: AttributeValue };
type Attributes = Record<string, AttributeValue>;

/**
 * Lower-case header names that may be forwarded, each with its attribute's
 * name (built once, not per header of every event). Build with headerPolicy().
 */
export type HeaderPolicy = ReadonlyMap<string, string>;

/** The allow-list, lower-cased, minus the headers that are never forwarded. */
export function headerPolicy(allow: readonly string[] = DEFAULT_FORWARDED_HEADERS): HeaderPolicy {
  const names = allow.map((h) => h.toLowerCase()).filter((h) => !NEVER_FORWARDED_HEADERS.includes(h));
  return new Map(names.map((name) => [name, requestHeaderAttr(name)]));
}

/**
 * `offsetMinutes` is the platform zone (upstream.timezone), for a timeStamp
 * without an offset; default UTC+8, the document's zone. `time` is the
 * timeStamp read in that zone, for a caller that read it already (the
 * forwarder, for the window's findings).
 */
export function toLogEvent(
  record: WafLogRecord, observedMs: number, headers: HeaderPolicy = headerPolicy(), offsetMinutes = 480,
  time = recordTime(record.timeStamp, offsetMinutes),
): LogEvent {
  const parsedTime = time?.ms;
  const action = record.response.httpCode === DENY_STATUS ? 'deny' : 'pass';
  const requestHeaders = record.request.headers ?? undefined;
  const host = hostOf(firstHeader(requestHeaders, 'host'));
  const { path, query } = splitTarget(record.request.uri);
  const primary = record.rules[0];
  // Headers first, then the named attributes, each assigned under its name written out (NamedAttributes keeps
  // those names the constants'): V8 turns an object that gains more than 12 properties through computed keys
  // into a hash table, and that was 6 KB of garbage per event and a sort at every walk of its keys.
  // The headers' names are computed, so they come while the object is still small.
  const attributes: NamedAttributes = {};
  if (requestHeaders !== undefined) forwardHeaders(attributes, requestHeaders, headers);
  const method = record.request.method;
  const upper = method.toUpperCase();
  if (KNOWN_METHODS.has(upper)) {
    attributes['http.request.method'] = upper;
  } else {
    attributes['http.request.method'] = '_OTHER';
    attributes['http.request.method_original'] = method;
  }
  attributes['url.path'] = path;
  if (query !== undefined) attributes['url.query'] = query;
  attributes['http.response.status_code'] = record.response.httpCode;
  attributes['client.address'] = record.clientIp;
  if (host !== undefined) attributes['server.address'] = host;
  attributes['server.port'] = record.hostPort;
  const agent = firstHeader(requestHeaders, 'user-agent');
  if (present(agent)) attributes['user_agent.original'] = agent;
  const { ua, geoip } = record;
  if (present(ua?.name)) attributes['user_agent.name'] = ua.name;
  if (present(ua?.version)) attributes['user_agent.version'] = ua.version;
  if (present(ua?.os_name)) attributes['user_agent.os.name'] = ua.os_name;
  if (present(ua?.os_version)) attributes['user_agent.os.version'] = ua.os_version;
  if (present(ua?.device)) attributes['edge.waf.user_agent.device'] = ua.device;
  if (present(geoip?.country_code2)) attributes['geo.country.iso_code'] = geoip.country_code2;
  if (present(geoip?.city_name)) attributes['geo.locality.name'] = geoip.city_name;
  if (present(geoip?.country_name)) attributes['edge.waf.geo.country_name'] = geoip.country_name;
  if (present(geoip?.region_name)) attributes['edge.waf.geo.region_name'] = geoip.region_name;
  if (present(geoip?.timezone)) attributes['edge.waf.geo.timezone'] = geoip.timezone;
  if (primary !== undefined) {
    attributes['security_rule.uuid'] = primary.ruleId;
    if (present(primary.ruleMessage)) attributes['security_rule.description'] = primary.ruleMessage;
    if (present(primary.group)) attributes['security_rule.category'] = primary.group;
    if (present(primary.severity)) attributes['edge.waf.rule.severity'] = primary.severity;
    if (present(primary.severityLevel)) attributes['edge.waf.rule.severity_level'] = primary.severityLevel;
  }
  attributes['edge.waf.action'] = action;
  if (present(record.wafId)) attributes['edge.waf.policy_id'] = record.wafId;
  if (present(record.oid)) attributes['edge.waf.package_id'] = record.oid;
  attributes['edge.waf.severity_level'] = record.severityLevel;
  attributes['edge.waf.rules'] = JSON.stringify(record.rules);
  attributes['edge.waf.rule_count'] = record.rules.length;
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

/** A text worth an attribute: the upstream leaves out, nulls or empties what it does not know. */
function present(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

// The request's headers are read where they lie, names compared in lower
// case (names differing in case are one header, as in HTTP; their values join
// in the record's order): a Map and two arrays per header per event were a
// quarter of the conversion. A value is a string, a number or
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
    const attr = policy.get(name);
    // Checked again here: a policy built by hand must not forward credentials either.
    if (attr === undefined || NEVER_FORWARDED_HEADERS.includes(name)) continue;
    const known = attributes[attr];
    const values: string[] = Array.isArray(known) ? (known as string[]) : [];
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
