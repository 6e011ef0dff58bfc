// Request and answer schemas of the 21 upstream operations: the single
// source of the typed client's types. Requests are what callers write
// (z.input, so defaults stay optional); answers are what the client returns
// after parsing a response (z.output: numeric strings coerced, missing lists as []).
import type { z } from 'zod';
import type { OperationName } from '../operations.js';
import { describeHostingRequest, describeHostingAnswer } from './certificates.js';
import {
  getCacheRecordListRequest,
  getCacheRecordListAnswer,
  pushUrlsCacheRequest,
  pushUrlsCacheAnswer,
} from './cache.js';
import {
  batchUpdateDomainCertInfoRequest,
  batchUpdateDomainCertInfoAnswer,
  listDomainsRequest,
  listDomainsAnswer,
} from './domains.js';
import {
  createHostAcceleratePackOrderRequest,
  createHostAcceleratePackOrderAnswer,
  describeHostAcceleratePackOrderRequest,
  describeHostAcceleratePackOrderAnswer,
  describeVQUserDataRequest,
  describeVQUserDataAnswer,
  modifyHostAcceleratePackOrderRequest,
  modifyHostAcceleratePackOrderAnswer,
  updateHostAcceleratePackOrderRequest,
  updateHostAcceleratePackOrderAnswer,
} from './orders.js';
import {
  getPackageDetailsRequest,
  getPackageDetailsAnswer,
  getPackagesRequest,
  getPackagesAnswer,
  insertRuleRequest,
  insertRuleAnswer,
  listLayer4PackagesRequest,
  listLayer4PackagesAnswer,
  updateRuleRequest,
  updateRuleAnswer,
} from './packages.js';
import {
  describeL7CCAttackRequest,
  describeL7CCAttackAnswer,
  describeL7DataRequest,
  describeL7DataAnswer,
  describeL7DataV2Request,
  describeL7DataV2Answer,
  describeL7MostDataRequest,
  describeL7MostDataAnswer,
  describeL7UsageDataRequest,
  describeL7UsageDataAnswer,
} from './statistics.js';
import { describeLogV2Request, describeLogV2Answer } from './waf-log.js';

interface OperationSchema {
  readonly request: z.ZodType;
  readonly answer: z.ZodType;
}

export const operationSchemas = {
  describeLogV2: { request: describeLogV2Request, answer: describeLogV2Answer },
  batchUpdateDomainCertInfo: { request: batchUpdateDomainCertInfoRequest, answer: batchUpdateDomainCertInfoAnswer },
  getPackages: { request: getPackagesRequest, answer: getPackagesAnswer },
  describeL7UsageData: { request: describeL7UsageDataRequest, answer: describeL7UsageDataAnswer },
  describeL7DataV2: { request: describeL7DataV2Request, answer: describeL7DataV2Answer },
  describeL7Data: { request: describeL7DataRequest, answer: describeL7DataAnswer },
  describeL7MostData: { request: describeL7MostDataRequest, answer: describeL7MostDataAnswer },
  describeL7CCAttack: { request: describeL7CCAttackRequest, answer: describeL7CCAttackAnswer },
  listLayer4Packages: { request: listLayer4PackagesRequest, answer: listLayer4PackagesAnswer },
  getPackageDetails: { request: getPackageDetailsRequest, answer: getPackageDetailsAnswer },
  insertRule: { request: insertRuleRequest, answer: insertRuleAnswer },
  updateRule: { request: updateRuleRequest, answer: updateRuleAnswer },
  listDomains: { request: listDomainsRequest, answer: listDomainsAnswer },
  describeHosting: { request: describeHostingRequest, answer: describeHostingAnswer },
  getCacheRecordList: { request: getCacheRecordListRequest, answer: getCacheRecordListAnswer },
  pushUrlsCache: { request: pushUrlsCacheRequest, answer: pushUrlsCacheAnswer },
  createHostAcceleratePackOrder: {
    request: createHostAcceleratePackOrderRequest,
    answer: createHostAcceleratePackOrderAnswer,
  },
  updateHostAcceleratePackOrder: {
    request: updateHostAcceleratePackOrderRequest,
    answer: updateHostAcceleratePackOrderAnswer,
  },
  modifyHostAcceleratePackOrder: {
    request: modifyHostAcceleratePackOrderRequest,
    answer: modifyHostAcceleratePackOrderAnswer,
  },
  describeHostAcceleratePackOrder: {
    request: describeHostAcceleratePackOrderRequest,
    answer: describeHostAcceleratePackOrderAnswer,
  },
  describeVQUserData: { request: describeVQUserDataRequest, answer: describeVQUserDataAnswer },
} as const satisfies { readonly [K in OperationName]: OperationSchema };

export type OperationSchemas = typeof operationSchemas;
/** What a caller writes for operation K (defaults still optional). */
export type RequestOf<K extends OperationName> = z.input<OperationSchemas[K]['request']>;
/** The request after validation and defaults: what is sent. */
export type SentRequestOf<K extends OperationName> = z.output<OperationSchemas[K]['request']>;
/** The answer to operation K: its response, parsed. */
export type AnswerOf<K extends OperationName> = z.output<OperationSchemas[K]['answer']>;

export type DescribeLogV2Request = RequestOf<'describeLogV2'>;
export type DescribeLogV2Answer = AnswerOf<'describeLogV2'>;
export type GetPackagesAnswer = AnswerOf<'getPackages'>;
export type DescribeL7UsageDataRequest = RequestOf<'describeL7UsageData'>;
export type DescribeL7UsageDataAnswer = AnswerOf<'describeL7UsageData'>;
export type DescribeL7DataV2Request = RequestOf<'describeL7DataV2'>;
export type DescribeL7DataV2Answer = AnswerOf<'describeL7DataV2'>;
export type DescribeL7DataRequest = RequestOf<'describeL7Data'>;
export type DescribeL7DataAnswer = AnswerOf<'describeL7Data'>;
export type DescribeL7MostDataRequest = RequestOf<'describeL7MostData'>;
export type DescribeL7MostDataAnswer = AnswerOf<'describeL7MostData'>;
export type DescribeL7CCAttackRequest = RequestOf<'describeL7CCAttack'>;
export type ListLayer4PackagesAnswer = AnswerOf<'listLayer4Packages'>;
export type GetPackageDetailsAnswer = AnswerOf<'getPackageDetails'>;
export type ListDomainsAnswer = AnswerOf<'listDomains'>;
export type DescribeHostingAnswer = AnswerOf<'describeHosting'>;
export type GetCacheRecordListAnswer = AnswerOf<'getCacheRecordList'>;
export type DescribeHostAcceleratePackOrderAnswer = AnswerOf<'describeHostAcceleratePackOrder'>;
export type DescribeVQUserDataAnswer = AnswerOf<'describeVQUserData'>;

// Enumerations and row types that collectors, the simulator and the CLI reuse.
export type { Interval } from './common.js';
export { MOST_METRICS } from './statistics.js';
export type { WafLogRecord } from './waf-log.js';
