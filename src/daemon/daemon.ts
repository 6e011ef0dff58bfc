// Wires one daemon: config -> api -> collectors -> exporters -> server, and
// takes it down in reverse on stop (schedules first, state persisted, then the
// server, then the upstream connections). With `shard`, the state directory is
// claimed for this shard first, and target discovery, the collector placement
// and the WAF event scope all follow the same partition.
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename } from 'node:path';
import type { Dispatcher } from 'undici';
import { platformClock } from '../api/index.js';
import { CounterLedger, MetricFilter, Poller, TargetDiscovery, type Clock, type RunReport } from '../collectors/index.js';
import { buildCollectors } from '../collectors/registry.js';
import { resolveCollectorOptions, type Config } from '../config/index.js';
import { Exposition, FamilyStore, SelfMetrics, negotiate, type ExpositionFormat } from '../exporters/prometheus/index.js';
import { OtlpLogSink } from '../exporters/otel-logs/index.js';
import { shardScope, WAF_EVENTS_FAMILIES, WafEventForwarder, type PollReport } from '../collectors/waf-events/index.js';
import type { Logger } from '../log/logger.js';
import { HttpServer, type MetricsSource } from '../server/index.js';
import { StateStore, stateRecovery, type StateRecovery } from '../state/index.js';
import { openUpstream, type StartLocalUpstream, type Upstream } from './upstream.js';
import { parseHostPort } from '../config/fields.js';
import { claimStateDir } from './state-owner.js';

/** Start-up stopped by the environment (a port in use, a file gone since the config loaded); the message says where. */
export class StartupError extends Error {
  readonly code = 'EDGE_STARTUP';
}

export interface DaemonOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
  /** Overrides server.listen (`run --listen`). */
  readonly listen?: string;
  /** The poller's clock; the system clock by default. */
  readonly clock?: Clock;
  /**
   * false: start() serves HTTP but neither runs a collector nor arms a
   * schedule; cycles run only through runOnce(), whose first call loads the
   * state. For tests that drive cycles on a fake clock. Default true.
   */
  readonly schedules?: boolean;
  readonly dispatcher?: Dispatcher;
  /** Starts the stand-in upstream for a config without upstream.api_url (the CLI passes the bundled simulator). */
  readonly startLocal?: StartLocalUpstream;
}

