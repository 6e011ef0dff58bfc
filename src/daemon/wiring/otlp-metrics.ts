// The OTLP metrics part of the wiring: each account's history beside
// remote-write's (pages in its ledger files, confirmations in
// otlp-metrics-acks.json) and the one sender pushing every account's with a
// snapshot of the families without buckets, configured from `otlp_metrics`.
import { hostname } from 'node:os';
import { otlpMetricsPipe, type AccountHistories } from '../../counters/index.js';
import { pipeHistory, type MakeHistory } from './history.js';
import { outboundEndpoint, type Config } from '../../config/index.js';
import { WAF_EVENTS_FAMILIES } from '../../forwarder/index.js';
import { buildResource, SCOPE_NAME, SEMCONV_SCHEMA_URL } from '../../exporters/otel-logs/index.js';
import { OtlpMetricsSender } from '../../exporters/otlp-metrics/index.js';
import type { AccountsView, SelfMetrics } from '../../exporters/prometheus/index.js';
import type { OutboundLogger } from './network.js';
import { JobWatch, watchedObserver } from './job-watch.js';
import type { Clock } from '../../shared/clock.js';

/** The sender; absent when otlp_metrics is off. */
export interface OtlpMetrics {
  readonly sender: OtlpMetricsSender;
  /** Its pushes' outcomes, for the status page. */
  readonly watch: JobWatch;
}

interface OtlpMetricsParts {
  /** Every account's families and self-metrics, as /metrics serves them. */
  readonly view: AccountsView;
  /** The daemon's self-metrics (the pipe's own). */
  readonly self: SelfMetrics;
  readonly clock: Clock;
  readonly logger: OutboundLogger;
  /** Where a WAF denied counter series counts from (its account's checkpoint origin), once that forwarder is wired and restored. */
  readonly wafCountingSince: (labels: Readonly<Record<string, string>>) => number | undefined;
}

/** How an account keeps its OTLP metrics history; undefined while otlp_metrics is off. */
export function otlpMetricsHistory(config: Config, self: Pick<SelfMetrics, 'otlpMetrics'>, logger: OutboundLogger, pending: () => void): MakeHistory | undefined {
  if (outboundEndpoint(config, 'otlp_metrics') === undefined) return undefined;
  const om = config.otlp_metrics;
  return (store, recovery) => pipeHistory({
    pipe: otlpMetricsPipe(om.temporality), store, recovery, pageSize: om.max_points_per_send, maxPending: om.max_pending_points, recorder: self.otlpMetrics, logger, unit: 'points', pending,
  });
}

/** The one sender of every account's OTLP metrics history (`history`) and of the snapshot families. */
export function wireOtlpMetrics(config: Config, version: string, history: AccountHistories, parts: OtlpMetricsParts): OtlpMetrics | undefined {
  const om = config.otlp_metrics;
  // Undefined while otlp_metrics is off (config/endpoints.ts).
  const endpoint = outboundEndpoint(config, 'otlp_metrics');
  if (endpoint === undefined) return undefined;
  const { view, self, logger } = parts;
  const watch = new JobWatch(parts.clock);
  const wafFamilies = new Set(WAF_EVENTS_FAMILIES.map((def) => def.name));
  const sender = new OtlpMetricsSender(history, {
    endpoint,
    encoding: om.protocol,
    compression: om.compression,
    temporality: om.temporality,
    intervalMs: om.interval,
    timeoutMs: om.timeout,
    headers: om.headers,
    maxSamplesPerSend: om.max_points_per_send,
    batchSendDeadlineMs: om.batch_send_deadline,
    minBackoffMs: om.min_backoff,
    maxBackoffMs: om.max_backoff,
    maxLabelValueLength: config.limits.label_value_length,
    userAgent: `edge-exporter/${version}`,
    // Stable across restarts (a pid would make every restart a new series in the receiver); a StatefulSet's pod name is its host name.
    resource: buildResource({
      serviceName: 'edge-exporter',
      serviceVersion: version,
      serviceInstanceId: hostname(),
      attributes: { 'edge_exporter.shard.index': String(config.shard.index), 'edge_exporter.shard.count': String(config.shard.count) },
    }),
    scope: { name: SCOPE_NAME, version, schemaUrl: SEMCONV_SCHEMA_URL },
    def: (name) => view.def(name),
    // The families no collector counts in buckets: the WAF forwarder's, the exporter's own and the process'.
    snapshot: async () => [...view.snapshot().filter((f) => wafFamilies.has(f.def.name)), ...(await view.selfSnapshot())],
    // The WAF counter's total is kept across restarts: it counts from the checkpoint's origin, not from this process' start.
    startOf: (family, labels) => (wafFamilies.has(family) ? parts.wafCountingSince(labels) : undefined),
    logger,
    observer: watchedObserver(self.otlpMetrics, watch),
    // The engine's clock, which stamped the pages: snapshots and batch deadlines are read against it too.
  }, { now: () => parts.clock.now() });
  return { sender, watch };
}
