// Config into components, in one place: the Prometheus side (family store,
// self-metrics, exposition) and, for a start, the upstream client
// (upstream.ts), the collectors with their resolved options and placement
// (collectors.ts), the OTLP log sink with the WAF event job
// (waf-events.ts), and the one engine running them all. What is started
// when, and stopped in which order, is daemon.ts's.
import type { LookupFunction } from 'node:net';
import { basename } from 'node:path';
import type { Dispatcher } from 'undici';
import { platformClock } from '../../api/index.js';
import { CounterLedger } from '../../counters/index.js';
import { DEFAULT_STOP_TIMEOUT_MS, Scheduler, sampleJobs, type Job, type JobRun } from '../../engine/index.js';
import { claimStateDir, MetricFilter, TargetDiscovery, TargetForgetter } from '../../collectors/index.js';
import { type Clock } from '../../shared/clock.js';
import { WAF_EVENTS_FAMILIES, type WafEventForwarder } from '../../forwarder/index.js';
import { insecureTlsKeys, resolveCollectorOptions, type Config } from '../../config/index.js';
import type { OtlpLogSink } from '../../exporters/otel-logs/index.js';
import { Exposition, FamilyStore, SelfMetrics } from '../../exporters/prometheus/index.js';
import type { Logger } from '../../log/logger.js';
import { stateRecovery, type StateStore } from '../../state/index.js';
import { buildCollectors } from './collectors.js';
import { openUpstream, type LocalUpstream, type Upstream } from './upstream.js';
import { wireRemoteWrite, type RemoteWrite } from './remote-write.js';
import { wireOtlpMetrics, type OtlpMetrics } from './otlp-metrics.js';
import { otlpEndpoint, wireWafEvents } from './waf-events.js';
import { logRequestEstimate, requestEstimate } from './requests.js';
import { insecureWarning, logExporterRoutes, OutboundNotices } from './network.js';
import { SYSTEM_CLOCK, type JobWatch } from './job-watch.js';

/** Time left after the sink's deadline for a confirmed WAF batch's checkpoint save, at stop. */
const RECORD_MARGIN_MS = 3_000;

/** What /metrics serves: the families, the self-metrics and their exposition. */
interface Exports {
  readonly families: FamilyStore;
  readonly self: SelfMetrics;
  readonly exposition: Exposition;
}

/** `clock`: the engine's, which the live gauges (…_lag_seconds, …_age_seconds) are read against at scrape. */
export function buildExports(config: Config, version: string, clock?: Clock): Exports {
  const { limits } = config;
  const families = new FamilyStore({ maxLabelValueLength: limits.label_value_length, maxSeriesPerFamily: limits.series_per_family });
  const self = new SelfMetrics({ families, version, ...(clock ? { clock } : {}) });
  const exposition = new Exposition({ families, self });
  return { families, self, exposition };
}

interface WiringOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
  readonly exports: Exports;
  /** The engine's clock; the system clock by default. */
  readonly clock?: Clock;
  readonly dispatcher?: Dispatcher;
  /** The state directory's store, held by the daemon for its whole life (reloads included). */
  readonly store: StateStore;
  /** The stand-in upstream (the bundled simulator) for a config without upstream.api_url; the caller owns it. */
  readonly local?: LocalUpstream;
  /** Host name resolution of the upstream's connections (tests: a name that must not resolve, without asking DNS). */
  readonly lookup?: LookupFunction;
  /** Where the OTLP and remote-write clients' connection failures are kept for the status page (the daemon's, across reloads). */
  readonly outbound?: OutboundNotices;
}

/** The running parts of one daemon, built but not started. */
export interface Components {
  readonly upstream: Upstream;
  readonly engine: Scheduler;
  /** With waf_events enabled: its job and the sink it delivers to. */
  readonly wafEvents?: { readonly forwarder: WafEventForwarder; readonly logSink: OtlpLogSink; readonly delivery: JobWatch };
  /** The metric collectors this replica runs, by name. */
  readonly collectors: ReadonlySet<string>;
  /** With remote_write.url set: the collectors' history and the sender pushing it. */
  readonly remoteWrite?: RemoteWrite;
  /** With otlp_metrics on: its own history of the collectors' buckets and the sender pushing it. */
  readonly otlpMetrics?: OtlpMetrics;
  /**
   * The collectors' jobs for `config`, sharing this build's client, targets,
   * ledger and sinks, with the data families made `config`'s: for a reload
   * that changes collectors alone (reload-changes.ts), never for one that
   * changes what they share.
   */
  readonly collectorJobs: (config: Config) => CollectorJobs;
}

/** A config's metric collectors as jobs, and the names of those this replica runs. */
interface CollectorJobs {
  readonly jobs: readonly Job[];
  readonly collectors: ReadonlySet<string>;
}

/**
 * Claims the state directory (before anything reads or writes state: a
 * directory this replica does not own must stay untouched), opens the upstream,
 * makes the data families those of this config (a reload drops the families
 * of collectors it removed), and builds the jobs and the engine.
 */
