// A total or summary field of an answer held against the sum of its points. Pure.
import type { RawPoint } from '../buckets.js';
import type { Mismatch } from './checks.js';

/**
 * Undefined when they agree (to a unit, or a millionth of the total) or when
 * either is missing. Points are summed once per start time (a repeated point
 * is one bucket), up to the end of the range asked for: points after it are
 * judged by out_of_range, not here.
 */
export function totalsFinding(total: number | undefined, points: readonly RawPoint[] | undefined, end: number, field: string): Mismatch | undefined {
  if (total === undefined || points === undefined || !Number.isFinite(total)) return undefined;
  const byStart = new Map<number, number>();
  for (const [t, v] of points) if (t < end && v !== null && Number.isFinite(v)) byStart.set(t, v);
  let sum = 0;
  for (const v of byStart.values()) sum += v;
  if (Math.abs(sum - total) <= Math.max(1, Math.abs(total) * 1e-6)) return undefined;
  return {
    check: 'totals', field,
    assumed: `${field} equals the sum of its points`,
    seen: `${field} ${total}, points sum to ${sum}`,
  };
}
