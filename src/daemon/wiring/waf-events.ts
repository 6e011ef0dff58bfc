// The WAF deny events -> OTLP logs part of the wiring: the log sink, and the
// forwarder job with its checkpoint in the state directory, reading the
// domains the sharding room's scope gives from the discovery the collectors use.
import { ACCOUNT_LABEL } from '../../counters/index.js';
import { hostname } from 'node:os';
import { platformClock } from '../../api/index.js';
import { domainScope, type Shard, type TargetDiscovery } from '../../collectors/index.js';
import { AUDIT_OUTCOMES, WAF_EVENTS_JOB, WafEventForwarder, wafQuery } from '../../forwarder/index.js';
import { OtlpLogSink, type OtlpSinkLogger } from '../../exporters/otel-logs/index.js';
import { outboundEndpoint, wafAudit, wafOverlap, type Config } from '../../config/index.js';
import type { Endpoint } from '../../outbound/index.js';
import type { FamilyStore, SelfMetrics } from '../../exporters/prometheus/index.js';
import type { Logger } from '../../log/logger.js';
import type { StateRecovery, StateStore } from '../../state/index.js';
import type { Clock } from '../../shared/clock.js';
import type { LocalUpstream, Upstream } from './upstream.js';
import { JobWatch, SYSTEM_CLOCK, watchedSink } from './job-watch.js';

/** What the WAF wiring takes from the daemon's options. */
interface WafWiringOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
  readonly exports: { readonly families: FamilyStore; readonly self: Pick<SelfMetrics, 'wafEvents' | 'recordWafUpstreamRetention' | 'recordWafAuditOn'> };
  readonly clock?: Clock;
  /** The account's name, when accounts are named: the `account` resource attribute of every record. */
  readonly account?: string;
}

/** What the WAF job shares with the collectors. */
interface SharedParts {
  readonly upstream: Upstream;
  readonly store: StateStore;
  readonly targets: TargetDiscovery;
  readonly recovery: StateRecovery;
  /** The replica's shard, with the account's name when accounts are named (shard.ts). */
  readonly shard: Shard;
  /** The OTLP sink's logger (its connection failures also kept for the status page). */
  readonly otlpLogger: OtlpSinkLogger;
  /** Where the records go: otlp.endpoint, else the demo's receiver beside the bundled simulator (otlpEndpoint). */
  readonly otlp: Endpoint;
}

/**
 * otlp.endpoint; unset, the receiver the bundled simulator's stand-in offers (on
 * loopback, reached directly like the simulator itself), so the demo forwards
 * end to end; else the default, where an OpenTelemetry Collector listens by default.
 */
export function otlpEndpoint(config: Config, local: LocalUpstream | undefined): Endpoint {
  return outboundEndpoint(config, 'otlp', local?.otlpEndpoint);
}

/** WAF deny events -> OTLP logs, with its own checkpoint in the state directory. */
export function wireWafEvents(options: WafWiringOptions, shared: SharedParts): { forwarder: WafEventForwarder; logSink: OtlpLogSink; delivery: JobWatch } {
  const { upstream, store, targets, recovery } = shared;
  const { config, logger, version, exports } = options;
  const waf = config.waf_events;
  const otlp = config.otlp;
  const logSink = new OtlpLogSink({
    endpoint: shared.otlp,
    protocol: otlp.protocol,
    headers: otlp.headers,
    timeoutMs: otlp.timeout,
    maxBatch: otlp.max_batch,
    resource: {
      serviceName: 'edge-exporter', serviceVersion: version, serviceInstanceId: `${hostname()}:${process.pid}`,
      ...(options.account === undefined ? {} : { attributes: { [ACCOUNT_LABEL]: options.account } }),
    },
    logger: shared.otlpLogger,
  });
  // Deliveries are retried inside one long poll: the status page learns of them from the sink.
  const delivery = new JobWatch(options.clock ?? SYSTEM_CLOCK);
  const forwarder = new WafEventForwarder({
    client: upstream.client,
    tz: platformClock(config.upstream.timezone),
    sink: watchedSink(logSink, delivery),
    samples: exports.families,
    store,
    log: logger.child({ component: 'waf-events', collector: WAF_EVENTS_JOB }),
    intervalMs: waf.interval,
    ...wafOverlap(waf),
    delayMs: waf.delay,
    maxWindowMs: waf.max_window,
    maxWindowEvents: waf.max_window_events,
    startBackMs: waf.start_from,
    query: wafQuery(waf),
    // None when unsharded: the query reads waf_events.domains (or every domain) as configured.
    scope: domainScope({ shard: shared.shard, configured: waf.domains, targets }),
    headers: waf.headers,
    volume: { maxRate: waf.max_rate, overRate: waf.over_rate },
    maxSeries: config.limits.series_per_family,
    forgetAfterMs: config.targets.forget_after,
    observer: exports.self.wafEvents,
    ...(options.clock ? { clock: options.clock } : {}),
    recovery,
    ...wafAudit(waf),
  });
  exports.self.recordWafUpstreamRetention(waf.upstream_retention / 1000);
  if (waf.audit.enabled) exports.self.recordWafAuditOn(AUDIT_OUTCOMES);
  return { forwarder, logSink, delivery };
}
