// Attribute names of the log records, as constants the converter and the tests
// share. OpenTelemetry semantic-convention names where one exists for the
// field (http, url, client, server, user_agent, geo, security_rule); the rest
// sits in the vendor namespace `edge.waf.*`. The record-attributes
// list of docs/waf-events.md names every one (test/exporters/otel-logs/documented-attributes.test.ts).

/** Semantic-convention attributes (current registry names). */
export const ATTR = {
  HTTP_REQUEST_METHOD: 'http.request.method',
  /** Set when the method is not a well-known one (http.request.method is then `_OTHER`). */
  HTTP_REQUEST_METHOD_ORIGINAL: 'http.request.method_original',
  HTTP_RESPONSE_STATUS_CODE: 'http.response.status_code',
  URL_PATH: 'url.path',
  URL_QUERY: 'url.query',
  CLIENT_ADDRESS: 'client.address',
  /** The request's Host header (without port): the protected domain. */
  SERVER_ADDRESS: 'server.address',
  /** hostPort: the edge port the request arrived on. */
  SERVER_PORT: 'server.port',
  USER_AGENT_ORIGINAL: 'user_agent.original',
  USER_AGENT_NAME: 'user_agent.name',
  USER_AGENT_VERSION: 'user_agent.version',
  USER_AGENT_OS_NAME: 'user_agent.os.name',
  USER_AGENT_OS_VERSION: 'user_agent.os.version',
  /** geo.* describes the client (from the upstream's geoip of client.address). */
  GEO_COUNTRY_ISO_CODE: 'geo.country.iso_code',
  GEO_LOCALITY_NAME: 'geo.locality.name',
  /** security_rule.* describes the PRIMARY rule: rules[0]. */
  SECURITY_RULE_UUID: 'security_rule.uuid',
  SECURITY_RULE_DESCRIPTION: 'security_rule.description',
  SECURITY_RULE_CATEGORY: 'security_rule.category',
} as const;

/** `http.request.header.<lower-case name>`, a string array per the conventions. */
export const requestHeaderAttr = (name: string): string => `http.request.header.${name.toLowerCase()}`;

/** Vendor attributes: what the conventions have no name for. */
export const EDGE_ATTR = {
  /** deny (HTTP 417) or pass. */
  ACTION: 'edge.waf.action',
  /** wafId: the WAF policy group id. */
  POLICY_ID: 'edge.waf.policy_id',
  /** oid: the package (order) id. */
  PACKAGE_ID: 'edge.waf.package_id',
  /** The record's severityLevel as the upstream writes it (高风险, 中风险, 低风险). */
  SEVERITY_LEVEL: 'edge.waf.severity_level',
  /** The primary rule's own severity word (e.g. CRITICAL) and level. */
  RULE_SEVERITY: 'edge.waf.rule.severity',
  RULE_SEVERITY_LEVEL: 'edge.waf.rule.severity_level',
  /** Every matched rule, as the upstream sent them (ruleId, ruleMessage, group, severity, severityLevel, match), JSON. */
  RULES: 'edge.waf.rules',
  RULE_COUNT: 'edge.waf.rule_count',
  /** geoip fields with no convention name (geo.region.iso_code wants ISO 3166-2; the upstream gives a name). */
  GEO_COUNTRY_NAME: 'edge.waf.geo.country_name',
  GEO_REGION_NAME: 'edge.waf.geo.region_name',
  GEO_TIMEZONE: 'edge.waf.geo.timezone',
  /** ua.device from the upstream's parsed user agent. */
  UA_DEVICE: 'edge.waf.user_agent.device',
  /** A summary record (waf_events.over_rate: summarize): how many deny events it folds, and their first and last time (ISO 8601). */
  COUNT: 'edge.waf.count',
  FIRST_TIME: 'edge.waf.first_time',
  LAST_TIME: 'edge.waf.last_time',
} as const;

/** Methods the HTTP conventions list; others are reported as `_OTHER` plus the original. */
export const KNOWN_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE', 'QUERY']);

/** Query parameters whose values the url conventions say to replace by REDACTED (case-sensitive). */
export const REDACTED_QUERY_KEYS: ReadonlySet<string> = new Set(['AWSAccessKeyId', 'Signature', 'sig', 'X-Goog-Signature']);

/** The LogRecord's event name, per action, and of a summary of deny events (volume.ts). */
export const EVENT_NAME = { deny: 'edge.waf.deny', pass: 'edge.waf.pass', summary: 'edge.waf.deny_summary' } as const;
