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
  // The answer's text is not narrowed to the three documented levels: a new level
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

const recordList = list(wafLogRecord);
type RecordList = z.output<typeof recordList>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): boolean => typeof v === 'string';
const isNullishObject = (v: unknown): boolean => v === undefined || v === null || isObject(v);

function parsedRule(rule: unknown): boolean {
  return isObject(rule) && isText(rule['ruleId']) && isText(rule['ruleMessage']) && isText(rule['group'])
    && isText(rule['severity']) && isText(rule['severityLevel']);
}

/**
 * A record JSON.parse already gave in the form `wafLogRecord` outputs: every
 * field it checks present with its output type (ids as strings, integers as
 * numbers, `rules` an array), so its parse would copy it unchanged.
 */
function parsedRecord(r: unknown): boolean {
  if (!isObject(r)) return false;
  const { response, request, rules } = r;
  return isText(r['oid']) && isText(r['requestId']) && isText(r['wafId']) && isText(r['clientIp'])
    && Number.isSafeInteger(r['hostPort']) && isText(r['timeStamp']) && isText(r['severityLevel'])
    && isNullishObject(r['ua']) && isNullishObject(r['geoip'])
    && isObject(response) && Number.isSafeInteger(response['httpCode'])
    && isObject(request) && isText(request['method']) && isText(request['uri']) && isNullishObject(request['headers'])
    && Array.isArray(rules) && rules.every(parsedRule);
}

/**
 * A page of records. zod 4 builds a new object for every object it parses:
 * a page of 100 records was some 600 objects copied (records, request,
 * response, headers, ua, geoip, each rule) only to be dropped, 5 µs of
 * parse plus their garbage per event. A page whose records all
 * have their output form already (what upstreams send) is handed on as
 * JSON.parse made it; any other goes through `list(wafLogRecord)`, whose
 * output and issues are the schema's own. So what is accepted, what is
 * rejected and the error text are unchanged; only unknown keys keep their
 * place (a copy puts them after the known ones), which no consumer reads.
 */
// `.optional()`: without it zod 4 rejects an absent `list` before the transform can read it as [].
const records = z.unknown().optional().transform((input, ctx): RecordList => {
  if (Array.isArray(input) && input.every(parsedRecord)) return input as RecordList;
  const parsed = recordList.safeParse(input);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.issues.push(issue as (typeof ctx.issues)[number]);
  return z.NEVER;
});

const logItem = z.looseObject({
  metricName: z.string(),
  list: records,
  objectArrayList: list(point),
  count: looseInt.optional(),
});

export const describeLogV2Answer = envelope.extend({
  // null means nothing matched; consumers see [].
  data: list(logItem),
});

export type WafLogRecord = z.output<typeof wafLogRecord>;
