// The upstream's 21 operations as data: one row per operation, read by the
// client (to send), the simulator (to route) and the docs generator. Paths are
// the defaults chosen in docs/upstream-notes.md; config may override each one.
import { InternalError } from '../shared/errors.js';

export const OPERATION_NAMES = [
  'describeLogV2',
  'batchUpdateDomainCertInfo',
  'getPackages',
  'describeL7UsageData',
  'describeL7DataV2',
  'describeL7Data',
  'describeL7MostData',
  'describeL7CCAttack',
  'listLayer4Packages',
  'getPackageDetails',
  'insertRule',
  'updateRule',
  'listDomains',
  'describeHosting',
  'getCacheRecordList',
  'pushUrlsCache',
  'createHostAcceleratePackOrder',
  'updateHostAcceleratePackOrder',
  'modifyHostAcceleratePackOrder',
  'describeHostAcceleratePackOrder',
  'describeVQUserData',
] as const;

export type OperationName = (typeof OPERATION_NAMES)[number];

export interface OperationSpec {
  /** Number in the vendor document. */
  readonly no: number;
  readonly name: OperationName;
  readonly method: 'GET' | 'POST';
  /** `login` is the host the caller logs in on (only the WAF log query). */
  readonly host: 'api' | 'login';
  /** Default path; `{oid}` marks a path parameter taken from the request. */
  readonly path: string;
  /** The path exactly as the document writes it, where it differs from the default. */
  readonly documentedPath?: string;
  /** Writes change upstream state and are never retried automatically. */
  readonly write: boolean;
  /** Subject to the documented 10 requests/second per user. */
  readonly rateLimited: boolean;
  /** Permission label the document names for the operation, if any. */
  readonly permission?: string;
  readonly summary: string;
}

const ORDERS = '/prod-api/acdn/partner/hostAcceleratePackRest';

