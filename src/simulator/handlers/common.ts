// Request reading shared by the handlers: field checks, time ranges, the
// interval enum, paging and SearchFilter. The simulator checks what the vendor
// document states, independently of the client's schemas, so contract tests
// catch a client that sends what the upstream would refuse.
//
// Error mapping (the document shows no status for these): a malformed or
// missing field is HTTP 400 with envelope code 400; a well-formed request the
// account cannot satisfy (unknown id, conflict) is HTTP 200 with code 500 and a
// business message, the same way the document's WAF messages travel.
import type { PlatformClock } from '../../api/time.js';
import { fail, type Handler, type SimResponse } from '../types.js';
import { INTERVALS, type Interval } from '../stats.js';
import { RangeTooLargeError } from '../stats-series.js';
import { EdgeError } from '../../shared/errors.js';

export class BadRequest extends EdgeError {
  readonly code = 'EDGE_SIM_BAD_REQUEST';
}
export class BusinessError extends EdgeError {
  readonly code = 'EDGE_SIM_BUSINESS';
}

export type Obj = Readonly<Record<string, unknown>>;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Converts thrown BadRequest/BusinessError into the envelope answers described above. */
export function guard(handler: Handler): Handler {
  return (req) => {
    try {
      return handler(req);
    } catch (err) {
      return errorResponse(err);
    }
  };
}

function errorResponse(err: unknown): SimResponse {
  if (err instanceof BadRequest || err instanceof RangeTooLargeError) return fail(400, 400, `参数错误: ${err.message}`);
  if (err instanceof BusinessError) return fail(200, 500, err.message);
  throw err;
}

export function obj(v: unknown, path = 'body'): Obj {
  if (!isRecord(v)) throw new BadRequest(`${path} must be a JSON object`);
  return v;
}

export function optStr(o: Obj, key: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new BadRequest(`${key} must be a string`);
  return v;
}

export function reqStr(o: Obj, key: string): string {
  const v = optStr(o, key);
  if (v === undefined || v === '') throw new BadRequest(`${key} is required`);
  return v;
}

export function optInt(o: Obj, key: string): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new BadRequest(`${key} must be an integer`);
  return v;
}

export function reqInt(o: Obj, key: string): number {
  const v = optInt(o, key);
  if (v === undefined) throw new BadRequest(`${key} is required`);
  return v;
}

export function optBool(o: Obj, key: string): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new BadRequest(`${key} must be a boolean`);
  return v;
}

export function optArr(o: Obj, key: string): readonly unknown[] | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw new BadRequest(`${key} must be an array`);
  return v;
}

export function reqArr(o: Obj, key: string): readonly unknown[] {
  const v = optArr(o, key);
  if (v === undefined) throw new BadRequest(`${key} is required`);
  return v;
}

export function strings(v: readonly unknown[] | undefined, path: string): string[] {
  return (v ?? []).map((x, i) => {
    if (typeof x !== 'string') throw new BadRequest(`${path}[${i}] must be a string`);
    return x;
  });
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], path: string): T {
  const hit = allowed.find((a) => a === value);
  if (hit === undefined) throw new BadRequest(`${path} must be one of ${allowed.join(', ')}`);
  return hit;
}

export interface TimeRange {
  readonly begin: number;
  readonly end: number;
}

/** Params {beginTime, endTime} in the platform zone; endTime must not precede beginTime. */
export function timeRange(o: Obj, tz: PlatformClock, key = 'params'): TimeRange {
  const p = obj(o[key], key);
  const read = (name: string): number => {
    const text = reqStr(p, name);
    try {
      return tz.parseDateTime(text);
    } catch {
      throw new BadRequest(`${key}.${name} must be a valid yyyy-MM-dd HH:mm:ss time`);
    }
  };
  const begin = read('beginTime');
  const end = read('endTime');
  if (end < begin) throw new BadRequest(`${key}.endTime must not be earlier than beginTime`);
  return { begin, end };
}

/** Params when optional: absent means today so far (platform midnight to now). */
export function optTimeRange(o: Obj, tz: PlatformClock, now: number): TimeRange {
  return o.params === undefined || o.params === null ? { begin: tz.startOfDay(now), end: now } : timeRange(o, tz);
}

export function interval(o: Obj): Interval {
  return oneOf(reqStr(o, 'interval'), INTERVALS, 'interval');
}

export interface Paging {
  readonly pageNum: number;
  readonly pageSize: number;
}

/** pageNum/pageSize (>= 1); when optional they default to 1 and 10. */
export function paging(o: Obj, required: boolean, keys: readonly [string, string] = ['pageNum', 'pageSize']): Paging {
  const read = (key: string, fallback: number): number => {
    const v = required ? reqInt(o, key) : (optInt(o, key) ?? fallback);
    if (v < 1) throw new BadRequest(`${key} must be at least 1`);
    return v;
  };
  return { pageNum: read(keys[0], 1), pageSize: read(keys[1], 10) };
}

export function pageOf<T>(rows: readonly T[], p: Paging): T[] {
  const from = (p.pageNum - 1) * p.pageSize;
  return rows.slice(from, from + p.pageSize);
}

/** For each documented filter label, the row texts it searches. */
type FilterFields<T> = Readonly<Record<string, (row: T) => readonly string[]>>;

/**
 * SearchFilter: one value is a fuzzy (case-insensitive substring) search,
 * several values an exact match of any of them; no or empty value filters
 * nothing. Filters combine with AND. An undocumented label is a bad request.
 */
export function searchFilters<T>(rows: readonly T[], raw: readonly unknown[] | undefined, fields: FilterFields<T>, valueRequired = false): T[] {
  const filters = (raw ?? []).map((item, i) => {
    const f = obj(item, `filters[${i}]`);
    const label = reqStr(f, 'label');
    const pick = Object.hasOwn(fields, label) ? fields[label] : undefined;
    if (!pick) throw new BadRequest(`filters[${i}].label must be one of ${Object.keys(fields).join(', ')}`);
    const values = strings(valueRequired ? reqArr(f, 'value') : optArr(f, 'value'), `filters[${i}].value`);
    return { pick, values };
  });
  return rows.filter((row) => filters.every(({ pick, values }) => {
    if (values.length === 0) return true;
    const texts = pick(row);
    if (values.length === 1) {
      const needle = (values[0] ?? '').toLowerCase();
      return texts.some((t) => t.toLowerCase().includes(needle));
    }
    return texts.some((t) => values.includes(t));
  }));
}

/** A list of Action items, each with a metricName from `allowed`, in request order. */
export function metricNames<T extends string>(raw: readonly unknown[], allowed: readonly T[], path = 'action'): T[] {
  return raw.map((item, i) => oneOf(reqStr(obj(item, `${path}[${i}]`), 'metricName'), allowed, `${path}[${i}].metricName`));
}
