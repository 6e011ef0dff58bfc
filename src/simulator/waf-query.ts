// Filtering and bucketing for the WAF log query (operation 1), with the
// document's business messages. Kept apart from the handler so the log volume
// trend and the paged list provably use one predicate.
import { DENY_STATUS, type WafEvent } from './waf.js';
import { DAY_MS, HOUR_MS, type PlatformClock } from '../api/time.js';
import { EdgeError } from '../shared/errors.js';

const MSG_BAD_COMPARISON = '附属查询条件的条件类型有误';
const msgUnknownField = (field: string): string => `查询失败:查询的字段不存在[${field}]`;
export const MSG_BAD_METRIC = '操作类型有误,仅支持:logs,logTread';
export const MSG_QUERY_FAILED = '查询日志失败';

/** A request the log query refuses with one of the document's business messages. */
export class WafQueryError extends EdgeError {
  readonly code = 'EDGE_SIM_WAF_QUERY';
}

/** Each documented oneVal and the record texts it compares (any of them may match). */
const WAF_FIELDS: Readonly<Record<string, (e: WafEvent) => readonly string[]>> = {
  client_ip: (e) => [e.record.clientIp],
  http_user_agent: (e) => [e.record.request.headers['user-agent'] ?? ''],
  domain: (e) => [e.domain],
  url: (e) => [e.record.request.uri],
  status: (e) => [String(e.record.response.httpCode)],
  request_method: (e) => [e.record.request.method],
  server_port: (e) => [String(e.record.hostPort)],
  ua_os_name: (e) => [e.record.ua?.os_name ?? ''],
  ua_name: (e) => [e.record.ua?.name ?? ''],
  client_country_name: (e) => [e.record.geoip.country_name],
  client_city_name: (e) => [e.record.geoip.city_name],
  timezone: (e) => [e.record.geoip.timezone],
  // The record carries no node name; hostname compares the request's Host header.
  hostname: (e) => [e.record.request.headers.host ?? ''],
  rule_id: (e) => e.record.rules.map((r) => r.ruleId),
  // Rule tags are the matched rules' group names.
  rule_tags: (e) => e.record.rules.map((r) => r.group),
  waf_acl_id: (e) => [e.record.wafId],
  request_id: (e) => [e.record.requestId],
  oid: (e) => [e.record.oid],
};

interface WafFilterSpec {
  readonly oneVal?: unknown;
  readonly twoVal?: unknown;
  readonly threeVal?: unknown;
}

export type EventPredicate = (e: WafEvent) => boolean;

/**
 * One otherFilter item. eq: a record text equals one of threeVal; ne: none
 * does; contain: threeVal[0] as a wildcard pattern (`*`, `?`, anchored) when it
 * holds a wildcard, else as a substring. Matching is case-sensitive.
 */
export function otherFilter(spec: WafFilterSpec): EventPredicate {
  const field = typeof spec.oneVal === 'string' ? spec.oneVal : '';
  const pick = Object.hasOwn(WAF_FIELDS, field) ? WAF_FIELDS[field] : undefined;
  if (!pick) throw new WafQueryError(msgUnknownField(field));
  const op = spec.twoVal;
  if (op !== 'eq' && op !== 'ne' && op !== 'contain') throw new WafQueryError(MSG_BAD_COMPARISON);
  const values = spec.threeVal;
  if (!Array.isArray(values) || values.length === 0 || !values.every((v): v is string => typeof v === 'string')) {
    throw new WafQueryError(MSG_QUERY_FAILED);
  }
  if (op === 'eq') return (e) => pick(e).some((t) => values.includes(t));
  if (op === 'ne') return (e) => !pick(e).some((t) => values.includes(t));
  const test = pattern(values[0] ?? '');
  return (e) => pick(e).some(test);
}

function pattern(p: string): (text: string) => boolean {
  if (!/[*?]/.test(p)) return (t) => t.includes(p);
  const source = p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  const re = new RegExp(`^${source}$`, 's');
  return (t) => re.test(t);
}

const LEVELS = ['高风险', '中风险', '低风险'];

