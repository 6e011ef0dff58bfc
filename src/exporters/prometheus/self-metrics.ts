// The exporter's health metrics (collector runs, upstream requests, series, state resets, build, process) in prom-client registries.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CONTRACT_CHECKS } from '../../collectors/contract/checks.js';
import type { PollerObserver, RunReport } from '../../collectors/types.js';
import type { FamilyStats } from './family-store.js';
import { EXCLUDED_PROCESS_METRICS, SELF_METRICS, type SelfMetricDef } from './self-metric-defs.js';
import { OPENMETRICS_EOF, type ExpositionFormat } from './serialize.js';

/** What the series self-metrics read at scrape time (the FamilyStore). */
export interface FamilyStatsSource {
  stats(): readonly FamilyStats[];
  rejectedSamples(): ReadonlyMap<string, number>;
}

export interface SelfMetricsOptions {
  readonly families: FamilyStatsSource;
  /** Exporter version for edge_exporter_build_info. */
  readonly version: string;
  /** Adds prom-client's process_* and nodejs_* metrics. Default true. */
  readonly processMetrics?: boolean;
}

export interface RunRecord {
  readonly collector: string;
  readonly ok: boolean;
  readonly durationSeconds: number;
  /** When the run ended, epoch ms. */
  readonly finishedAtMs: number;
  /** End of the newest bucket the run counted or saw settled, epoch ms. */
  readonly newestBucketEndMs?: number;
  /** The poller's clock at the end of the run, epoch ms (the data lag is measured against it). */
  readonly nowMs: number;
}

export interface UpstreamRecord {
  readonly operation: string;
  readonly outcome: string;
  readonly durationSeconds: number;
}

type Instruments = ReturnType<typeof createInstruments>;
type AnyRegistry = Registry<typeof Registry.PROMETHEUS_CONTENT_TYPE> | Registry<typeof Registry.OPENMETRICS_CONTENT_TYPE>;

/**
 * One registry (and one set of instruments) per format: prom-client's
 * OpenMetrics rendering renames counter objects in place (`x_total` becomes
 * `x`), so one counter registered in a text and an OpenMetrics registry would
 * lose `_total` in the text output after the first OpenMetrics scrape. Every
 * record call updates both sets; that costs a few map updates per run.
 */
export class SelfMetrics implements PollerObserver {
  private readonly registries: Readonly<Record<ExpositionFormat, AnyRegistry>>;
  private readonly sets: readonly Instruments[];

  constructor(options: SelfMetricsOptions) {
    const text = new Registry();
    // The typings declare no constructor argument; setContentType is the typed way in.
    const openmetrics = new Registry<typeof Registry.OPENMETRICS_CONTENT_TYPE>();
    openmetrics.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    this.registries = { text, openmetrics };
    this.sets = [text, openmetrics].map((registry) => createInstruments(registry, options));
    if (options.processMetrics ?? true) {
      collectDefaultMetrics({ register: text });
      collectDefaultMetrics({ register: openmetrics });
      for (const name of EXCLUDED_PROCESS_METRICS) {
        text.removeSingleMetric(name);
        openmetrics.removeSingleMetric(name);
      }
    }
  }

  recordRun(run: RunRecord): void {
    const collector = { collector: run.collector };
    for (const m of this.sets) {
      m.collectorUp.set(collector, run.ok ? 1 : 0);
      m.collectorLastRunDuration.set(collector, run.durationSeconds);
      m.collectorRunDuration.observe(collector, run.durationSeconds);
      // Both outcomes exist from the first run on, so increase() sees the first error.
      m.collectorRuns.inc({ ...collector, outcome: 'success' }, run.ok ? 1 : 0);
      m.collectorRuns.inc({ ...collector, outcome: 'error' }, run.ok ? 0 : 1);
      if (!run.ok) continue;
      m.collectorLastSuccess.set(collector, run.finishedAtMs / 1000);
      if (run.newestBucketEndMs !== undefined) {
        m.collectorDataLag.set(collector, (run.nowMs - run.newestBucketEndMs) / 1000);
      }
    }
  }

  /** The poller's report (RunReport.now is the cycle start; the run ends durationMs later). */
  onRun(report: RunReport): void {
    const endMs = report.now + report.durationMs;
    this.recordRun({
      collector: report.collector,
      ok: report.ok,
      durationSeconds: report.durationMs / 1000,
      finishedAtMs: endMs,
      nowMs: endMs,
      ...(report.newestBucketEndMs === undefined ? {} : { newestBucketEndMs: report.newestBucketEndMs }),
    });
  }

  recordUpstream(request: UpstreamRecord): void {
    for (const m of this.sets) {
      m.upstreamRequests.inc({ operation: request.operation, outcome: request.outcome });
      m.upstreamRequestDuration.observe({ operation: request.operation }, request.durationSeconds);
    }
  }

  /** Answers that contradicted an assumption (the poller's and the WAF forwarder's findings). */
  onMismatch(check: string, count: number): void {
    for (const m of this.sets) m.contractMismatches.inc({ check }, count);
  }

  /** Buckets a collector's audit re-read, by outcome; both outcomes exist from the first audit on. */
  onAudit(collector: string, tally: { readonly match: number; readonly revised: number }): void {
    for (const m of this.sets) {
      m.auditBuckets.inc({ collector, outcome: 'match' }, tally.match);
      m.auditBuckets.inc({ collector, outcome: 'revised' }, tally.revised);
    }
  }

