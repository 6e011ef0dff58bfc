// Durations as people write them in YAML ('500ms', '15s', '1m30s') or a bare
// integer of milliseconds; everything past the schema works in milliseconds.
import { z } from 'zod';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const WHOLE_RE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const PART_RE = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

export const DURATION_HINT = 'expected a duration like 500ms, 15s, 5m, 1h';

/** `'1m30s'` -> 90000; a digits-only string is milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  if (!WHOLE_RE.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART_RE)) {
    total += Number(amount) * (UNIT_MS[unit ?? ''] ?? Number.NaN);
  }
  return Math.round(total);
}

export interface DurationOptions {
  /** Smallest accepted value in milliseconds (default 1: zero is rarely meant). */
  min?: number;
}

/**
 * A zod field accepting a duration string or integer milliseconds and
 * producing milliseconds. Chain `.prefault('15s')` for a default written the
 * way users write it, then `.describe()`.
 */
export function duration(options: DurationOptions = {}) {
  const min = options.min ?? 1;
  return z
    .union([z.string(), z.number()], { error: DURATION_HINT })
    .transform((value, ctx) => {
      // A bare number is whole milliseconds.
      const ms = typeof value === 'number' ? value : parseDuration(value);
      if (ms === undefined || !Number.isSafeInteger(ms)) {
        ctx.addIssue({ code: 'custom', message: DURATION_HINT });
        return z.NEVER;
      }
      if (ms < min) {
        ctx.addIssue({ code: 'custom', message: `expected a duration of at least ${min}ms` });
        return z.NEVER;
      }
      return ms;
    })
    .meta({ 'x-type': 'duration' });
}
