// Every metric family the inventory collector produces: one table that the
// conversions, the docs generator and the tests all read. All are gauges,
// replaced wholesale each cycle. State-set families carry their documented
// codes here, so the help text, the docs and the conversion cannot drift apart.
import type { OperationName } from '../../api/index.js';
import { gauge } from '../metric-def.js';
import type { MetricDef } from '../collector.js';

/** One documented code of a state field and the label value it becomes. */
export interface StateCode {
  /** The code as text (numeric codes via String()), compared after trimming. */
  readonly code: string;
  readonly state: string;
}

/** A 0/1 state-set gauge: one series per documented state, 1 for the current one. */
export interface StateSetDef extends MetricDef {
  /** The label that carries the state name (`state` or `status`). */
  readonly stateLabel: string;
  readonly states: readonly StateCode[];
}

/**
 * Label value for a code the document does not list. Emitted with value 1 (and
 * every documented state 0), so an alert on "not in_use" still fires and the
 * raw code is logged for whoever updates the table.
 */
export const UNKNOWN_STATE = 'unknown';

/** Layer-4 package `activate` (States table). */
const L4_PACKAGE_STATES = [
  { code: '0', state: 'pending_payment' },
  { code: '-1', state: 'unsubscribed' },
  { code: '1', state: 'in_use' },
  { code: '3', state: 'closed' },
  { code: '4', state: 'configuring' },
] as const satisfies readonly StateCode[];

/** Domain `isActive` (States table: 1 is "active/deploying"). */
export const DOMAIN_STATES = [
  { code: '0', state: 'configuring' },
  { code: '1', state: 'active' },
  { code: '2', state: 'paused' },
] as const satisfies readonly StateCode[];

/** Hosted certificate `status` (States table). */
const CERTIFICATE_STATUSES = [
  { code: '0', state: 'uploaded' },
  { code: '1', state: 'pending_verification' },
  { code: '2', state: 'processing' },
  { code: '3', state: 'issued' },
  { code: '4', state: 'verification_failed' },
] as const satisfies readonly StateCode[];

/** Live-acceleration order `status` in the list (States table). */
const LIVE_ORDER_STATUSES = [
  { code: '0', state: 'not_activated' },
  { code: '1', state: 'active' },
  { code: '2', state: 'expired' },
] as const satisfies readonly StateCode[];

/** getCacheRecordList `type` request codes and the `type` label value of each. */
export const CACHE_TYPES = [
  { code: '1', type: 'url_preload' },
  { code: '2', type: 'url_refresh' },
  { code: '3', type: 'dir_refresh' },
] as const;
export type CacheTypeCode = (typeof CACHE_TYPES)[number]['code'];

/** A gauge whose help lists the states and whose labels end in the state label. */
function stateSet(
  name: string, what: string, stateLabel: string, states: readonly StateCode[],
  labels: readonly string[], operation: OperationName, field: string,
): StateSetDef {
  const names = states.map((s) => s.state).join(', ');
  const help = `${what}: one series per ${stateLabel} (${names}), 1 for the current one; ` +
    `${stateLabel}="${UNKNOWN_STATE}" is 1 for a code the upstream document does not list.`;
  return { ...gauge(name, help, 'state', [...labels, stateLabel], operation, field), stateLabel, states };
}

// ------------------------------------------------------------------ packages

export const PACKAGE_INFO = gauge('edge_package_info',
  'Layer-7 package option of the account; value 1, `name` is the display label.',
  'info', ['package', 'name'], 'getPackages', 'data[].value, data[].label');

// ------------------------------------------------------------------ layer 4

const L4 = 'listLayer4Packages';

export const L4_PACKAGE_INFO = gauge('edge_l4_package_info',
  'Layer-4 package; value 1. official="true" for isTest 1 (official), "false" otherwise (0 is a test package).',
  'info', ['oid', 'name', 'alias', 'official'], L4, 'rows[].oid, packageName, alias, isTest');
export const L4_PACKAGE_STATE = stateSet('edge_l4_package_state', 'Layer-4 package state',
  'state', L4_PACKAGE_STATES, ['oid'], L4, 'rows[].activate');
export const L4_PACKAGE_EXPIRY = gauge('edge_l4_package_expiry_timestamp_seconds',
  'Layer-4 package expiry as a Unix timestamp (mday, platform zone); absent when mday is null.',
  'timestamp_seconds', ['oid'], L4, 'rows[].mday');
// Seconds, not days: Prometheus base units (promtool rejects a _days metric).
export const L4_PACKAGE_TIME_LEFT = gauge('edge_l4_package_time_left_seconds',
  'Time until the layer-4 package expires, from the whole days the upstream reports (lastday x 86400; negative once expired); absent when null.',
  'seconds', ['oid'], L4, 'rows[].lastday');
export const L4_PACKAGE_RULES = gauge('edge_l4_package_rules',
  'Forwarding rules configured on the layer-4 package.', 'rules', ['oid'], L4, 'rows[].ruleCnt');
export const L4_PACKAGE_PORTS_USED = gauge('edge_l4_package_ports_used',
  'Forwarding ports in use on the layer-4 package (collected only with `details: true`).',
  'ports', ['oid'], 'getPackageDetails', 'data.consumptionPort');
export const L4_PACKAGE_PORTS = gauge('edge_l4_package_ports',
  'Forwarding ports the layer-4 package includes (collected only with `details: true`).',
  'ports', ['oid'], 'getPackageDetails', 'data.totalPort');

// ------------------------------------------------------------------- domains

export const DOMAIN_INFO = gauge('edge_domain_info',
  'Domain of the account; value 1. `package` is doid, `cname` is cNamePre joined to cNameSuf.',
  'info', ['domain', 'package', 'cname'], 'listDomains', 'rows[].domainName, doid, cNamePre, cNameSuf');
