// The delivery audit as the forwarder runs it, after a poll has caught up and
// at most every audit interval: one logTread request (audit-check.ts), the
// audited buckets' decisions (audit.ts), a recovery of each short bucket it names (the
// forwarder reads and delivers it, as any window), and what the operator
// sees: the outcome counters, the missing gauge, one warning per bucket that
// ends unreconciled, and the numbers the status page shows.
import type { PlatformClock, ReadClient } from '../api/index.js';
import type { JobLogger } from '../engine/job.js';
import { AuditedBuckets, type AuditBucket, type AuditContext, type AuditStats, type FinalBucket } from './audit.js';
import { auditRange, readCounts } from './audit-check.js';
import type { DeliveredMinutes } from './delivered-minutes.js';
import type { WafQuery } from './fetch.js';
import type { WafEventsObserver } from './metrics.js';

/** waf_events.audit, in ms. */
export interface AuditOptions {
  /** How far back a short bucket is still read again (waf_events.audit.lookback). */
  readonly lookbackMs: number;
  /** Least time between two checks (waf_events.audit.interval). */
  readonly intervalMs: number;
  /** Most id hashes kept to tell delivered records from missing ones (waf_events.audit.max_kept_ids). */
  readonly maxHashes: number;
}

interface AuditorParts {
  readonly options: AuditOptions;
  readonly client: Pick<ReadClient, 'describeLogV2'>;
  readonly tz: PlatformClock;
  readonly minutes: DeliveredMinutes;
  /** Forgets minutes' counts before the first instant, their hashes (in memory and on disk) before the second. */
  readonly forget: (countsBeforeMs: number, hashesBeforeMs: number) => Promise<void>;
  readonly log: JobLogger;
  readonly notify: (call: (ob: WafEventsObserver) => void) => void;
}

/** Reads a bucket again and delivers what was not delivered; resolves to how many were. */
type Recover = (bucket: AuditBucket) => Promise<number>;

export class Auditor {
  private readonly buckets = new AuditedBuckets();
  private nextMs = Number.NEGATIVE_INFINITY;
  private checkedMs: number | undefined;
  private recoveredEvents = 0;
  private unreconciled = 0;
  /** The widest bucket seen: a minute's hashes are kept until no bucket inside the look-back holds it. */
  private widthMs = 5 * 60_000;

  constructor(private readonly parts: AuditorParts) {}

  stats(): AuditStats {
    return {
      checkedMs: this.checkedMs, bucketsShort: this.buckets.shortNow(), missing: this.buckets.missing(), recoveredEvents: this.recoveredEvents,
      unreconciledBuckets: this.unreconciled, idsKept: this.parts.minutes.size.hashes,
    };
  }

  /**
   * One check when due (an interval after the last one began); whether it checked. `fromMs`: where the audit may
   * begin (audit-scope.ts); `finalMs`: how far the final pass has read.
   */
  async runIfDue(nowMs: number, span: { readonly fromMs: number; readonly finalMs: number }, query: WafQuery, signal: AbortSignal, recover: Recover): Promise<boolean> {
    if (nowMs < this.nextMs) return false;
    const { lookbackMs, intervalMs } = this.parts.options;
    // Due again an interval on, whether or not this one gets through: a failing check is not retried every poll.
    this.nextMs = nowMs + intervalMs;
    const { minutes } = this.parts;
    // Compared until twice the look-back and a check after a bucket's end: a record that late is still counted.
    const horizonMs = nowMs - 2 * lookbackMs - intervalMs;
    // Counts of minutes out of the audit's range, hashes of minutes no recovery reads, are not needed any more.
    await this.parts.forget(horizonMs - this.widthMs, nowMs - lookbackMs - this.widthMs);
    const range = auditRange(span.fromMs, span.finalMs, horizonMs, this.widthMs);
    if (range === undefined) return false;
    const listed = await readCounts({ client: this.parts.client, tz: this.parts.tz, signal }, range, query);
    for (const b of listed) this.widthMs = Math.max(this.widthMs, b.endMs - b.startMs);
    const ctx: AuditContext = { nowMs, lookbackMs, horizonMs, delivered: (from, to) => minutes.count(from, to) };
    const result = this.buckets.check(listed, ctx);
    if (result.foundShort > 0) this.parts.notify((ob) => ob.onAuditOutcome?.('short', result.foundShort));
    for (const final of result.finals) this.final(final);
    for (const bucket of result.recover) {
      const events = await recover(bucket);
      this.recoveredEvents += events;
      this.buckets.recovered(bucket, events, ctx);
    }
    this.checkedMs = nowMs;
    this.parts.notify((ob) => ob.onAuditChecked?.({ missing: this.buckets.missing() }));
    return true;
  }

  private final(f: FinalBucket): void {
    if (!f.again) this.parts.notify((ob) => ob.onAuditOutcome?.(f.outcome, 1));
    if (f.outcome !== 'unreconciled' && f.outcome !== 'surplus') return;
    if (f.outcome === 'unreconciled' && !f.again) this.unreconciled++;
    const { tz } = this.parts;
    this.parts.log.warn(
      { from: tz.formatIso(f.bucket.startMs), to: tz.formatIso(f.bucket.endMs), counted: f.counted, delivered: f.delivered, outcome: f.outcome },
      f.outcome === 'unreconciled'
        ? 'WAF delivery audit: the upstream counts more deny events in this bucket than were delivered, after its last check (missing for good; left as it is)'
        : 'WAF delivery audit: more deny events were delivered in this bucket than the upstream counts (reported, never taken back)',
    );
  }
}
