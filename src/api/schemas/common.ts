// Building blocks shared by the per-operation schemas.
//
// Requests are checked strictly against what the vendor document states, so a
// caller's mistake is reported locally with the field's path and the allowed
// values instead of as a vague upstream business message. They are loose
// objects: keys we do not model (the document admits "common public request
// parameters: not shown") still reach the server, and a typo is never dropped
// silently.
//
// Answers are read tolerantly because the document is loose about them:
// unknown keys pass through, integers may arrive as numeric strings, `data` and
// `rows` may be null or absent (error envelopes carry neither). A field of a
// plainly wrong type still fails, which the client reports as a bad response.
import { z } from 'zod';
import { DAY_MS, HOUR_MS, isDateString, isDateTimeString, MINUTE_MS, platformClock } from '../time.js';

// ---------------------------------------------------------------- enumerations

export const INTERVALS = ['1m', '5m', '1h', '1d'] as const;
/** Each statistics interval in milliseconds (a day is the platform zone's calendar day). */
export const INTERVAL_MS = { '1m': MINUTE_MS, '5m': 5 * MINUTE_MS, '1h': HOUR_MS, '1d': DAY_MS } as const satisfies Record<(typeof INTERVALS)[number], number>;
const CARRIERS = ['联通', '移动', '电信'] as const;
const AREAS = ['mainland', 'overseas', 'global'] as const;

export const interval = z.enum(INTERVALS);
export const carrier = z.enum(CARRIERS);
export const area = z.enum(AREAS);

// ---------------------------------------------------------- request primitives

/** Page number or size: the document types both as int32, and 0 is meaningless. */
export const pageNumber = z.int32().min(1);
/** int64 fields travel as JSON numbers; z.int() keeps them within the safe range. */
export const int64 = z.int();
export const nonEmpty = z.string().min(1, 'must not be empty');

// The offset does not matter here: only calendar validity is checked, so that
// 2026-02-31 is rejected locally instead of being rolled over by the server.
const calendar = platformClock(0);

function isCalendarDateTime(text: string): boolean {
  if (!isDateTimeString(text)) return false;
  try {
    calendar.parseDateTime(text);
    return true;
  } catch {
    return false;
  }
}

function isCalendarDate(text: string): boolean {
  if (!isDateString(text)) return false;
  try {
    calendar.parseDate(text);
    return true;
  } catch {
    return false;
  }
}

export const dateTimeString = z
  .string()
  .refine(isCalendarDateTime, 'expected a valid time in the form yyyy-MM-dd HH:mm:ss');

export const dateString = z.string().refine(isCalendarDate, 'expected a valid date in the form yyyy-MM-dd');

/** For order times whose format the document does not show. */
export const dateOrDateTimeString = z
  .string()
  .refine(
    (t) => isCalendarDateTime(t) || isCalendarDate(t),
    'expected a valid time in the form yyyy-MM-dd HH:mm:ss or yyyy-MM-dd',
  );

/** Params: the time range of a query. */
export const params = z
  .looseObject({ beginTime: dateTimeString, endTime: dateTimeString })
  .refine(
    // Only meaningful once both are well-formed; the fixed-width format makes
    // string order equal time order.
    (p) => !isCalendarDateTime(p.beginTime) || !isCalendarDateTime(p.endTime) || p.beginTime <= p.endTime,
    { path: ['endTime'], message: 'endTime must not be earlier than beginTime' },
  );

/** A free-form object the document names without listing its fields. */
export const openObject = z.looseObject({});

/** Action: one query item; each operation narrows metricName to its own set. */
export function action<const M extends readonly [string, ...string[]]>(metrics: M) {
  return z.looseObject({
    metricName: z.enum(metrics),
    pageNo: pageNumber.optional(),
    pageSize: pageNumber.optional(),
  });
}

/** StatisticOtherFilter: the statistic operations do not document oneVal/twoVal values. */
export const statisticOtherFilter = z.looseObject({
  oneVal: z.string().optional(),
  twoVal: z.string().optional(),
  threeVal: z.array(z.string()).optional(),
  threeVals: z.array(z.string()).optional(),
});

/** SearchFilter with the label set an operation documents. */
export function searchFilter<const L extends readonly [string, ...string[]]>(labels: L) {
  return z.looseObject({
    label: z.enum(labels).optional(),
    value: z.array(z.string()).optional(),
  });
}

/** SearchFilter where label and value are required (the domain list). */
export function requiredSearchFilter<const L extends readonly [string, ...string[]]>(labels: L) {
  return z.looseObject({ label: z.enum(labels), value: z.array(z.string()) });
}

// ---------------------------------------------------------- answer primitives

const INT_RE = /^\s*-?\d+\s*$/;
const NUMBER_RE = /^\s*-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*$/;

/** An integer, or a string holding one (the document calls some codes "string-typed integers"). */
export const looseInt = z.union([
  z.int(),
  z.string().regex(INT_RE, 'expected an integer').transform(Number).pipe(z.int()),
]);

/** A number, or a string holding one. Measurements are not forced to integers. */
export const looseNumber = z.union([
  z.number(),
  z.string().regex(NUMBER_RE, 'expected a number').transform(Number).pipe(z.number()),
]);

/** Text that samples sometimes show as a number (IDs, dimension names); normalised to a string. */
export const looseText = z.union([z.string(), z.number().transform(String)]);

/**
 * Time-series point `[epoch ms, value]`. The value may be null: series from
 * statistics back ends commonly mark a bucket with no data that way, and a gap
 * must not be read as zero. Consumers skip null points.
 */
export const point = z.tuple([looseInt, looseNumber.nullable()]);
const pointList = z.array(point);
type PointList = z.output<typeof pointList>;

/** A point JSON.parse already gave in its parsed form: what `point` would copy unchanged. */
function parsedPoint(p: unknown): boolean {
  if (!Array.isArray(p) || p.length !== 2) return false;
  const [t, v] = p as unknown[];
  return Number.isSafeInteger(t) && (v === null || (typeof v === 'number' && Number.isFinite(v)));
}

/**
 * A list of points. zod's tuple parse copies every point, and a cycle at
 * 100k series parses millions of them: most of its allocation, and garbage
 * that survives long enough to grow the heap. A list whose points
 * are all numbers already (what upstreams send) is handed on as JSON.parse
 * made it; anything else goes through `pointList`, whose output and issues
 * are the schema's own.
 */
export const series = z.unknown().transform((input, ctx): PointList => {
  if (Array.isArray(input) && input.every(parsedPoint)) return input as PointList;
  const parsed = pointList.safeParse(input);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.issues.push(issue as (typeof ctx.issues)[number]);
  return z.NEVER;
});

/** A list field that may be null or missing; consumers always see an array. */
export function list<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .nullish()
    .transform((v): z.output<T>[] => v ?? []);
}

/**
 * The envelope every response carries. msg is optional because only `code`
 * decides success and failing a good response over a missing text would be
 * worse than reporting no message.
 */
export const envelope = z.looseObject({
  code: looseInt,
  msg: z.string().nullish(),
});

/** Envelope plus `data`, which may be null or absent. */
export function withList<T extends z.ZodType>(item: T) {
  return envelope.extend({ data: list(item) });
}

/** Paged-list answer: total may be absent on error envelopes, rows default to []. */
export function pagedList<T extends z.ZodType>(row: T) {
  return envelope.extend({ total: looseInt.optional(), rows: list(row) });
}

export type Interval = z.output<typeof interval>;
export type Carrier = z.output<typeof carrier>;