/** searchHeader: severityLevel is the record's level; action deny ⇔ httpCode 417, pass ⇔ any other. */
export function searchHeader(header: Readonly<Record<string, unknown>>): EventPredicate[] {
  const out: EventPredicate[] = [];
  const level = header.severityLevel;
  if (level !== undefined && level !== null && level !== '') {
    if (typeof level !== 'string' || !LEVELS.includes(level)) throw new WafQueryError(MSG_QUERY_FAILED);
    out.push((e) => e.record.severityLevel === level);
  }
  const action = header.action;
  if (action !== undefined && action !== null && action !== '') {
    if (action !== 'deny' && action !== 'pass') throw new WafQueryError(MSG_QUERY_FAILED);
    out.push((e) => (e.record.response.httpCode === DENY_STATUS) === (action === 'deny'));
  }
  return out;
}

const MINUTE = 60_000;

/**
 * logTread bucket size (not given by the document): 1 minute up to 6 hours of
 * range, 5 minutes up to 1 day, 1 hour up to 7 days, 1 day beyond.
 */
export function trendStep(rangeMs: number): number {
  if (rangeMs <= 6 * HOUR_MS) return MINUTE;
  if (rangeMs <= DAY_MS) return 5 * MINUTE;
  if (rangeMs <= 7 * DAY_MS) return HOUR_MS;
  return DAY_MS;
}

/** How the readings shape the logTread listing (every field off by default). */
interface TrendOptions {
  /** The logTreadBucketMs reading: every bucket this size and counted whole. */
  readonly fixedStep?: number | undefined;
  /** The logTreadStrictRange reading (with a fixed size only). */
  readonly strict?: boolean;
  /** The logTreadCompleteOnly reading (with a fixed size only). */
  readonly completeOnly?: boolean;
  /** The logTreadCountDelta reading. */
  readonly countDelta?: number;
}

/**
 * Counts matching records into logTread buckets. points() lists every bucket
 * from the aligned begin while start < end and start <= now (1 day buckets
 * start at platform midnight), zeros included. By default a bucket counts the
 * records of the range only, so the counts add up to the number of matching
 * records. With a fixed size (the logTreadBucketMs reading) every listed
 * bucket is counted whole, records before begin or after end included:
 * span() says which records to add. `strict` (the logTreadStrictRange
 * reading, with a fixed size only) lists the buckets that begin at or after
 * begin, not the one containing it; `completeOnly` (logTreadCompleteOnly,
 * fixed size only: the default sizing clips buckets to the range, so there is
 * no whole bucket to wait for) lists a bucket once its end <= now.
 * `countDelta` (logTreadCountDelta) shifts every non-empty point, as counts
 * kept by another index than the records would.
 */
export class TrendCounter {
  private readonly step: number;
  private readonly whole: boolean;
  private readonly counts = new Map<number, number>();

  constructor(
    private readonly begin: number,
    private readonly end: number,
    private readonly tz: PlatformClock,
    private readonly options: TrendOptions = {},
  ) {
    this.step = options.fixedStep ?? trendStep(end - begin);
    this.whole = options.fixedStep !== undefined;
  }

  /** The times whose records the points count: [from, to). */
  span(now: number): { from: number; to: number } {
    if (!this.whole) return { from: this.begin, to: this.end };
    const starts = this.starts(now);
    const first = starts[0];
    const last = starts.at(-1);
    return first === undefined || last === undefined ? { from: this.begin, to: this.begin } : { from: first, to: last + this.step };
  }

  add(time: number): void {
    const start = this.align(time);
    this.counts.set(start, (this.counts.get(start) ?? 0) + 1);
  }

  points(now: number): Array<[number, number]> {
    const delta = this.options.countDelta ?? 0;
    return this.starts(now).map((s) => {
      const n = this.counts.get(s) ?? 0;
      return [s, n === 0 ? 0 : Math.max(0, n + delta)];
    });
  }

  /** Records counted into the listed buckets (what decides `data: null`, whatever the points report). */
  records(): number {
    let sum = 0;
    for (const n of this.counts.values()) sum += n;
    return sum;
  }

  private starts(now: number): number[] {
    const out: number[] = [];
    const aligned = this.align(this.begin);
    // Strict reading: a bucket that began before the range is not listed (nor counted: span() follows the list).
    const first = this.whole && this.options.strict === true && aligned < this.begin ? aligned + this.step : aligned;
    const listedBy = this.whole && this.options.completeOnly === true ? now - this.step : now;
    for (let s = first; s < this.end && s <= listedBy; s += this.step) out.push(s);
    return out;
  }

  private align(t: number): number {
    return this.step === DAY_MS ? this.tz.startOfDay(t) : Math.floor(t / this.step) * this.step;
  }
}