export class Daemon {
  readonly families: FamilyStore;
  readonly exposition: Exposition;
  readonly self: SelfMetrics;
  private upstream: Upstream | undefined;
  private poller: Poller | undefined;
  private logSink: OtlpLogSink | undefined;
  private forwarder: WafEventForwarder | undefined;
  private server: HttpServer | undefined;
  private started: Promise<string> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: DaemonOptions) {
    const { limits } = options.config;
    this.families = new FamilyStore({ maxLabelValueLength: limits.label_value_length, maxSeriesPerFamily: limits.series_per_family });
    this.self = new SelfMetrics({ families: this.families, version: options.version });
    this.exposition = new Exposition({ families: this.families, self: this.self });
  }

  /** Brings up the upstream and the poller (restoring counters), without the HTTP server. */
  private async open(): Promise<Poller> {
    if (this.poller) return this.poller;
    const { config, logger } = this.options;
    const { shard } = config;
    const self = this.self;
    const store = new StateStore(config.state_dir);
    const recovery = stateRecovery(store, config.state_recovery, (reset) => self.recordStateReset(basename(reset.file)));
    // Before anything reads or writes state: another shard's directory must stay untouched.
    await claimStateDir(store, shard, logger, recovery);
    if (shard.count > 1) logger.info({ shard: shard.index, of: shard.count }, 'sharded: collecting this shard\'s domains and packages');
    this.upstream = await openUpstream(config, logger, {
      ...(this.options.dispatcher ? { dispatcher: this.options.dispatcher } : {}),
      ...(this.options.startLocal ? { startLocal: this.options.startLocal } : {}),
      observer: {
        onResponse: (e) => self.recordUpstream({ operation: e.operation, outcome: e.outcome, durationSeconds: e.durationMs / 1000 }),
        onRetry: (e) => self.recordRetry(e.operation),
        onRateLimitWait: (e) => self.recordRateLimitWait(e.operation),
      },
    });
    const collectors = buildCollectors(resolveCollectorOptions(config), shard);
    this.families.register(collectors.flatMap((c) => c.collector.families));
    const log = logger.child({ component: 'poller' });
    // One discovery for the poller and the WAF event scope, so both see the same share.
    const targets = new TargetDiscovery({ client: this.upstream.client, config: config.targets, shard, log: logger.child({ component: 'targets' }) });
    this.poller = new Poller({
      collectors,
      client: this.upstream.client,
      tz: platformClock(config.upstream.timezone),
      sink: this.families,
      ledger: new CounterLedger(),
      store,
      targets,
      filter: new MetricFilter({ allow: config.metrics.allow, deny: config.metrics.deny }),
      observer: self,
      ...(this.options.clock ? { clock: this.options.clock } : {}),
      logger: log,
      jitterMs: config.collectors.defaults.jitter,
      recovery,
    });
    if (config.waf_events.enabled) this.openWafEvents(this.upstream, store, targets, recovery);
    return this.poller;
  }

  /** WAF deny events -> OTLP logs, with its own checkpoint in the state directory. */
  private openWafEvents(upstream: Upstream, store: StateStore, targets: TargetDiscovery, recovery: StateRecovery): void {
    const { config, logger, version } = this.options;
    const waf = config.waf_events;
    const otlp = config.otlp;
    this.logSink = new OtlpLogSink({
      endpoint: otlp.endpoint,
      protocol: otlp.protocol,
      headers: otlp.headers,
      timeoutMs: otlp.timeout,
      maxBatch: otlp.max_batch,
      resource: { serviceName: 'edge-exporter', serviceVersion: version, serviceInstanceId: `${hostname()}:${process.pid}` },
      logger: logger.child({ component: 'otlp' }),
    });
    this.families.register(WAF_EVENTS_FAMILIES);
    this.forwarder = new WafEventForwarder({
      client: upstream.client,
      tz: platformClock(config.upstream.timezone),
      sink: this.logSink,
      samples: this.families,
      store,
      log: logger.child({ component: 'waf-events', collector: 'waf-events' }),
      intervalMs: waf.interval,
      overlapMs: waf.overlap,
      delayMs: waf.delay,
      maxWindowMs: waf.max_window,
      startBackMs: waf.start_from,
      query: {
        pageSize: waf.page_size,
        ...(waf.severity ? { severity: waf.severity } : {}),
        ...(waf.domains ? { domains: waf.domains } : {}),
        otherFilter: waf.other_filter,
      },
      // Unsharded: none, and the query reads waf_events.domains (or every domain) as configured.
      scope: shardScope({ shard: config.shard, configured: waf.domains, targets }),
      headers: waf.headers,
      maxSeries: config.limits.series_per_family,
      observer: this.self.wafEvents,
      ...(this.options.clock ? { clock: this.options.clock } : {}),
      recovery,
    });
  }

  /** Runs every enabled collector once; for `run --once`. */
  async runOnce(): Promise<RunReport[]> {
    const poller = await this.open();
    return poller.runOnce();
  }

  /**
   * One WAF event poll (every window due), starting the log sink if needed;
   * undefined when waf_events is off. For tests that drive forwarding on a
   * fake clock with `schedules: false`, as runOnce() drives the collectors.
   */
  async forwardOnce(): Promise<PollReport | undefined> {
    await this.open();
    if (!this.forwarder) return undefined;
    await this.logSink?.start();
    return this.forwarder.pollOnce();
  }

  /** Starts the HTTP server and the schedules (unless `schedules: false`); resolves to the server's URL. Idempotent. */
  start(): Promise<string> {
    this.started ??= (async () => {
      const { config } = this.options;
      const listenText = this.options.listen ?? config.server.listen;
      const listenFrom = this.options.listen === undefined ? 'server.listen' : '--listen';
      const listen = parseHostPort(listenText);
      if (!listen) throw new StartupError(`${listenFrom}: invalid listen address "${listenText}"`);
      // Files first: a missing one must stop start-up before the state directory or the upstream is touched.
      const secrets = await readServerSecrets(config);
      const poller = await this.open();
      if (this.options.schedules !== false) {
        // A damaged state file stops start-up here, before the server listens.
        await poller.load();
        await this.forwarder?.load();
      }
      this.server = new HttpServer({
        host: listen.host,
        port: listen.port,
        metrics: this.metricsSource(),
        status: poller,
        // With every metric collector disabled (only WAF events forwarded) there is no cycle to wait for.
        ready: () => {
          const status = poller.status();
          return status.length === 0 || status.some((s) => s.lastSuccessAt !== undefined);
        },
        version: this.options.version,
        ...secrets,
      });
      // Server first: /metrics and /healthz answer while the first cycle (or a down upstream) takes its time.
      const url = await this.server.start().catch((err: unknown) => {
        const code = (err as NodeJS.ErrnoException).code ?? 'error';
        throw new StartupError(`${listenFrom}: cannot listen on ${listenText} (${code})`, { cause: err });
      });
      if (this.options.schedules !== false) {
        await poller.start();
        await this.logSink?.start();
        await this.forwarder?.start();
      }
      return url;
    })();
    return this.started;
  }

  /** Stops schedules and persists state, then closes the server and the upstream. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      // Producers first: the forwarder saves its checkpoint, then the sink flushes what it accepted.
      await this.forwarder?.stop();
      await this.logSink?.shutdown();
      await this.poller?.stop();
      await this.server?.stop();
      await this.upstream?.close();
      this.self.close();
    })();
    return this.stopping;
  }

  /** The exposition as the text format, for `run --once`. */
  async renderText(): Promise<string> {
    return (await this.exposition.render('text')).body.toString('utf8');
  }

  private metricsSource(): MetricsSource {
    const exposition = this.exposition;
    return {
      negotiate,
      render: (format: ExpositionFormat) => exposition.render(format),
      renderGzip: (format: ExpositionFormat) => exposition.renderGzip(format),
    };
  }
}

/** Reads the basic-auth password file and the TLS files named in the config. */
async function readServerSecrets(config: Config): Promise<{ basicAuth?: { username: string; password: string }; tls?: { cert: Buffer; key: Buffer } }> {
  const { basic_auth: auth, tls } = config.server;
  const read = async (file: string, path: string): Promise<Buffer> => {
    try {
      return await readFile(file);
    } catch (err) {
      throw new StartupError(`${path}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
    }
  };
  const password = auth && (auth.password ?? (await read(auth.password_file ?? '', 'server.basic_auth.password_file')).toString('utf8').trim());
  return {
    ...(auth && password !== undefined ? { basicAuth: { username: auth.username, password } } : {}),
    ...(tls ? { tls: { cert: await read(tls.cert_file, 'server.tls.cert_file'), key: await read(tls.key_file, 'server.tls.key_file') } } : {}),
  };
}
