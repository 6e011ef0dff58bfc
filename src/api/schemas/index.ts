// Request and response schemas of the 21 upstream operations: the single
// source of the typed client's types. Requests are what callers write
// (z.input, so defaults stay optional); responses are what the client returns
// after parsing (z.output: numeric strings coerced, missing lists as []).
import type { z } from 'zod';
import type { OperationName } from '../operations.js';
import { describeHostingRequest, describeHostingResponse } from './certificates.js';
import {
  getCacheRecordListRequest,
  getCacheRecordListResponse,
  pushUrlsCacheRequest,
  pushUrlsCacheResponse,
} from './cache.js';
import {
  batchUpdateDomainCertInfoRequest,
  batchUpdateDomainCertInfoResponse,
  listDomainsRequest,
  listDomainsResponse,
} from './domains.js';
import {
  createHostAcceleratePackOrderRequest,
  createHostAcceleratePackOrderResponse,
  describeHostAcceleratePackOrderRequest,
  describeHostAcceleratePackOrderResponse,
  describeVQUserDataRequest,
  describeVQUserDataResponse,
  modifyHostAcceleratePackOrderRequest,
  modifyHostAcceleratePackOrderResponse,
  updateHostAcceleratePackOrderRequest,
  updateHostAcceleratePackOrderResponse,
} from './orders.js';
import {
  getPackageDetailsRequest,
  getPackageDetailsResponse,
  getPackagesRequest,
  getPackagesResponse,
  insertRuleRequest,
  insertRuleResponse,
  listLayer4PackagesRequest,
  listLayer4PackagesResponse,
  updateRuleRequest,
  updateRuleResponse,
} from './packages.js';
import {
  describeL7CCAttackRequest,
  describeL7CCAttackResponse,
  describeL7DataRequest,
  describeL7DataResponse,
  describeL7DataV2Request,
  describeL7DataV2Response,
  describeL7MostDataRequest,
  describeL7MostDataResponse,
  describeL7UsageDataRequest,
  describeL7UsageDataResponse,
} from './statistics.js';
import { describeLogV2Request, describeLogV2Response } from './waf-log.js';

interface OperationSchema {
  readonly request: z.ZodType;
  readonly response: z.ZodType;
}

export const operationSchemas = {
  describeLogV2: { request: describeLogV2Request, response: describeLogV2Response },
  batchUpdateDomainCertInfo: { request: batchUpdateDomainCertInfoRequest, response: batchUpdateDomainCertInfoResponse },
  getPackages: { request: getPackagesRequest, response: getPackagesResponse },
  describeL7UsageData: { request: describeL7UsageDataRequest, response: describeL7UsageDataResponse },
  describeL7DataV2: { request: describeL7DataV2Request, response: describeL7DataV2Response },
  describeL7Data: { request: describeL7DataRequest, response: describeL7DataResponse },
  describeL7MostData: { request: describeL7MostDataRequest, response: describeL7MostDataResponse },
  describeL7CCAttack: { request: describeL7CCAttackRequest, response: describeL7CCAttackResponse },
  listLayer4Packages: { request: listLayer4PackagesRequest, response: listLayer4PackagesResponse },
  getPackageDetails: { request: getPackageDetailsRequest, response: getPackageDetailsResponse },
  insertRule: { request: insertRuleRequest, response: insertRuleResponse },
  updateRule: { request: updateRuleRequest, response: updateRuleResponse },
  listDomains: { request: listDomainsRequest, response: listDomainsResponse },
  describeHosting: { request: describeHostingRequest, response: describeHostingResponse },
  getCacheRecordList: { request: getCacheRecordListRequest, response: getCacheRecordListResponse },
  pushUrlsCache: { request: pushUrlsCacheRequest, response: pushUrlsCacheResponse },
  createHostAcceleratePackOrder: {
    request: createHostAcceleratePackOrderRequest,
    response: createHostAcceleratePackOrderResponse,
  },
  updateHostAcceleratePackOrder: {
    request: updateHostAcceleratePackOrderRequest,
    response: updateHostAcceleratePackOrderResponse,
  },
  modifyHostAcceleratePackOrder: {
    request: modifyHostAcceleratePackOrderRequest,
    response: modifyHostAcceleratePackOrderResponse,
  },
  describeHostAcceleratePackOrder: {
    request: describeHostAcceleratePackOrderRequest,
    response: describeHostAcceleratePackOrderResponse,
  },
  describeVQUserData: { request: describeVQUserDataRequest, response: describeVQUserDataResponse },
} as const satisfies { readonly [K in OperationName]: OperationSchema };

export type OperationSchemas = typeof operationSchemas;
/** What a caller writes for operation K (defaults still optional). */
export type RequestOf<K extends OperationName> = z.input<OperationSchemas[K]['request']>;
/** The request after validation and defaults: what is sent. */
export type SentRequestOf<K extends OperationName> = z.output<OperationSchemas[K]['request']>;
/** The parsed response of operation K. */
export type ResponseOf<K extends OperationName> = z.output<OperationSchemas[K]['response']>;

export type DescribeLogV2Request = RequestOf<'describeLogV2'>;
export type DescribeLogV2Response = ResponseOf<'describeLogV2'>;
export type GetPackagesResponse = ResponseOf<'getPackages'>;
export type DescribeL7UsageDataRequest = RequestOf<'describeL7UsageData'>;
export type DescribeL7UsageDataResponse = ResponseOf<'describeL7UsageData'>;
export type DescribeL7DataV2Request = RequestOf<'describeL7DataV2'>;
export type DescribeL7DataV2Response = ResponseOf<'describeL7DataV2'>;
export type DescribeL7DataRequest = RequestOf<'describeL7Data'>;
export type DescribeL7DataResponse = ResponseOf<'describeL7Data'>;
export type DescribeL7MostDataRequest = RequestOf<'describeL7MostData'>;
export type DescribeL7MostDataResponse = ResponseOf<'describeL7MostData'>;
export type DescribeL7CCAttackRequest = RequestOf<'describeL7CCAttack'>;
export type ListLayer4PackagesResponse = ResponseOf<'listLayer4Packages'>;
export type GetPackageDetailsResponse = ResponseOf<'getPackageDetails'>;
export type ListDomainsResponse = ResponseOf<'listDomains'>;
export type DescribeHostingResponse = ResponseOf<'describeHosting'>;
export type GetCacheRecordListResponse = ResponseOf<'getCacheRecordList'>;
export type DescribeHostAcceleratePackOrderResponse = ResponseOf<'describeHostAcceleratePackOrder'>;
export type DescribeVQUserDataResponse = ResponseOf<'describeVQUserData'>;

// Enumerations and row types that collectors, the simulator and the CLI reuse.
export type { Interval } from './common.js';
export { MOST_METRICS } from './statistics.js';
export type { WafLogRecord } from './waf-log.js';