export async function wire(options: WiringOptions): Promise<Components> {
  const { config, logger, exports } = options;
  const { shard } = config;
  const { self, families } = exports;
  const { store } = options;
  const recovery = stateRecovery(store, config.state_recovery, (reset) => self.recordStateReset(basename(reset.file)));
  await claimStateDir(store, shard, logger, recovery);
  for (const key of insecureTlsKeys(config)) logger.warn({ key }, insecureWarning(key));
  const outbound = options.outbound ?? new OutboundNotices();
  const upstream = await openUpstream(config, logger, {
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.lookup ? { lookup: options.lookup } : {}),
    ...(options.local ? { local: options.local } : {}),
    observer: {
      onResponse: (e) => self.recordUpstream({ operation: e.operation, outcome: e.outcome, durationSeconds: e.durationMs / 1000 }),
      onRetry: (e) => self.recordRetry(e.operation),
      onRateLimitWait: (e) => self.recordRateLimitWait(e.operation),
      onThrottled: (e) => {
        self.recordThrottled(e.operation);
        if (!e.started) return;
        outbound.throttling({ host: e.host, status: e.status });
        logger.warn(
          { operation: e.operation, status: e.status, host: e.host, retry_after_seconds: seconds(e.retryAfterMs), rate_per_second: rateField(e.ratePerSecond) },
          'upstream throttling started: requests to this host paused until Retry-After, the request rate lowered',
        );
      },
      onThrottleEnd: (e) => {
        outbound.throttling(undefined);
        logger.info({ rate_per_second: rateField(e.ratePerSecond) }, 'upstream throttling ended: the request rate is back at the budget');
      },
      onRateChange: (e) => self.recordRateLimit(e.ratePerSecond),
    },
  });
  self.recordRateLimit(upstream.ratePerSecond());
  // The new client starts unthrottled (a reload builds one), and the status page says what is in force.
  outbound.throttling(undefined);
  const log = logger.child({ component: 'engine' });
  const tz = platformClock(config.upstream.timezone);
  // What the request estimate is made for: this config's collectors, or those a reload swapped in (collectorJobs).
  let estimateFor = { config, collectors: buildCollectors(resolveCollectorOptions(config), shard) };
  // One discovery for the collectors and the WAF event scope, so both see the same share.
  const targets = new TargetDiscovery({
    client: upstream.client, config: config.targets, shard, log: logger.child({ component: 'targets' }),
    onChange: (t) => logRequestEstimate(logger, estimateFor.config, requestEstimate(estimateFor.config, estimateFor.collectors, { domains: t.domains.length, packages: t.packages.length })),
  });
  const otlp = config.waf_events.enabled ? otlpEndpoint(config, options.local) : undefined;
  logExporterRoutes(config, otlp, logger);
  const remoteWrite = wireRemoteWrite(config, outbound.watch('remote_write', logger.child({ component: 'remote_write' })), options.version, self, store, recovery, options.clock ?? SYSTEM_CLOCK);
  // The WAF forwarder is wired after the collectors; the OTLP sender asks it for its counter's start only once running.
  const waf: { forwarder?: WafEventForwarder } = {};
  const otlpMetrics = wireOtlpMetrics(config, options.version, {
    families, self, store, recovery, clock: options.clock ?? SYSTEM_CLOCK, logger: outbound.watch('otlp_metrics', logger.child({ component: 'otlp_metrics' })),
    wafCountingSince: () => waf.forwarder?.countingSince(),
  });
  const context = {
    client: upstream.client,
    tz,
    sink: families,
    ledger: new CounterLedger([remoteWrite?.history, otlpMetrics?.history].filter((h) => h !== undefined)),
    store,
    targets,
    filter: new MetricFilter({ allow: config.metrics.allow, deny: config.metrics.deny }),
    observer: self,
    ...(options.clock ? { clock: options.clock } : {}),
    logger: log,
    recovery,
    forgetter: new TargetForgetter(config.targets, logger.child({ component: 'targets' })),
  };
  const collectorJobs = (next: Config): CollectorJobs => {
    const collectors = buildCollectors(resolveCollectorOptions(next), shard);
    estimateFor = { config: next, collectors };
    families.define([...collectors.flatMap((c) => c.collector.families), ...(next.waf_events.enabled ? WAF_EVENTS_FAMILIES : [])]);
    return { jobs: sampleJobs(collectors, context), collectors: new Set(collectors.map((c) => c.collector.name)) };
  };
  const built = collectorJobs(config);
  const jobs: Job[] = [...built.jobs];
  const wafEvents = otlp === undefined
    ? undefined
    : wireWafEvents(options, { upstream, store, targets, recovery, otlp, otlpLogger: outbound.watch('otlp', logger.child({ component: 'otlp' })) });
  if (wafEvents) jobs.push(wafEvents.forwarder);
  if (wafEvents) waf.forwarder = wafEvents.forwarder;
  const engine = new Scheduler({
    jobs,
    tz,
    // edge_exporter_collector_* are about the metric collectors; the WAF job keeps metrics of its own.
    observer: {
      onRun: (run: JobRun) => {
        if (run.kind === 'samples') self.onRun(run.report);
        // The WAF job has its row on the status page; its connection failures are also kept with the outbound clients' notices.
        else outbound.recordRun('waf_events', run.report.error);
      },
    },
    ...(options.clock ? { clock: options.clock } : {}),
    logger: log,
    jitterMs: config.collectors.defaults.jitter,
    // Long enough for a WAF batch handed to the receiver to be answered (the sink's deadline) and recorded (see deliver.ts).
    stopTimeoutMs: Math.max(DEFAULT_STOP_TIMEOUT_MS, (wafEvents?.logSink.ackDeadlineMs ?? 0) + RECORD_MARGIN_MS),
  });
  return { upstream, engine, collectors: built.collectors, collectorJobs, ...(wafEvents ? { wafEvents } : {}), ...(remoteWrite ? { remoteWrite } : {}), ...(otlpMetrics ? { otlpMetrics } : {}) };
}

/** Retry-After for a log record, in seconds (null when the answer named none). */
function seconds(ms: number | undefined): number | null {
  return ms === undefined ? null : ms / 1000;
}

/** A rate for a log record: JSON has no Infinity (it would print null), so no limit reads 'none'. */
function rateField(perSecond: number): number | 'none' {
  return Number.isFinite(perSecond) ? Math.round(perSecond * 1000) / 1000 : 'none';
}
