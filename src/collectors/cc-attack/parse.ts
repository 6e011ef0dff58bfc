// describeL7CCAttack `data` items are not documented ("array of string"), so
// they arrive as unknown values and are recognised here by shape, one type
// guard per shape. Anything unrecognised becomes an issue (logged at debug by
// the collector) and is skipped; nothing here throws. A string item is read
// as JSON first, in case "array of string" means encoded objects.
//
// Recognised (the simulator serves the first form of each):
//   ccPolicyTrend   {metricName, data: {trend: [[ms, n]]}} | {metricName, objectArrayList: [[ms, n]]} | {metricName, data: [[ms, n]]}
//   attack_detail   {metricName, data: {attackedDomains?, peakRequests?, attackRequests?}} (numbers or numeric strings)
//   domain, http_user_agent  {metricName, data: {list: [{name, value}], total?}}
import type { RawPoint } from '../buckets.js';

export interface Ranked {
  readonly name: string;
  readonly value: number;
}

export interface CcDetail {
  readonly attackedDomains?: number;
  readonly peakRequests?: number;
}

export interface CcParsed {
  readonly trend?: readonly RawPoint[];
  readonly detail?: CcDetail;
  readonly domains?: readonly Ranked[];
  readonly userAgents?: readonly Ranked[];
  /** Items skipped: which metric (when known) and why. */
  readonly issues: ReadonlyArray<{ readonly metricName?: string; readonly reason: string }>;
}

type Rec = Readonly<Record<string, unknown>>;

function isRecord(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number | undefined {
  // A long enough digit string reads as Infinity, which is no count either.
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : undefined;
  return n !== undefined && Number.isFinite(n) ? n : undefined;
}

function point(v: unknown): RawPoint | undefined {
  if (!Array.isArray(v) || v.length !== 2) return undefined;
  const t = num(v[0]);
  if (t === undefined || !Number.isInteger(t)) return undefined;
  if (v[1] === null) return [t, null];
  const value = num(v[1]);
  return value === undefined ? undefined : [t, value];
}

/** Every element must be a point: a half-readable trend is not counted. */
function points(v: unknown): RawPoint[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: RawPoint[] = [];
  for (const p of v) {
    const parsed = point(p);
    if (parsed === undefined) return undefined;
    out.push(parsed);
  }
  return out;
}

function trendOf(item: Rec): RawPoint[] | undefined {
  const data = item.data;
  if (isRecord(data) && data.trend !== undefined) return points(data.trend);
  if (item.objectArrayList !== undefined) return points(item.objectArrayList);
  return Array.isArray(data) ? points(data) : undefined;
}

function detailOf(item: Rec): CcDetail | undefined {
  if (!isRecord(item.data)) return undefined;
  const attackedDomains = num(item.data.attackedDomains);
  const peakRequests = num(item.data.peakRequests);
  if (attackedDomains === undefined && peakRequests === undefined) return undefined;
  return { ...(attackedDomains === undefined ? {} : { attackedDomains }), ...(peakRequests === undefined ? {} : { peakRequests }) };
}

function rankingOf(item: Rec): Ranked[] | undefined {
  if (!isRecord(item.data) || !Array.isArray(item.data.list)) return undefined;
  const out: Ranked[] = [];
  for (const entry of item.data.list) {
    if (!isRecord(entry)) return undefined;
    const name = typeof entry.name === 'string' ? entry.name : typeof entry.name === 'number' ? String(entry.name) : undefined;
    const value = num(entry.value);
    if (name === undefined || value === undefined) return undefined;
    out.push({ name, value });
  }
  return out;
}

function decode(raw: unknown): Rec | undefined {
  if (isRecord(raw)) return raw;
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function parseCcAnswer(data: readonly unknown[]): CcParsed {
  const issues: Array<{ metricName?: string; reason: string }> = [];
  const found: { trend?: RawPoint[]; detail?: CcDetail; domains?: Ranked[]; userAgents?: Ranked[] } = {};
  for (const raw of data) {
    const item = decode(raw);
    const metricName = typeof item?.metricName === 'string' ? item.metricName : undefined;
    if (item === undefined || metricName === undefined) {
      issues.push({ reason: 'item is not an object with a metricName' });
      continue;
    }
    const parsed = readItem(item, metricName, found);
    if (!parsed) issues.push({ metricName, reason: 'unrecognised shape' });
  }
  return { ...found, issues };
}

/** Stores a recognised item in `found`; false when the shape is not one of the above (the first of a metric wins). */
function readItem(item: Rec, metricName: string, found: { trend?: RawPoint[]; detail?: CcDetail; domains?: Ranked[]; userAgents?: Ranked[] }): boolean {
  switch (metricName) {
    case 'ccPolicyTrend':
      return (found.trend ??= trendOf(item)) !== undefined;
    case 'attack_detail':
      return (found.detail ??= detailOf(item)) !== undefined;
    case 'domain':
      return (found.domains ??= rankingOf(item)) !== undefined;
    case 'http_user_agent':
      return (found.userAgents ??= rankingOf(item)) !== undefined;
    default:
      return false;
  }
}
