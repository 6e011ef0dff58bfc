// What the WAF event forwarder is built from and what one poll reports.
// Durations are milliseconds; the daemon maps the `waf_events` config here.
import type { PlatformClock, ReadClient } from '../api/index.js';
import type { JobLogger } from '../engine/job.js';
import type { SampleSink } from '../collectors/collector.js';

import type { LogSink } from './log-sink.js';
import type { StateRecovery } from '../state/recovery.js';
import type { CheckpointStorage } from './checkpoint.js';
import type { DeliveryRetry } from './deliver.js';
import type { WafQuery } from './fetch.js';
import type { WafEventsObserver } from './metrics.js';
import type { WindowOptions } from './window.js';
import type { VolumeOptions } from './volume.js';
import type { AuditOptions } from './auditor.js';
import type { AutoOverlap } from './overlap.js';
import type { Clock } from '../shared/clock.js';
import type { RunError } from '../shared/errors.js';

/** Where the domains each poll reads come from, when not from the query itself. */
interface WafDomainScope {
  /**
   * The domains to read at `now`; [] when there are none (the poll then
   * passes its windows without a request). Throws while the domains could
   * never be listed, so the poll fails and the checkpoint stays where it is.
   */
  domains(now: number, signal: AbortSignal): Promise<readonly string[]>;
}

/**
 * waf_events.max_window_events' default. A backlog's first window is cut and read again shorter a few times, each
 * cut keeping its ids: at 50,000 a 5M-event backlog peaked at 208 MiB RSS there, at 25,000 at 170 MiB
 * (section 12.8 of `git show 7888197:docs/benchmarks.md`). It is also the flood threshold: ids kept past it make new windows wait (nextWindow).
 */
export const DEFAULT_MAX_WINDOW_EVENTS = 25_000;

export interface WafEventForwarderOptions extends WindowOptions {
  readonly client: Pick<ReadClient, 'describeLogV2'>;
  readonly tz: PlatformClock;
  readonly sink: LogSink;
  /** Receives edge_waf_denied_requests_total (the Prometheus exporter). */
  readonly samples: SampleSink;
  readonly store: CheckpointStorage;
  readonly log: JobLogger;
  /** Poll period, ms (waf_events.interval): the engine's interval schedule. */
  readonly intervalMs: number;
  readonly query: WafQuery;
  /** Most new events one window takes before it is read again shorter (waf_events.max_window_events). */
  readonly maxWindowEvents?: number;
  /** The domains to read, asked every poll (they replace query.domains). Absent: the query as is. */
  readonly scope?: WafDomainScope;
  /** Request headers forwarded (waf_events.headers); credentials are dropped whatever it says. */
  readonly headers?: readonly string[];
  /** Delivery backoff (default 1s doubling, jittered, up to 60s). */
  readonly retry?: Partial<DeliveryRetry>;
  /** Most series of the denied counter and of the rule info (limits.series_per_family; default 10000). */
  readonly maxSeries?: number;
  /** A rule absent from this much of the deny events read leaves edge_waf_rule_info (targets.forget_after; default 1h). */
  readonly forgetAfterMs?: number;
  readonly observer?: WafEventsObserver;
  /** waf_events.max_rate and over_rate (default: unlimited). */
  readonly volume?: VolumeOptions;
  /** Defaults to Date.now. */
  readonly clock?: Clock;
  /** What a damaged checkpoint does at start-up (state_recovery); default: start-up fails. */
  readonly recovery?: StateRecovery;
  /** The delivery audit (waf_events.audit); absent: none. */
  readonly audit?: AuditOptions;
  /** waf_events.overlap: auto: the audit's suggestion is put in force within these bounds, from overlapMs (overlap.ts). */
  readonly autoOverlap?: AutoOverlap;
}

/** The outcome of one poll (every window due, until caught up or failed). */
export interface PollReport {
  readonly ok: boolean;
  /** Windows completely delivered (the cursor moved past each). */
  readonly windows: number;
  readonly forwarded: number;
  readonly cursorMs: number | undefined;
  readonly error?: RunError;
}

