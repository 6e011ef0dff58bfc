// The exporter's health metrics (collector runs, upstream requests, series, state resets, build): the recorder of
// the SELF_METRICS families the FamilyStore holds, and their rendering, followed by the process metrics.
import { CONTRACT_CHECKS, REJECT_REASONS } from '../../collectors/index.js';
import { type Clock } from '../../shared/clock.js';
import { type CollectorObserver, type RunReport } from '../../engine/index.js';
import type { FamilyStats } from './family-store.js';
import { ProcessMetrics } from './process-metrics.js';
import { LIVE, type SelfFamily } from './self-family.js';
import { SELF_METRICS } from './self-metric-defs.js';
import { renderCache, serialize, serializeCached, type ExpositionFormat, type FamilyDef, type FamilySnapshot } from './serialize.js';

/** The FamilyStore, as the self-metrics use it: where their families are held, and what the series self-metrics read at scrape time. */
interface SelfMetricsStore {
  /** Changes whenever the stats or the rejected samples may have. */
  readonly generation: number;
  stats(): readonly FamilyStats[];
  rejectedSamples(): ReadonlyMap<string, number>;
  selfFamily(def: FamilyDef): SelfFamily;
  selfSnapshot(): readonly FamilySnapshot[];
}

interface SelfMetricsOptions {
  readonly families: SelfMetricsStore;
  /** Exporter version for edge_exporter_build_info. */
  readonly version: string;
  /** Adds prom-client's process_* and nodejs_* metrics. Default true. */
  readonly processMetrics?: boolean;
  /** The clock the live gauges (`…_lag_seconds`, `…_age_seconds`) are read against at scrape: the engine's. Default the system clock. */
  readonly clock?: Clock;
}

interface RunRecord {
  readonly collector: string;
  readonly ok: boolean;
  readonly durationSeconds: number;
  /** When the run ended, epoch ms. */
  readonly finishedAtMs: number;
  /** End of the newest bucket the run counted or saw settled, epoch ms. */
  readonly newestBucketEndMs?: number;
  /** The same per target (domain or package), for the freshness gauge. */
  readonly targetNewestBucketEndMs?: ReadonlyMap<string, number>;
}

interface UpstreamRecord {
  readonly operation: string;
  readonly outcome: string;
  readonly durationSeconds: number;
}

/** What the status page shows of the self-metrics, read from the same series /metrics serves. */
export interface SelfReadings {
  /** edge_exporter_collector_data_lag_seconds, by collector. */
  readonly dataLagSeconds: ReadonlyMap<string, number>;
  /** edge_exporter_waf_checkpoint_lag_seconds; undefined before the first checkpoint. */
  readonly wafCheckpointLagSeconds: number | undefined;
  /** edge_exporter_remote_write_lag_seconds; undefined before the first confirmed push. */
  readonly remoteWriteLagSeconds: number | undefined;
  /** edge_exporter_otlp_metrics_lag_seconds; undefined before the first confirmed push. */
  readonly otlpMetricsLagSeconds: number | undefined;
  /** edge_exporter_contract_mismatches_total, by check. */
  readonly contractMismatches: ReadonlyMap<string, number>;
  /** The WAF forwarder's edge_exporter_waf_events_*_total and edge_exporter_waf_export_failures_total (summed over codes). */
  readonly wafEvents: WafEventsReading;
  /** The WAF delivery audit's edge_exporter_waf_events_missing, _recovered_total and unreconciled buckets. */
  readonly wafAudit: { readonly missing: number; readonly recovered: number; readonly unreconciled: number };
}

/** The WAF forwarder's counters since start, as /metrics serves them (0 before the first). */
export interface WafEventsReading {
  readonly read: number;
  readonly deduplicated: number;
  readonly forwarded: number;
  readonly summarized: number;
  readonly exportFailures: number;
}

/** One SelfFamily per SELF_METRICS entry, under the same key. */
type Families = { readonly [K in keyof typeof SELF_METRICS]: SelfFamily };

/**
 * What a sender pushing the history reports (remote-write's RemoteWriteObserver, structurally: every pipe's sender
 * calls these names), with its queue's overflow and size. Counts are in that pipe's unit (samples, points).
 */
interface PushRecorder {
  samplesSent(count: number): void;
  samplesFailed(count: number, reason: string): void;
  samplesRetried(count: number): void;
  pending(count: number): void;
  pushed(newestTimestampMs: number): void;
  requestDuration(seconds: number, outcome: string): void;
}

