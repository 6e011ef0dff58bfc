// Operation 1, the WAF log query: paged log records (`logs`) and the
// log-volume trend (`logTread`, spelled so by the vendor).
import { z } from 'zod';
import { action, envelope, list, looseInt, looseText, params, point } from './common.js';

const WAF_LOG_METRICS = ['logs', 'logTread'] as const;

/** Fields the WAF log query can filter on; the server rejects others with 查询的字段不存在. */
export const WAF_FILTER_FIELDS = [
  'client_ip',
  'http_user_agent',
  'domain',
  'url',
  'status',
  'request_method',
  'server_port',
  'ua_os_name',
  'ua_name',
  'client_country_name',
  'client_city_name',
  'timezone',
  'hostname',
  'rule_id',
  'rule_tags',
  'waf_acl_id',
  'request_id',
  'oid',
] as const;

export const WAF_COMPARISONS = ['eq', 'ne', 'contain'] as const;
export const SEVERITY_LEVELS = ['高风险', '中风险', '低风险'] as const;
const WAF_ACTIONS = ['deny', 'pass'] as const;

const wafOtherFilter = z.looseObject({
  oneVal: z.enum(WAF_FILTER_FIELDS).optional(),
  twoVal: z.enum(WAF_COMPARISONS).optional(),
  threeVal: z.array(z.string()).optional(),
});

const wafSearchHeader = z.looseObject({
  severityLevel: z.enum(SEVERITY_LEVELS).optional(),
  action: z.enum(WAF_ACTIONS).optional(),
});

export const describeLogV2Request = z.looseObject({
  action: z.array(action(WAF_LOG_METRICS)).min(1, 'at least one action item is required'),
  domains: z.array(z.string()).optional(),
  // The document says to send [] when there is no filter, so absence becomes [].
  otherFilter: z.array(wafOtherFilter).default([]),
  searchHeader: wafSearchHeader.optional(),
  params,
  cluster: z.string().optional(),
});

const matchedRule = z.looseObject({
  ruleId: looseText,
  ruleMessage: z.string(),
  group: z.string(),
  severity: z.string(),
  // Response text is not narrowed to the three documented levels: a new level
  // upstream must not make a whole page of logs unreadable.
  severityLevel: z.string(),
  match: z.unknown().optional(),
});

export const wafLogRecord = z.looseObject({
  oid: z.string(),
  requestId: z.string(),
  wafId: looseText,
  clientIp: z.string(),
  hostPort: looseInt,
  timeStamp: z.string(),
  severityLevel: z.string(),
  ua: z.looseObject({}).nullish(),
  response: z.looseObject({ httpCode: looseInt }),
  geoip: z.looseObject({}).nullish(),
  request: z.looseObject({
    method: z.string(),
    uri: z.string(),
    // Header values are not typed by the document (single or repeated headers).
    headers: z.record(z.string(), z.unknown()).nullish(),
  }),
  rules: list(matchedRule),
});

const logItem = z.looseObject({
  metricName: z.string(),
  list: list(wafLogRecord),
  objectArrayList: list(point),
  count: looseInt.optional(),
});

export const describeLogV2Response = envelope.extend({
  // null means nothing matched; consumers see [].
  data: list(logItem),
});

export type WafLogRecord = z.output<typeof wafLogRecord>;