  recordRetry(operation: string): void {
    for (const m of this.sets) m.upstreamRetries.inc({ operation });
  }

  recordRateLimitWait(operation: string): void {
    for (const m of this.sets) m.upstreamRateLimitWaits.inc({ operation });
  }

  /** A damaged state file put aside at start-up (state_recovery: reset); `file` is its name in the state directory. */
  recordStateReset(file: string): void {
    for (const m of this.sets) m.stateResets.inc({ file });
  }

  /** The WAF event forwarder's observer (collectors' WafEventsObserver, structurally). */
  readonly wafEvents = {
    onRead: (count: number): void => this.sets.forEach((m) => m.wafEventsRead.inc(count)),
    onDeduplicated: (count: number): void => this.sets.forEach((m) => m.wafEventsDeduplicated.inc(count)),
    onForwarded: (count: number): void => this.sets.forEach((m) => m.wafEventsForwarded.inc(count)),
    onExportFailure: (failure: { readonly code: string }): void => this.sets.forEach((m) => m.wafExportFailures.inc({ code: failure.code })),
    onCheckpointLag: (seconds: number): void => this.sets.forEach((m) => m.wafCheckpointLag.set(seconds)),
    onMismatch: (check: string, count: number): void => this.onMismatch(check, count),
  };

  /**
   * The self-metrics in `format`, without the OpenMetrics `# EOF` (the
   * exposition appends exactly one after everything).
   */
  async render(format: ExpositionFormat): Promise<string> {
    const text = await this.registries[format].metrics();
    return format === 'openmetrics' && text.endsWith(OPENMETRICS_EOF) ? text.slice(0, -OPENMETRICS_EOF.length) : text;
  }

  /**
   * Empties both registries, for a daemon stopped in a process that goes on.
   * prom-client's process metrics leave a GC observer behind that keeps its
   * registry, and so every instrument here and the FamilyStore they read,
   * alive for good: each in-process restart leaked a whole store.
   */
  close(): void {
    for (const registry of Object.values(this.registries)) registry.clear();
  }
}

function createInstruments(registry: AnyRegistry, options: SelfMetricsOptions) {
  const m = SELF_METRICS;
  const registers = [registry];
  const families = options.families;
  const gauge = (def: SelfMetricDef) => new Gauge({ name: def.name, help: def.help, labelNames: def.labels, registers });
  const counter = (def: SelfMetricDef) => new Counter({ name: def.name, help: def.help, labelNames: def.labels, registers });
  const histogram = (def: SelfMetricDef) =>
    new Histogram({ name: def.name, help: def.help, labelNames: def.labels, buckets: [...(def.buckets ?? [])], registers });

  const buildInfo = gauge(m.buildInfo);
  buildInfo.set({ version: options.version, node_version: process.version }, 1);
  return {
    collectorUp: gauge(m.collectorUp),
    collectorLastSuccess: gauge(m.collectorLastSuccess),
    collectorLastRunDuration: gauge(m.collectorLastRunDuration),
    collectorRunDuration: histogram(m.collectorRunDuration),
    collectorDataLag: gauge(m.collectorDataLag),
    collectorRuns: counter(m.collectorRuns),
    upstreamRequests: counter(m.upstreamRequests),
    upstreamRequestDuration: histogram(m.upstreamRequestDuration),
    upstreamRetries: counter(m.upstreamRetries),
    upstreamRateLimitWaits: counter(m.upstreamRateLimitWaits),
    wafEventsRead: counter(m.wafEventsRead),
    wafEventsDeduplicated: counter(m.wafEventsDeduplicated),
    wafEventsForwarded: counter(m.wafEventsForwarded),
    wafExportFailures: counter(m.wafExportFailures),
    wafCheckpointLag: gauge(m.wafCheckpointLag),
    stateResets: counter(m.stateResets),
    contractMismatches: withZeros(counter(m.contractMismatches), 'check', CONTRACT_CHECKS),
    auditBuckets: counter(m.auditBuckets),
    // Read from the store when scraped, so they can never disagree with what is exposed.
    series: new Gauge({
      ...base(m.series, registers),
      collect() {
        this.reset();
        for (const s of families.stats()) this.set({ family: s.family }, s.series);
      },
    }),
    seriesDropped: new Counter({
      ...base(m.seriesDropped, registers),
      collect() {
        this.reset();
        for (const s of families.stats()) this.inc({ family: s.family }, s.dropped);
      },
    }),
    samplesRejected: new Counter({
      ...base(m.samplesRejected, registers),
      collect() {
        this.reset();
        for (const [reason, count] of families.rejectedSamples()) this.inc({ reason }, count);
      },
    }),
  };
}

/** Every check at 0 from the start, so increase() sees the first mismatch and a dashboard lists them all. */
function withZeros<C extends Counter>(c: C, label: string, values: readonly string[]): C {
  for (const v of values) c.inc({ [label]: v }, 0);
  return c;
}

function base(def: SelfMetricDef, registers: AnyRegistry[]) {
  return { name: def.name, help: def.help, labelNames: def.labels, registers };
}
