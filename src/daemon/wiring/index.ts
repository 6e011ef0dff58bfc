// One account's config into its parts, in one place: its upstream client
// (upstream.ts), the collectors with their resolved options and placement
// (collectors.ts), the OTLP log sink with the WAF event job (waf-events.ts),
// its ledger with each push pipe's history, and the engine running its jobs.
// What every account shares (the server, the push pipes' senders, the
// exposition) is pipes.ts's and daemon.ts's; what is started when, and
// stopped in which order, is components.ts's.
import type { LookupFunction } from 'node:net';
import { basename } from 'node:path';
import type { Dispatcher } from 'undici';
import { platformClock } from '../../api/index.js';
import { CounterLedger, type HistoryQueues } from '../../counters/index.js';
import { DEFAULT_STOP_TIMEOUT_MS, Scheduler, sampleJobs, type Job, type JobRun } from '../../engine/index.js';
import { claimStateDir, MetricFilter, TargetDiscovery, TargetForgetter } from '../../collectors/index.js';
import { type Clock } from '../../shared/clock.js';
import { WAF_EVENTS_FAMILIES, type WafEventForwarder } from '../../forwarder/index.js';
import { resolveCollectorOptions, type Config } from '../../config/index.js';
import type { OtlpLogSink } from '../../exporters/otel-logs/index.js';
import { FamilyStore, SelfMetrics } from '../../exporters/prometheus/index.js';
import type { Logger } from '../../log/logger.js';
import { stateRecovery, type StateStore } from '../../state/index.js';
import { buildCollectors } from './collectors.js';
import { openUpstream, type LocalUpstream, type Upstream } from './upstream.js';
import type { PipeHistories } from './pipes.js';
import { otlpEndpoint, wireWafEvents } from './waf-events.js';
import { logRequestEstimate, requestEstimate } from './requests.js';
import { ACCOUNT_CLIENTS, insecureKeysOf, insecureWarning, logOtlpRoute, type OutboundNotices } from './network.js';
import type { JobWatch } from './job-watch.js';

/** Time left after the sink's deadline for a confirmed WAF batch's checkpoint save, at stop. */
const RECORD_MARGIN_MS = 3_000;

/** A family store and the self-metrics recorded beside it. */
export interface Exports {
  readonly families: FamilyStore;
  readonly self: SelfMetrics;
}

/**
 * A family store and self-metrics: the daemon's own (with the process
 * metrics), or one account's (`processMetrics: false`). `clock`: the
 * engine's, which the live gauges (…_lag_seconds, …_age_seconds) are read
 * against at scrape.
 */
export function buildExports(config: Config, version: string, clock: Clock | undefined, processMetrics: boolean): Exports {
  const { limits } = config;
  const families = new FamilyStore({ maxLabelValueLength: limits.label_value_length, maxSeriesPerFamily: limits.series_per_family });
  const self = new SelfMetrics({ families, version, processMetrics, ...(clock ? { clock } : {}) });
  return { families, self };
}

interface WiringOptions {
  /** The account's whole config (config/accounts.ts), its name and whether its series carry it. */
  readonly account: { readonly name: string; readonly config: Config; readonly labelled: boolean };
  /** The account's logger (with `account` bound when accounts are named). */
  readonly logger: Logger;
  readonly version: string;
  /** The account's own families and self-metrics. */
  readonly exports: Exports;
  /** The engine's clock; the system clock by default. */
  readonly clock?: Clock;
  readonly dispatcher?: Dispatcher;
  /** The account's state store (the state directory, or its subdirectory under `accounts:`), held by the daemon. */
  readonly store: StateStore;
  /** The stand-in upstream (the bundled simulator) for a config without upstream.api_url; the caller owns it. */
  readonly local?: LocalUpstream;
  /** Host name resolution of the upstream's connections (tests: a name that must not resolve, without asking DNS). */
  readonly lookup?: LookupFunction;
  /** Where the account's throttling and OTLP log sink failures are kept for its status section. */
  readonly outbound: OutboundNotices;
  /** How each configured push pipe keeps its history in an account's state directory (pipes.ts). */
  readonly histories: PipeHistories;
}

/** The running parts of one account, built but not started. */
export interface AccountParts {
  readonly upstream: Upstream;
  readonly engine: Scheduler;
  /** With waf_events enabled: its job and the sink it delivers to. */
  readonly wafEvents?: { readonly forwarder: WafEventForwarder; readonly logSink: OtlpLogSink; readonly delivery: JobWatch };
  /** The metric collectors this replica runs, by name. */
  readonly collectors: ReadonlySet<string>;
  /** Each configured push pipe's history of this account's buckets, which the pipe's one sender reads. */
  readonly histories: { readonly remoteWrite?: HistoryQueues; readonly otlpMetrics?: HistoryQueues };
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
 * Claims the account's state directory (before anything reads or writes
 * state: a directory this replica does not own must stay untouched), opens
 * its upstream, makes the data families those of its config (a reload drops
 * the families of collectors it removed), and builds its jobs and engine.
 */
export async function wireAccount(options: WiringOptions): Promise<AccountParts> {
  const { logger, exports } = options;
  const { config, name, labelled } = options.account;
  // A named account's targets are placed with its name (shard.ts); the state directory's owner is the replica alone.
  const shard = labelled ? { ...config.shard, account: name } : config.shard;
  const { self, families } = exports;
  const { store, outbound } = options;
  const recovery = stateRecovery(store, config.state_recovery, (reset) => self.recordStateReset(basename(reset.file)));
  await claimStateDir(store, config.shard, logger, recovery);
  // Its own clients' (the push pipes' are the daemon's: pipes.ts).
  for (const key of insecureKeysOf(config, ACCOUNT_CLIENTS)) logger.warn({ key }, insecureWarning(key));
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
  logOtlpRoute(otlp, logger);
  const histories = {
    ...(options.histories.remoteWrite ? { remoteWrite: options.histories.remoteWrite(store, recovery) } : {}),
    ...(options.histories.otlpMetrics ? { otlpMetrics: options.histories.otlpMetrics(store, recovery) } : {}),
  };
  const context = {
    client: upstream.client,
    tz,
    sink: families,
    ledger: new CounterLedger([histories.remoteWrite, histories.otlpMetrics].filter((h) => h !== undefined)),
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
    : wireWafEvents(
      { config, logger, version: options.version, exports, ...(options.clock ? { clock: options.clock } : {}), ...(labelled ? { account: name } : {}) },
      { upstream, store, targets, recovery, otlp, shard, otlpLogger: outbound.watch('otlp', logger.child({ component: 'otlp' })) },
    );
  if (wafEvents) jobs.push(wafEvents.forwarder);
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
  return { upstream, engine, collectors: built.collectors, collectorJobs, histories, ...(wafEvents ? { wafEvents } : {}) };
}

/** Retry-After for a log record, in seconds (null when the answer named none). */
function seconds(ms: number | undefined): number | null {
  return ms === undefined ? null : ms / 1000;
}

/** A rate for a log record: JSON has no Infinity (it would print null), so no limit reads 'none'. */
function rateField(perSecond: number): number | 'none' {
  return Number.isFinite(perSecond) ? Math.round(perSecond * 1000) / 1000 : 'none';
}