/** One pipe's families, in the roles PushRecorder records them in. */
interface PushFamilies {
  readonly sent: SelfFamily;
  readonly failed: SelfFamily;
  readonly retried: SelfFamily;
  readonly pending: SelfFamily;
  readonly requests: SelfFamily;
  readonly lag: SelfFamily;
}

function pushRecorder(families: PushFamilies): PushRecorder {
  /** Time of the newest sample or point the receiver confirmed (a later push of older ones keeps it). */
  let newestPushedMs: number | undefined;
  return {
    samplesSent: (count) => families.sent.add({}, count),
    samplesFailed: (count, reason) => families.failed.add({ reason }, count),
    samplesRetried: (count) => families.retried.add({}, count),
    pending: (count) => families.pending.set({}, count),
    pushed: (newestTimestampMs) => {
      newestPushedMs = Math.max(newestPushedMs ?? newestTimestampMs, newestTimestampMs);
      families.lag.since({}, newestPushedMs);
    },
    requestDuration: (seconds, outcome) => families.requests.observe({ outcome }, seconds),
  };
}

export class SelfMetrics implements CollectorObserver {
  private readonly own: Families;
  private readonly store: SelfMetricsStore;
  private storeGeneration: number | undefined;
  private readonly process: ProcessMetrics | undefined;
  private readonly clock: Clock;
  /** The live gauges, aged at every scrape (see SelfFamily.since). */
  private readonly live: readonly SelfFamily[];
  /** Each family's rendering, kept while its snapshot's series array is the same (it is replaced on every change). */
  private readonly rendered = renderCache();

  constructor(options: SelfMetricsOptions) {
    this.store = options.families;
    const entries = Object.entries(SELF_METRICS).map(([key, def]) => [key, options.families.selfFamily(def)] as const);
    this.own = Object.fromEntries(entries) as Families;
    this.clock = options.clock ?? { now: () => Date.now() };
    // Computed at every scrape from the moment kept, so one whose moment stops advancing (runs failing, delivery failing, pushing stuck) keeps growing.
    this.live = Object.values(this.own).filter((family) => LIVE.test(family.def.name));
    this.remoteWrite = pushRecorder({
      sent: this.own.remoteWriteSamplesSent,
      failed: this.own.remoteWriteSamplesFailed,
      retried: this.own.remoteWriteSamplesRetried,
      pending: this.own.remoteWriteSamplesPending,
      requests: this.own.remoteWriteRequests,
      lag: this.own.remoteWriteLag,
    });
    this.otlpMetrics = pushRecorder({
      sent: this.own.otlpMetricsPointsSent,
      failed: this.own.otlpMetricsPointsFailed,
      retried: this.own.otlpMetricsPointsRetried,
      pending: this.own.otlpMetricsPointsPending,
      requests: this.own.otlpMetricsRequests,
      lag: this.own.otlpMetricsLag,
    });
    this.own.buildInfo.set({ version: options.version, node_version: process.version }, 1);
    // Every check at 0 from the start, so increase() sees the first mismatch and a dashboard lists them all.
    for (const check of CONTRACT_CHECKS) this.own.contractMismatches.add({ check }, 0);
    this.process = options.processMetrics ?? true ? new ProcessMetrics() : undefined;
  }

  recordRun(run: RunRecord): void {
    const collector = { collector: run.collector };
    this.own.collectorUp.set(collector, run.ok ? 1 : 0);
    this.own.collectorLastRunDuration.set(collector, run.durationSeconds);
    this.own.collectorRunDuration.observe(collector, run.durationSeconds);
    // Both outcomes exist from the first run on, so increase() sees the first error.
    this.own.collectorRuns.add({ ...collector, outcome: 'success' }, run.ok ? 1 : 0);
    this.own.collectorRuns.add({ ...collector, outcome: 'error' }, run.ok ? 0 : 1);
    if (!run.ok) return;
    this.own.collectorLastSuccess.set(collector, run.finishedAtMs / 1000);
    if (run.newestBucketEndMs !== undefined) {
      this.own.collectorDataLag.since(collector, run.newestBucketEndMs);
    }
    // Every target of the run, moved or not: a target with no new data keeps its newest end, and its age grows.
    for (const [target, endMs] of run.targetNewestBucketEndMs ?? []) {
      this.own.targetDataAge.since({ collector: run.collector, target }, endMs);
    }
  }

