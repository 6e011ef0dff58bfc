// The delay the audit's revisions call for. Each late_revision the audit
// sees is a bucket that changed after it was counted; the age at which the
// audit saw it (now minus the bucket's end) is a delay that would have read
// the revised value. The suggestion is the longest such age over the last
// day, in whole minutes: the shortest delay that would have caught every
// revision seen. Ages are kept as the longest per hour of sighting, so a
// day is at most 24 numbers however many series were revised.
import { DAY_MS } from '../../api/time.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** Hour of sighting (epoch ms, aligned) -> the longest revision age seen in it (ms). */
export type RevisionAges = ReadonlyMap<number, number>;

/** The ages with one more revision seen at `at`, and hours older than a day dropped (a fresh map). */
export function withRevision(ages: RevisionAges, at: number, ageMs: number): Map<number, number> {
  const hour = Math.floor(at / HOUR_MS) * HOUR_MS;
  const out = new Map([...ages].filter(([h]) => h + HOUR_MS > at - DAY_MS));
  out.set(hour, Math.max(out.get(hour) ?? 0, ageMs));
  return out;
}

/**
 * The shortest delay (ms) that would have caught every revision seen in the
 * day before `now`; `current` when none was seen: nothing then says another
 * delay would count better.
 */
export function suggestDelay(ages: RevisionAges, now: number, currentMs: number): number {
  let longest: number | undefined;
  for (const [hour, age] of ages) {
    if (hour + HOUR_MS <= now - DAY_MS) continue;
    longest = Math.max(longest ?? 0, age);
  }
  return longest === undefined ? currentMs : Math.ceil(longest / MINUTE_MS) * MINUTE_MS;
}

/** When the suggestion was last logged, and what it was. */
export interface SuggestionLogged {
  readonly at: number;
  readonly suggestedMs: number;
}

/**
 * Whether to log the suggestion: only when it differs from the delay in
 * force, then once a day, or sooner when it moved by more than a bucket
 * since it was last logged.
 */
export function shouldLogSuggestion(last: SuggestionLogged | undefined, suggestedMs: number, inForceMs: number, now: number, bucketMs: number): boolean {
  if (suggestedMs === inForceMs) return false;
  if (last === undefined) return true;
  return now - last.at >= DAY_MS || Math.abs(suggestedMs - last.suggestedMs) > bucketMs;
}
