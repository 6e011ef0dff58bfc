// A bucket the delivery audit found short, read again whole (auditor.ts names
// it, the forwarder drains it as any window): what decides, record by record,
// whether it was delivered already, and what the recovery reports. A record
// is delivered when its minute's hashes in memory hold it, or, for a minute
// whose hashes left memory (a flood), its file does. Where neither can say (a
// file a power loss took, a minute older than the look-back), the record goes
// again with its uid, and the repeats are counted: up to what the minute held
// before, the rest being the minute's missing records.
import type { JobLogger } from '../engine/job.js';
import type { PlatformClock } from '../api/index.js';
import type { AuditBucket } from './audit.js';
import { minuteOf, type DeliveredMinutes } from './delivered-minutes.js';
import type { LogEvent } from './log-sink.js';
import type { WafEventsObserver } from './metrics.js';
import { uidHash } from './uid-hash.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** What a recovery adds to a window's drain: which records were delivered, and a tally of what it confirms. */
export interface RecoveryHooks {
  isDelivered(uid: string, timeMs: number | undefined): boolean;
  onConfirmed(events: readonly LogEvent[]): void;
}

interface RecoveryParts {
  readonly minutes: DeliveredMinutes;
  /** The hashes of these minutes' files, and the minutes whose file was there. */
  hashesOnDisk(minutes: readonly number[]): Promise<{ readonly hashes: ReadonlySet<number>; readonly found: ReadonlySet<number> }>;
  /** The forwarder's drain of `bucket`, with the hooks; how many records it read. */
  drain(bucket: AuditBucket, hooks: RecoveryHooks): Promise<{ readonly read: number }>;
  /** Each confirmed batch, as how late its records were found (ms from their time to the read). */
  recovered(atMs: number, latenessMs: readonly number[]): void;
  readonly nowMs: number;
  readonly tz: PlatformClock;
  readonly log: JobLogger;
  readonly notify: (call: (ob: WafEventsObserver) => void) => void;
}

/** Reads `bucket` again and delivers what was not delivered; resolves to how many were, repeats aside. */
export async function recoverBucket(bucket: AuditBucket, parts: RecoveryParts): Promise<number> {
  const { minutes, nowMs } = parts;
  const onDisk = await parts.hashesOnDisk(minutes.inFiles(bucket.startMs, bucket.endMs));
  // Minutes no hash can speak for: what each held before, so the records sent again are counted once.
  const heldBefore = new Map<number, number>();
  let sent = 0;
  const onConfirmed = (events: readonly LogEvent[]): void => {
    sent += events.length;
    parts.recovered(nowMs, events.map((e) => Math.max(0, nowMs - e.timestampMs)));
  };
  const isDelivered = (uid: string, timeMs: number | undefined): boolean => {
    if (timeMs === undefined) return false;
    const held = minutes.holds(uid, timeMs);
    if (held !== undefined) return held;
    const minute = minuteOf(timeMs);
    if (onDisk.found.has(minute)) return onDisk.hashes.has(uidHash(uid));
    if (!heldBefore.has(minute)) heldBefore.set(minute, minutes.count(minute, minute + MINUTE));
    return false;
  };
  const fields = { from: parts.tz.formatIso(bucket.startMs), to: parts.tz.formatIso(bucket.endMs) };
  parts.log.info(fields, 'WAF delivery audit: the upstream counts more deny events in this bucket than were delivered; reading it again');
  const drained = await parts.drain(bucket, { isDelivered, onConfirmed }).finally(() => minutes.endLookups());
  let repeats = 0;
  for (const [minute, held] of heldBefore) {
    const again = Math.min(held, minutes.count(minute, minute + MINUTE) - held);
    if (again > 0) minutes.uncount(minute, again);
    repeats += Math.max(0, again);
  }
  if (repeats > 0) parts.notify((ob) => ob.onResent?.(repeats));
  parts.log.info({ ...fields, recovered: sent - repeats, sentAgain: repeats, read: drained.read }, 'WAF delivery audit: bucket read again');
  return sent - repeats;
}