  /** The engine's report (RunReport.now is the cycle start; the run ends durationMs later). */
  onRun(report: RunReport): void {
    const endMs = report.now + report.durationMs;
    // A forgotten target's age would stand still on /metrics for good (its counters already left with it).
    for (const target of report.forgottenTargets ?? []) this.own.targetDataAge.delete({ collector: report.collector, target });
    this.recordRun({
      collector: report.collector,
      ok: report.ok,
      durationSeconds: report.durationMs / 1000,
      finishedAtMs: endMs,
      ...(report.newestBucketEndMs === undefined ? {} : { newestBucketEndMs: report.newestBucketEndMs }),
      ...(report.targetNewestBucketEndMs === undefined ? {} : { targetNewestBucketEndMs: report.targetNewestBucketEndMs }),
    });
    // Every reason from the collector's first run on (0 when none), so increase() sees the first refused point.
    for (const reason of REJECT_REASONS) {
      this.own.pointsRejected.add({ collector: report.collector, reason }, report.rejected?.[reason] ?? 0);
    }
  }

  recordUpstream(request: UpstreamRecord): void {
    this.own.upstreamRequests.add({ operation: request.operation, outcome: request.outcome }, 1);
    this.own.upstreamRequestDuration.observe({ operation: request.operation }, request.durationSeconds);
  }

  /** Answers that contradicted an assumption (the engine's and the WAF forwarder's findings). */
  onMismatch(check: string, count: number): void {
    this.own.contractMismatches.add({ check }, count);
  }

  /** Buckets a collector's audit re-read, by outcome (both outcomes exist from the first audit on), and the delay it suggests. */
  onAudit(collector: string, tally: { readonly match: number; readonly revised: number; readonly suggestedDelayMs: number }): void {
    this.own.auditBuckets.add({ collector, outcome: 'match' }, tally.match);
    this.own.auditBuckets.add({ collector, outcome: 'revised' }, tally.revised);
    this.own.suggestedDelay.set({ collector }, tally.suggestedDelayMs / 1000);
  }

  recordRetry(operation: string): void {
    this.own.upstreamRetries.add({ operation }, 1);
  }

  recordRateLimitWait(operation: string): void {
    this.own.upstreamRateLimitWaits.add({ operation }, 1);
  }

  /** An answer that throttled the daemon (429, or 503 with Retry-After). */
  recordThrottled(operation: string): void {
    this.own.upstreamThrottled.add({ operation }, 1);
  }

  /** The request rate in force, per second (Infinity: no limit of the daemon's own). */
  recordRateLimit(perSecond: number): void {
    this.own.upstreamRateLimit.set({}, perSecond);
  }

  /** A damaged state file put aside at start-up (state_recovery: reset); `file` is its name in the state directory. */
  recordStateReset(file: string): void {
    this.own.stateResets.add({ file }, 1);
  }

  /** A state save that failed; `file` is its name in the state directory. */
  recordStateSaveFailure(file: string): void {
    this.own.stateSaveFailures.add({ file }, 1);
  }

  /** A configuration applied (at start or by a reload, `ok`) or a reload refused (not `ok`), at `atMs`. */
  recordConfigLoad(ok: boolean, atMs: number): void {
    this.own.configReloadSuccessful.set({}, ok ? 1 : 0);
    if (ok) this.own.configReloadSuccessTimestamp.set({}, atMs / 1000);
  }

  /**
   * Drops every series of the collectors a reload removed (gauges and counters alike), so none keeps
   * reporting a last state for ever: an up of 0 would alert, a frozen counter would mislead.
   */
  retainCollectors(collectors: ReadonlySet<string>): void {
    for (const family of Object.values(this.own)) {
      if (family.def.labels.includes('collector')) family.retain('collector', collectors);
    }
  }

  /** The WAF event forwarder's observer (collectors' WafEventsObserver, structurally). */
  readonly wafEvents = {
    onRead: (count: number): void => this.own.wafEventsRead.add({}, count),
    onDeduplicated: (count: number): void => this.own.wafEventsDeduplicated.add({}, count),
    onForwarded: (count: number): void => this.own.wafEventsForwarded.add({}, count),
    onSummarized: (count: number): void => this.own.wafEventsSummarized.add({}, count),
    onExportFailure: (failure: { readonly code: string }): void => this.own.wafExportFailures.add({ code: failure.code }, 1),
    onCheckpoint: (cursorMs: number): void => this.own.wafCheckpointLag.since({}, cursorMs),
    onMismatch: (check: string, count: number): void => this.onMismatch(check, count),
    onAuditOutcome: (outcome: string, buckets: number): void => this.own.wafAuditBuckets.add({ outcome }, buckets),
    onAuditChecked: (state: { readonly missing: number }): void => this.own.wafEventsMissing.set({}, state.missing),
    onRecovered: (latenessSeconds: readonly number[]): void => {
      this.own.wafEventsRecovered.add({}, latenessSeconds.length);
      for (const seconds of latenessSeconds) this.own.wafIngestLateness.observe({}, seconds);
    },
    onResent: (count: number): void => this.own.wafEventsResent.add({}, count),
    onOverlapSuggested: (seconds: number): void => this.own.wafSuggestedOverlap.set({}, seconds),
  };