export const DOMAIN_STATE = stateSet('edge_domain_state', 'Domain state (isActive; "active" is documented as active/deploying)',
  'state', DOMAIN_STATES, ['domain'], 'listDomains', 'rows[].isActive');
export const DOMAIN_SSL_ENABLED = gauge('edge_domain_ssl_enabled',
  '1 when SSL is configured on the domain (sslsupport "1"), else 0.', 'state', ['domain'], 'listDomains', 'rows[].sslsupport');
export const DOMAIN_CERT_EXPIRY = gauge('edge_domain_certificate_expiry_timestamp_seconds',
  'Expiry of the certificate on the domain as a Unix timestamp (certEndTime, platform zone); absent when null.',
  'timestamp_seconds', ['domain'], 'listDomains', 'rows[].certEndTime');

// -------------------------------------------------------------- certificates

export const CERTIFICATE_INFO = gauge('edge_certificate_info',
  'Hosted certificate; value 1. `subject` is subjectDN (common name), `issuer` is issuerDN.',
  'info', ['cert_id', 'alias', 'subject', 'issuer'], 'describeHosting', 'rows[].certId, alias, subjectDN, issuerDN');
export const CERTIFICATE_STATUS = stateSet('edge_certificate_status', 'Hosted certificate status',
  'status', CERTIFICATE_STATUSES, ['cert_id'], 'describeHosting', 'rows[].status');
export const CERTIFICATE_EXPIRY = gauge('edge_certificate_expiry_timestamp_seconds',
  'Hosted certificate expiry as a Unix timestamp (endTime, platform zone).',
  'timestamp_seconds', ['cert_id'], 'describeHosting', 'rows[].endTime');

// ------------------------------------------------------------- cache records

const CACHE_WINDOW = 'over the configured cache window';

export const CACHE_TASK_URLS = gauge('edge_cache_task_urls',
  `URLs or directories submitted in cache refresh/preload records ${CACHE_WINDOW} (sum of total).`,
  'count', ['type'], 'getCacheRecordList', 'rows[].total');
export const CACHE_TASK_URLS_SUCCEEDED = gauge('edge_cache_task_urls_succeeded',
  `URLs or directories refreshed/preloaded successfully ${CACHE_WINDOW} (sum of success).`,
  'count', ['type'], 'getCacheRecordList', 'rows[].success');
export const CACHE_TASKS = gauge('edge_cache_tasks',
  `Cache refresh/preload records ${CACHE_WINDOW} (row count).`, 'count', ['type'], 'getCacheRecordList', 'rows');

// ----------------------------------------------------------------- live orders

const ORDERS = 'describeHostAcceleratePackOrder';

export const LIVE_ORDER_STATUS = stateSet('edge_live_order_status', 'Live-acceleration order status',
  'status', LIVE_ORDER_STATUSES, ['order_id', 'uid'], ORDERS, 'rows[].status');
export const LIVE_ORDER_END = gauge('edge_live_order_end_timestamp_seconds',
  'End of the live-acceleration order as a Unix timestamp (endTime, platform zone; a bare date means its last second).',
  'timestamp_seconds', ['order_id'], ORDERS, 'rows[].endTime');

// ----------------------------------------------------------- live quality

export const LIVE_QUALITY_REPORTS = gauge('edge_live_quality_reports',
  'Live-quality reports listed for the user.', 'count', ['uid'], 'describeVQUserData', 'rows[].uid');
export const LIVE_QUALITY_LAST_REPORT = gauge('edge_live_quality_last_report_timestamp_seconds',
  "Newest live-quality report of the user as a Unix timestamp (createTime, else date at 00:00, platform zone).",
  'timestamp_seconds', ['uid'], 'describeVQUserData', 'rows[].createTime, rows[].date');

// ----------------------------------------------------------------- groups

export const PACKAGE_FAMILIES = [PACKAGE_INFO] as const;
export const L4_LIST_FAMILIES = [L4_PACKAGE_INFO, L4_PACKAGE_STATE, L4_PACKAGE_EXPIRY, L4_PACKAGE_TIME_LEFT, L4_PACKAGE_RULES] as const;
export const L4_DETAIL_FAMILIES = [L4_PACKAGE_PORTS_USED, L4_PACKAGE_PORTS] as const;
export const DOMAIN_FAMILIES = [DOMAIN_INFO, DOMAIN_STATE, DOMAIN_SSL_ENABLED, DOMAIN_CERT_EXPIRY] as const;
export const CERTIFICATE_FAMILIES = [CERTIFICATE_INFO, CERTIFICATE_STATUS, CERTIFICATE_EXPIRY] as const;
export const CACHE_FAMILIES = [CACHE_TASK_URLS, CACHE_TASK_URLS_SUCCEEDED, CACHE_TASKS] as const;
export const LIVE_ORDER_FAMILIES = [LIVE_ORDER_STATUS, LIVE_ORDER_END] as const;
export const LIVE_QUALITY_FAMILIES = [LIVE_QUALITY_REPORTS, LIVE_QUALITY_LAST_REPORT] as const;

/** Every inventory family, whatever the options (docs/metrics.md lists them all). */
export const INVENTORY_FAMILIES: readonly MetricDef[] = [
  ...PACKAGE_FAMILIES, ...L4_LIST_FAMILIES, ...L4_DETAIL_FAMILIES, ...DOMAIN_FAMILIES,
  ...CERTIFICATE_FAMILIES, ...CACHE_FAMILIES, ...LIVE_ORDER_FAMILIES, ...LIVE_QUALITY_FAMILIES,
];