// The table with its literal values, so the type system can read which
// operations write (ReadOperationName); everyone else reads it as OPERATIONS.
const TABLE = {
  describeLogV2: {
    no: 1, name: 'describeLogV2', method: 'POST', host: 'login',
    path: '/prod-api/waf/wafv3/log/V2/describeLogV2',
    write: false, rateLimited: false, summary: 'Query WAF logs (paged detail and logTread volume trend)',
  },
  batchUpdateDomainCertInfo: {
    no: 2, name: 'batchUpdateDomainCertInfo', method: 'POST', host: 'api',
    path: '/prod-api/cdn/layer7/ssl/batchUpdateDomainCertInfo',
    write: true, rateLimited: false, summary: 'Set a certificate on many domains at once',
  },
  getPackages: {
    no: 3, name: 'getPackages', method: 'GET', host: 'api',
    path: '/prod-api/cdn/domain/getPackages',
    write: false, rateLimited: false, summary: 'List all packages as {label, value} options',
  },
  describeL7UsageData: {
    no: 4, name: 'describeL7UsageData', method: 'POST', host: 'api',
    path: '/prod-api/cdn/layer7/statistic/describeL7UsageData',
    write: false, rateLimited: false, summary: 'Usage monitoring: traffic and bandwidth per package',
  },
  describeL7DataV2: {
    no: 5, name: 'describeL7DataV2', method: 'POST', host: 'api',
    path: '/prod-api/cdn/layer7/statistic/v2/describeL7Data',
    documentedPath: '/prod-apicdn/layer7/statistic/v2/describeL7Data',
    write: false, rateLimited: false, permission: 'statistics:access:query',
    summary: 'Access monitoring (v2): traffic, bandwidth, requests, status codes, request time per domain',
  },
  describeL7Data: {
    no: 6, name: 'describeL7Data', method: 'POST', host: 'api',
    path: '/prod-api/cdn/layer7/statistic/describeL7Data',
    write: false, rateLimited: false, summary: 'Access monitoring (resource-monitoring variant)',
  },
  describeL7MostData: {
    no: 7, name: 'describeL7MostData', method: 'POST', host: 'api',
    path: '/prod-api/cdn/layer7/statistic/describeL7MostData',
    write: false, rateLimited: false, summary: 'Advanced (top-N) monitoring by dimension',
  },
  describeL7CCAttack: {
    no: 8, name: 'describeL7CCAttack', method: 'POST', host: 'api',
    path: '/prod-api/cdn/layer7/attackStatistic/describeL7CCAttack',
    write: false, rateLimited: false, summary: 'CC attack statistics',
  },
  listLayer4Packages: {
    no: 9, name: 'listLayer4Packages', method: 'POST', host: 'api',
    path: '/prod-api/cdn/packageRest/Layer4/list', documentedPath: '/cdn/packageRest/Layer4/list',
    write: false, rateLimited: false, summary: 'List layer-4 packages',
  },
  getPackageDetails: {
    no: 10, name: 'getPackageDetails', method: 'GET', host: 'api',
    path: '/prod-api/cdn/layer4/rules/getPackageDetails/{oid}',
    documentedPath: '/cdn/layer4/rules/getPackageDetails/{oid}',
    write: false, rateLimited: false, summary: 'Layer-4 package details (instances, ports, state)',
  },
  insertRule: {
    no: 11, name: 'insertRule', method: 'POST', host: 'api',
    path: '/prod-api/cdn/layer4/rules/insertRule', documentedPath: '/cdn/layer4/rules/insertRule',
    write: true, rateLimited: false, summary: 'Add layer-4 forwarding rules to a package',
  },
  updateRule: {
    no: 12, name: 'updateRule', method: 'POST', host: 'api',
    path: '/prod-api/cdn/layer4/rules/updateRule', documentedPath: '/cdn/layer4/rules/updateRule',
    write: true, rateLimited: false, summary: 'Update one layer-4 forwarding rule',
  },
  listDomains: {
    no: 13, name: 'listDomains', method: 'POST', host: 'api',
    path: '/prod-api/cdn/domain/list', documentedPath: '/cdn/domain/list',
    write: false, rateLimited: false, summary: 'List domains',
  },
  describeHosting: {
    no: 14, name: 'describeHosting', method: 'POST', host: 'api',
    path: '/prod-api/cdn/ssl/hosting/describeHosting',
    write: false, rateLimited: false, summary: 'Query hosted certificates',
  },
  getCacheRecordList: {
    no: 15, name: 'getCacheRecordList', method: 'POST', host: 'api',
    path: '/prod-api/cdn/layer7/cache/getCacheRecordList',
    write: false, rateLimited: false, summary: 'Cache refresh and preload records',
  },
  pushUrlsCache: {
    no: 16, name: 'pushUrlsCache', method: 'POST', host: 'api',
    path: '/prod-api/acdn/edge/content/pushUrlsCache',
    write: true, rateLimited: false, permission: 'edge:domain:query', summary: 'Push (warm up) URLs into the cache',
  },
  createHostAcceleratePackOrder: {
    no: 17, name: 'createHostAcceleratePackOrder', method: 'POST', host: 'api',
    path: `${ORDERS}/createHostAcceleratePackOrder`,
    write: true, rateLimited: true, summary: 'Create live-acceleration orders',
  },
  updateHostAcceleratePackOrder: {
    no: 18, name: 'updateHostAcceleratePackOrder', method: 'POST', host: 'api',
    path: `${ORDERS}/updateHostAcceleratePackOrder`,
    write: true, rateLimited: true, summary: 'Update live-acceleration orders that are not yet active',
  },
  modifyHostAcceleratePackOrder: {
    no: 19, name: 'modifyHostAcceleratePackOrder', method: 'POST', host: 'api',
    path: `${ORDERS}/modifyHostAcceleratePackOrder`,
    write: true, rateLimited: true, summary: 'Update active live-acceleration orders (rebind uid)',
  },
  describeHostAcceleratePackOrder: {
    no: 20, name: 'describeHostAcceleratePackOrder', method: 'POST', host: 'api',
    path: `${ORDERS}/describeHostAcceleratePackOrder`,
    write: false, rateLimited: true, summary: 'List live-acceleration orders',
  },
  describeVQUserData: {
    no: 21, name: 'describeVQUserData', method: 'POST', host: 'api',
    path: `${ORDERS}/describeVQUserData`,
    write: false, rateLimited: false, summary: 'Query live-quality reports',
  },
} as const satisfies Readonly<Record<OperationName, OperationSpec>>;

export const OPERATIONS: Readonly<Record<OperationName, OperationSpec>> = TABLE;

/**
 * The operations the table marks `write: false`, worked out from it: the only
 * ones a read client (read-client.ts) has, so marking an operation a write
 * takes it away from every collector, the forwarder and the doctor at once.
 */
export type ReadOperationName = { [K in OperationName]: (typeof TABLE)[K]['write'] extends false ? K : never }[OperationName];

export function isOperationName(value: string): value is OperationName {
  return (OPERATION_NAMES as readonly string[]).includes(value);
}

/** Fills `{param}` placeholders, URL-encoding each value. */
export function expandPath(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined || value === '') throw new InternalError(`missing path parameter "${key}"`);
    return encodeURIComponent(value);
  });
}
