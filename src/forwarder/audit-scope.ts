// From when the audit's minutes (delivered-minutes.ts) hold every deny event
// this daemon delivered, and for which domains. A bucket before that cannot be
// compared: a checkpoint written before the audit (or with it off) has no
// minutes, and a forwarder whose domains changed delivered nothing of its new
// domains' past (another replica may have). Compared anyway, such buckets would look
// short and their records would be sent again, so the audit begins at the
// first whole minute past the cursor from which the minutes are complete.
// Pure.
import { minuteOf } from './delivered-minutes.js';

export interface AuditFrom {
  readonly fromMs: number;
  /** The domains read (scopeKey): a change moves fromMs; ANY_SCOPE: whichever the first check reads (a first start). */
  readonly scope: string;
}

/** A first start: the minutes are complete from its origin for the domains its first poll reads. */
export const ANY_SCOPE = '';

/** A stable text for a domain list: every domain of the account (none listed) is `*`. */
export function scopeKey(domains: readonly string[] | undefined): string {
  return domains === undefined || domains.length === 0 ? '*' : [...domains].sort().join('\n');
}

/** The first whole minute at or after `ms`. */
export const nextMinute = (ms: number): number => minuteOf(ms + 59_999);

/**
 * Where the audit begins: `saved` as it is for the same domains (or a first
 * start's, for the first domains read); otherwise
 * (none saved, or other domains) the first whole minute past the cursor, which
 * every event delivered from then on is counted in.
 */
export function auditFrom(saved: AuditFrom | undefined, scope: string, cursorMs: number): AuditFrom {
  if (saved !== undefined && saved.scope === scope) return saved;
  if (saved !== undefined && saved.scope === ANY_SCOPE) return { fromMs: saved.fromMs, scope };
  return { fromMs: Math.max(saved?.fromMs ?? Number.NEGATIVE_INFINITY, nextMinute(cursorMs)), scope };
}