  /** With the delivery audit on: its series from 0, so a rate or an alert has a start (the outcomes are fixed). */
  recordWafAuditOn(outcomes: readonly string[]): void {
    for (const outcome of outcomes) this.own.wafAuditBuckets.add({ outcome }, 0);
    this.own.wafEventsRecovered.add({}, 0);
    this.own.wafEventsResent.add({}, 0);
    this.own.wafIngestLateness.add({}, 0);
    this.own.wafEventsMissing.set({}, 0);
  }

  /** waf_events.upstream_retention, for the alert that compares the checkpoint lag with it. */
  recordWafUpstreamRetention(seconds: number): void {
    this.own.wafUpstreamRetention.set({}, seconds);
  }

  /** The remote-write sender's observer (its PushObserver, structurally), and the history's overflow. */
  readonly remoteWrite: PushRecorder;

  /** The OTLP metrics sender's observer and its queue's overflow: the same calls as remoteWrite, counted in points. */
  readonly otlpMetrics: PushRecorder;

  /**
   * The self-metrics, then the process metrics, in `format`, without the
   * OpenMetrics `# EOF` (the exposition appends exactly one after everything).
   * Every self family is listed, with its metadata even before its first
   * series, as a dashboard or `absent()` may look for it.
   */
  /** The self families and the process metrics as families, read now (what OTLP metrics pushes of them). */
  async snapshot(): Promise<FamilySnapshot[]> {
    this.readStore();
    return [...this.store.selfSnapshot(), ...(this.process === undefined ? [] : await this.process.snapshot())];
  }

  async render(format: ExpositionFormat): Promise<string> {
    this.readStore();
    const processText = this.process === undefined ? '' : serialize(await this.process.snapshot(), { format, keepEmpty: true });
    return serializeCached(this.store.selfSnapshot(), format, this.rendered) + processText;
  }

  /** The lags and mismatch counts as a scrape now would give them, for the status page. */
  readings(): SelfReadings {
    const now = this.clock.now();
    const by = (family: SelfFamily, label: string): Map<string, number> => new Map(family.read(now).map((r) => [r.labels[label] ?? '', r.value]));
    const total = (family: SelfFamily): number => family.read(now).reduce((sum, r) => sum + r.value, 0);
    return {
      dataLagSeconds: by(this.own.collectorDataLag, 'collector'),
      wafCheckpointLagSeconds: this.own.wafCheckpointLag.read(now)[0]?.value,
      remoteWriteLagSeconds: this.own.remoteWriteLag.read(now)[0]?.value,
      otlpMetricsLagSeconds: this.own.otlpMetricsLag.read(now)[0]?.value,
      contractMismatches: by(this.own.contractMismatches, 'check'),
      wafEvents: {
        read: total(this.own.wafEventsRead),
        deduplicated: total(this.own.wafEventsDeduplicated),
        forwarded: total(this.own.wafEventsForwarded),
        summarized: total(this.own.wafEventsSummarized),
        exportFailures: total(this.own.wafExportFailures),
      },
      wafAudit: {
        missing: total(this.own.wafEventsMissing),
        recovered: total(this.own.wafEventsRecovered),
        unreconciled: by(this.own.wafAuditBuckets, 'outcome').get('unreconciled') ?? 0,
      },
    };
  }

  /** Releases the process metrics' registry (see ProcessMetrics.close), for a daemon stopped in a process that goes on. */
  close(): void {
    this.process?.close();
  }

  /** Read from the store (and the clock, for the live gauges) when scraped, so they can never disagree with what is exposed. */
  private readStore(): void {
    const now = this.clock.now();
    for (const family of this.live) family.age(now);
    if (this.store.generation === this.storeGeneration) return;
    this.storeGeneration = this.store.generation;
    const stats = this.store.stats();
    this.own.series.replace(stats.map((s) => [{ family: s.family }, s.series] as const));
    this.own.seriesDropped.replace(stats.map((s) => [{ family: s.family }, s.dropped] as const));
    this.own.samplesRejected.replace([...this.store.rejectedSamples()].map(([reason, count]) => [{ reason }, count] as const));
  }
}
