// What a collector is, and what it hands on: the contract between a
// collector, the engine that runs it (engine/), and whoever exports what it
// produces. Collectors deal in plain samples; they never see prom-client or
// OTel (the exporters implement SampleSink). The engine's reports are in
// engine/reports.ts, the WAF events' log sink in log-sink.ts.
import type { OperationName, PlatformClock, ReadClient } from '../api/index.js';
import type { Mismatch } from './contract/checks.js';
import type { RejectedPoints } from './rejects.js';

/** Base units the metrics use (Prometheus conventions); documented per family. */
export type MetricUnit =
  | 'bytes'
  | 'bytes_per_second'
  | 'seconds'
  | 'timestamp_seconds'
  | 'requests'
  | 'events'
  | 'ports'
  | 'rules'
  | 'ratio'
  | 'info'
  | 'state'
  | 'count';

/** One metric family: the single definition docs, rendering and tests read. */
export interface MetricDef {
  /** Full name, `edge_` prefix; counters end in `_total`. */
  readonly name: string;
  readonly type: 'counter' | 'gauge';
  readonly help: string;
  readonly unit: MetricUnit;
  /** Label names, in exposition order. Never instance/job/zone/region/service/env. */
  readonly labels: readonly string[];
  /** Upstream operation and field the value comes from, for docs/metrics.md. */
  readonly source: { readonly operation: OperationName; readonly field: string };
}

export interface Sample {
  /** MetricDef.name */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
  /** Bucket time, attached only when the collector is configured with `timestamps: true`. */
  readonly timestampMs?: number;
  /** Start of the bucket a gauge's value stands for, whatever `timestamps` says: the history pushed over remote-write is stamped with it. */
  readonly bucketStartMs?: number;
}

/** What a collector returns from one cycle. Conversions build these; nothing here does I/O. */
export interface CollectOutput {
  /**
   * Gauge families this cycle produced completely: each replaces the family's
   * previous series (a top-N entry that dropped out disappears). Families not
   * listed keep their last values.
   */
  readonly gauges: ReadonlyMap<string, readonly Sample[]>;
  /** Counter increments from buckets counted for the first time this cycle. */
  readonly increments: readonly Sample[];
  /** Watermarks to persist with the counters: series key -> start (ms) of the last counted bucket. */
  readonly watermarks: Readonly<Record<string, number>>;
  /** Newest bucket end (ms) counted or seen settled, for the data-lag self-metric. */
  readonly newestBucketEndMs?: number;
  /** The same per target (domain or package) of a per-target collector, for the freshness self-metric; account-wide collectors leave it out. */
  readonly targetNewestBucketEndMs?: ReadonlyMap<string, number>;
  /** Requests that failed but did not fail the whole cycle (partial data). */
  readonly errors: readonly Error[];
  /** Answers that contradicted an assumption about the upstream (one per answer and check). */
  readonly mismatches?: readonly Mismatch[];
  /** Buckets the audit re-read this cycle, by outcome. */
  readonly audit?: AuditTally;
  /** Points the conversion refused (negative, not finite), per series and reason; absent when none. */
  readonly rejected?: readonly RejectedPoints[];
  /** Per target, series key -> the buckets counted this cycle, in order, as [bucket start ms, value] (the history's buckets). */
  readonly counted?: readonly ReadonlyMap<string, { readonly values: ReadonlyArray<readonly [number, number]> }>[];
  /**
   * Series key -> the upward revisions the audit added to the counters this
   * cycle, per bucket, as [bucket start ms, added]: already in `increments`
   * (summed per series); OTLP metrics' delta points send each as its own.
   */
  readonly corrected?: ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>;
  /** Width of the collector's buckets (its interval), with `counted`. */
  readonly bucketMs?: number;
}

export interface AuditTally {
  /** Re-read buckets whose value equals what was counted. */
  readonly match: number;
  /** Re-read buckets whose value changed after they were counted (also counted as late_revision mismatches). */
  readonly revised: number;
  /** The shortest delay (ms) that would have caught every revision the audit saw over the last day; the delay in force when none. */
  readonly suggestedDelayMs: number;
}

export interface CollectorLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): CollectorLogger;
}

export interface TargetLists {
  /** Domain names to collect, after include/exclude filtering. */
  readonly domains: readonly string[];
  /** Layer-7 package ids (getPackages `value`), after filtering. */
  readonly packages: readonly string[];
}

/** What a cycle asks about: its share of the targets (all of them unless the account is split over replicas). */
export interface Targets extends TargetLists {
  /**
   * Every target after filtering, when the lists above are a share of them;
   * absent when they are all of them. Read by figures that are not additive
   * over parts of the account (rankings, account totals), which one replica
   * computes alone over the whole account (collectors/targets/placement.ts).
   */
  readonly all?: TargetLists;
}

export interface CollectContext {
  /** Read operations only: a collector never changes the account. */
  readonly client: ReadClient;
  /** Start of this cycle, epoch ms (from the engine's clock, never Date.now in a collector). */
  readonly now: number;
  readonly signal: AbortSignal;
  /** Formats request times and reads the times in answers in the platform zone. */
  readonly tz: PlatformClock;
  /** Already bound to the collector (`collector`): a child binds only what this lacks, since pino writes a key bound again a second time. */
  readonly log: CollectorLogger;
  readonly targets: Targets;
  /** Watermarks persisted by earlier cycles (series key -> start ms of the last counted bucket). */
  readonly watermarks: Readonly<Record<string, number>>;
  /** False for families denied by the metrics allow/deny patterns: skip the requests that feed only them. */
  enabled(family: string): boolean;
}

/** How many targets the request estimate counts (requests.ts): this replica's domains and layer-7 packages. */
export interface TargetCounts {
  readonly domains: number;
  readonly packages: number;
}

/**
 * What a collector asks once caught up (no back-fill, every list on its
 * first page unless it says otherwise): every run's requests, and what an
 * audit adds each time one is due.
 */
export interface RunRequests {
  readonly run: number;
  readonly audit?: { readonly requests: number; readonly everyMs: number };
}

export interface Collector {
  /** Config key and `collector` label, e.g. `access`. */
  readonly name: string;
  /** The requests it makes for `targets`, declared where it builds them (requests.ts sums them per hour). */
  requests?(targets: TargetCounts): RunRequests;
  /** Target lists the collector asks about; a run fails while one of them could never be listed. */
  readonly targets?: ReadonlyArray<keyof TargetLists>;
  readonly operations: readonly OperationName[];
  readonly families: readonly MetricDef[];
  collect(ctx: CollectContext): Promise<CollectOutput>;
}

/**
 * A collector's counter totals as saved, read-only and live
 * (CounterLedger.saved): iterating yields one absolute sample per series, as
 * on disk.
 */
export interface SavedCounters extends Iterable<Sample> {
  /** Increases whenever the samples it yields change. */
  readonly version: number;
  /** Series it yields. */
  readonly size: number;
}

/** Where the engine publishes: the exporters implement it. */
export interface SampleSink {
  /**
   * Publishes a collector's state after a cycle: absolute counter values for
   * every counter series it has ever produced, and the gauge families it
   * replaced this cycle. SavedCounters are read again whenever their version
   * moves, so the sink keeps no totals of its own; an array is read once.
   */
  publish(collector: string, update: { counters: readonly Sample[] | SavedCounters; gauges: ReadonlyMap<string, readonly Sample[]> }): void;
}
