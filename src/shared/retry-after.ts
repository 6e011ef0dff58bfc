// Reading `Retry-After` (RFC 9110 §10.2.3): delta-seconds or an HTTP date.
// The wait it asks for is capped: one answer should not be able to stop the
// daemon for hours (the collectors back-fill whatever a pause delays, but a
// bucket older than max_backfill is lost), and a misconfigured proxy that
// says "Retry-After: 86400" should show up as repeated throttling, not as a
// day of silence.

/** The longest pause one Retry-After can impose, ms (5 minutes). */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/**
 * The wait `value` asks for, ms from `now`, at most `capMs`: 0 for a date in
 * the past, undefined when absent or unreadable (the caller's backoff applies).
 */
export function parseRetryAfter(value: string | readonly string[] | undefined, now: number, capMs = MAX_RETRY_AFTER_MS): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return undefined;
  let ms: number;
  if (/^\d+$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    // An IMF-fixdate (or the obsolete forms Date.parse reads); anything else with letters is not a date.
    const at = /[a-z]/i.test(text) && /\d{4}|\d{2}:\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(capMs, Math.max(0, ms));
}
