// Durations as people write them in YAML ('500ms', '15s', '1m30s') or a bare
// integer of milliseconds; everything past the schema works in milliseconds.
// Every duration has an upper bound: Node runs a timer longer than 2^31-1 ms
// after 1 ms instead (a busy loop), so a key that becomes a timer is capped
// there, and one that is not names a bound of its own (see `max`).
import { z } from 'zod';
import { DAY_MS, HOUR_MS } from '../api/time.js';
import { MAX_TIMER_MS } from '../shared/wait.js';
import { ArgumentError } from '../shared/errors.js';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const WHOLE_RE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const PART_RE = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

export const DURATION_HINT = 'expected a duration like 500ms, 15s, 5m, 1h';

export { MAX_TIMER_MS };

/**
 * Bounds of the durations that are time ranges, not timers. The upstream
 * states no retention or longest range, so these are generous bounds the
 * runtime honours: a range asked of the upstream or back-filled (a month: at
 * 1m buckets 44,640 points per series in one cycle), and a lag or overlap
 * (a day: the upstream's revisions and ingest lag are minutes).
 */
export const MAX_RANGE_MS = 31 * DAY_MS;
export const MAX_LAG_MS = DAY_MS;
/**
 * A request's time limit: a timer, but one the OTLP exporter extends by its
 * acknowledgement margin, so it stays far below MAX_TIMER_MS; an answer an
 * hour late is no answer.
 */
export const MAX_REQUEST_TIMEOUT_MS = HOUR_MS;
/** The audit keeps what it counted per bucket in memory for `lookback`: a week of 1m buckets is 10,080 values per series. */
export const MAX_AUDIT_LOOKBACK_MS = 7 * DAY_MS;

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

/** 2147483647 -> '24d20h31m23s647ms', 0 -> '0ms': the form parseDuration reads back. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0ms';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  let text = '';
  for (const unit of ['d', 'h', 'm', 's', 'ms'] as const) {
    const size = UNIT_MS[unit] ?? 1;
    const amount = Math.floor(rest / size);
    rest -= amount * size;
    if (amount > 0) text += `${amount}${unit}`;
  }
  return sign + text;
}

/** The message of a duration above `max`; a timer's bound says why it is what it is. */
function tooLongMessage(max: number): string {
  const why = max === MAX_TIMER_MS ? ' (the longest timer Node can run)' : '';
  return `expected a duration of at most ${formatDuration(max)}${why}`;
}

interface DurationOptions {
  /** Smallest accepted value in milliseconds (default 1: zero is rarely meant). */
  min?: number;
  /**
   * Largest accepted value in milliseconds (default MAX_TIMER_MS). A key
   * that becomes a timer keeps the default; one that is a time range sets
   * the bound its use can honour.
   */
  max?: number;
}

/**
 * A zod field accepting a duration string or integer milliseconds and
 * producing milliseconds. Chain `.prefault('15s')` for a default written the
 * way users write it, then `.describe()`. The bounds are in the JSON schema
 * (`minimum`/`maximum` apply to the integer form) and so in docs/config.md.
 */
export function duration(options: DurationOptions = {}) {
  const min = options.min ?? 1;
  const max = options.max ?? MAX_TIMER_MS;
  if (max < min) throw new ArgumentError(`duration bounds ${min}..${max} are empty`);
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
      if (ms > max) {
        ctx.addIssue({ code: 'custom', message: tooLongMessage(max) });
        return z.NEVER;
      }
      return ms;
    })
    .meta({ 'x-type': 'duration', minimum: min, maximum: max });
}

/** A duration within `options`' bounds, or `auto` (a value the daemon finds at run time: `delay`, `overlap`). */
export function durationOrAuto(options: { readonly min: number; readonly max: number }) {
  const fixed = duration(options);
  // Not z.union: its error would be "Invalid input" instead of the duration's own message.
  return z
    .union([z.string(), z.number()])
    .transform((value, ctx): number | 'auto' => {
      if (value === 'auto') return 'auto';
      const parsed = fixed.safeParse(value);
      if (parsed.success) return parsed.data;
      for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: `${issue.message} (or auto)` });
      return z.NEVER;
    })
    .meta({ 'x-type': `\`auto\` or duration, ${formatDuration(options.min)} to ${formatDuration(options.max)}` });
}
