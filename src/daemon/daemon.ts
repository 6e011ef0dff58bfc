// One daemon's lifecycle. Start-up runs in an order where everything that can
// fail without side effects comes first: the server's files are read, the
// state directory is locked, the listen port is bound, and only then is state
// read or written and the upstream asked anything (a daemon that cannot serve
// has polled nothing). Stop runs in reverse: the engine first (every job saves
// its state), the log sink, the server, the upstream connections, the lock.
// A reload stops and rebuilds the engine and its jobs over the same state
// directory, so counters continue from what was just saved and no WAF event
// is sent twice; the server, the lock and the bundled simulator stay.
import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import type { Clock, RunReport } from '../collectors/index.js';
import type { PollReport } from '../collectors/waf-events/index.js';
import type { Config } from '../config/index.js';
import { parseHostPort } from '../config/fields.js';
import { negotiate, type Exposition, type ExpositionFormat, type FamilyStore, type SelfMetrics } from '../exporters/prometheus/index.js';
import type { Logger } from '../log/logger.js';
import { HttpServer, type MetricsSource, type ReloadOutcome } from '../server/index.js';
import { acquireStateLock, StateStore, type StateLock } from '../state/index.js';
import { changedSections, ReloadRefusedError, restartOnlyChanges } from './reload.js';
import { readServerCredentials, ServerFileError } from './server-secrets.js';
import type { LocalUpstream, StartLocalUpstream } from './wiring/upstream.js';
import { buildExports, wire, type Components } from './wiring/index.js';
import { OutboundNotices } from './wiring/network.js';
import { TlsFileError } from '../shared/tls-files.js';

/** A TLS file the config names, unreadable when a client is built (`call` and `doctor` meet it outside a daemon's start-up). */
export { TlsFileError };

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
  /** The engine's clock; the system clock by default. */
  readonly clock?: Clock;
  /**
   * false: start() serves HTTP but neither runs a collector nor arms a
   * schedule; cycles run only through runOnce(), whose first call loads the
   * state. For tests that drive cycles on a fake clock. Default true.
   */
  readonly schedules?: boolean;
  readonly dispatcher?: Dispatcher;
  /** Host name resolution of the upstream's connections (tests: a name that must not resolve, without asking DNS). */
  readonly lookup?: LookupFunction;
  /** Starts the stand-in upstream for a config without upstream.api_url (the CLI passes the bundled simulator). */
  readonly startLocal?: StartLocalUpstream;
  /** Reads the config again for reload() (the CLI re-reads its file); throws ConfigError when it does not validate. Without it reload() is refused. */
  readonly reloadConfig?: () => Config;
}

export class Daemon {
  readonly families: FamilyStore;
  readonly exposition: Exposition;
  readonly self: SelfMetrics;
  private config: Config;
  private state: { readonly lock: StateLock; readonly store: StateStore } | undefined;
  private local: LocalUpstream | undefined;
  private current: Components | undefined;
  private opening: Promise<Components> | undefined;
  private server: HttpServer | undefined;
  private started: Promise<string> | undefined;
  private stopping: Promise<void> | undefined;
  /** Reloads run one after another. */
  private reloads: Promise<unknown> = Promise.resolve();
  /** The OTLP and remote-write clients' last connection failures, for the status page; kept across reloads. */
  private readonly outbound = new OutboundNotices();

  constructor(private readonly options: DaemonOptions) {
    this.config = options.config;
    ({ families: this.families, self: this.self, exposition: this.exposition } = buildExports(options.config, options.version));
  }

  /** The config in force: the one started with, or the last reload applied. */
  get running(): Config {
    return this.config;
  }

  /** Locks the state directory, starts the bundled simulator if configured, builds the components. Once. */
  private open(): Promise<Components> {
    this.opening ??= (async () => {
      await this.holdStateDir();
      const { config } = this;
      if (config.upstream.api_url === undefined && this.options.startLocal) this.local ??= await this.options.startLocal(config, this.options.logger);
      return (this.current = await this.build(config));
    })();
    return this.opening;
  }

  /** The components in force (a reload replaces them). */
  private async components(): Promise<Components> {
    await this.open();
    await this.reloads;
    if (!this.current) throw new Error('the daemon has no components');
    return this.current;
  }

  private build(config: Config): Promise<Components> {
    const { logger, version, clock, dispatcher, lookup } = this.options;
    return wire({
      config, logger, version, outbound: this.outbound,
      ...(lookup ? { lookup } : {}),
      exports: { families: this.families, self: this.self, exposition: this.exposition },
      ...(clock ? { clock } : {}),
      ...(dispatcher ? { dispatcher } : {}),
      ...(this.local ? { local: this.local } : {}),
      store: this.held().store,
    });
  }

  private held(): { readonly lock: StateLock; readonly store: StateStore } {
    if (!this.state) throw new Error('the state directory is not held');
    return this.state;
  }

  /**
   * Takes the state directory's lock (a second daemon on it stops here, told
   * who holds it) and opens its store. One store for the daemon's life, so a
   * save of the old engine and one of a reload's new engine never overlap.
   */
  private async holdStateDir(): Promise<void> {
    if (this.state) return;
    const dir = this.config.state_dir;
    const log = this.options.logger.child({ component: 'state' });
    const lock = await acquireStateLock(dir, { onTakeover: (holder, message) => log.warn({ holder }, message) });
    const store = new StateStore(dir, {
      // The lock goes back first, so no state file lands in a recreated directory another daemon may have taken.
      onDirectoryCreated: () => lock.restore(),
      onDirectoryRecreated: (recreated) => log.warn({ dir: recreated }, 'the state directory had disappeared; recreated it with the lock, saving again'),
      onSaveFailure: (name, err) => {
        this.self.recordStateSaveFailure(`${name}.json`);
        log.debug({ file: err.file, problem: err.problem }, 'state save failed');
      },
    });
    this.state = { lock, store };
    // Only the holder may: a crashed writer's temporary files, never another live daemon's.
    const removed = await store.removeLeftoverTemps();
    if (removed.length > 0) log.info({ files: removed }, 'removed temporary files an earlier crash left in the state directory');
  }

  /** Runs every enabled collector once, then starts pushing its history when remote_write is on; for `run --once`. */
  async runOnce(): Promise<RunReport[]> {
    const { engine, remoteWrite } = await this.components();
    const reports = await engine.runSamples();
    // What was pending and what this run counted go out now; stop() waits for them (stopComponents).
    await remoteWrite?.sender.start();
    return reports;
  }

  /**
   * One WAF event poll (every window due), starting the log sink if needed;
   * undefined when waf_events is off. For tests that drive forwarding on a
   * fake clock with `schedules: false`, as runOnce() drives the collectors.
   */
  async forwardOnce(): Promise<PollReport | undefined> {
    const { engine, wafEvents } = await this.components();
    if (!wafEvents) return undefined;
    await wafEvents.logSink.start();
    return engine.runJob(wafEvents.forwarder);
  }

  /** Starts the HTTP server and the schedules (unless `schedules: false`); resolves to the server's URL. Idempotent. */
  start(): Promise<string> {
    this.started ??= this.startInOrder();
    return this.started;
  }

  private async startInOrder(): Promise<string> {
    const { config } = this;
    const listenText = this.options.listen ?? config.server.listen;
    const listenFrom = this.options.listen === undefined ? 'server.listen' : '--listen';
    const listen = parseHostPort(listenText);
    if (!listen) throw new StartupError(`${listenFrom}: invalid listen address "${listenText}"`);
    const credentials = await readServerCredentials(config).catch((err: unknown) => {
      throw err instanceof ServerFileError ? new StartupError(err.message, { cause: err }) : err;
    });
    // The lock before the port: a second daemon on this directory is told who holds it, not that the port is taken.
    await this.holdStateDir();
    this.server = new HttpServer({
      host: listen.host,
      port: listen.port,
      metrics: this.metricsSource(),
      status: { status: () => this.current?.engine.status('samples') ?? [], notices: () => this.outbound.notices(this.config) },
      // With every metric collector disabled (only WAF events forwarded) there is no cycle to wait for.
      ready: () => {
        const status = this.current?.engine.status('samples');
        return status !== undefined && (status.length === 0 || status.some((s) => s.lastSuccessAt !== undefined));
      },
      reload: { enabled: () => this.config.server.enable_reload, reload: () => this.reload() },
      version: this.options.version,
      ...credentials,
    });
    // Server before state and upstream: a port in use stops start-up before anything is read, written or asked.
    const url = await this.server.start().catch((err: unknown) => {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new StartupError(`${listenFrom}: cannot listen on ${listenText} (${code})`, { cause: err });
    });
    const components = await this.open().catch(plainly);
    // A damaged state file (ledger or WAF checkpoint) stops start-up here, before the first request.
    if (this.options.schedules !== false) await this.run(components).catch(plainly);
    this.self.recordConfigLoad(true, Date.now());
    return url;
  }

  /** Loads the jobs' state and starts them; the sink before the engine, as the WAF job delivers from its first run. */
  private async run(components: Components): Promise<void> {
    await components.engine.load();
    await components.wafEvents?.logSink.start();
    // After load: the ledgers have restored what was counted but not yet confirmed, and it goes first.
    await components.remoteWrite?.sender.start();
    await components.engine.start();
  }

  /**
   * Reads the config again and applies it; resolves to what happened. A
   * config that does not validate, changes a key only a restart applies, or
   * names a file that cannot be read is refused before anything stops, and
   * the daemon runs on as it was. Rejects only when not even the previous
   * config comes back up after a failed apply: the daemon then ends, as a
   * failed start does.
   */
  reload(): Promise<ReloadOutcome> {
    const next = this.reloads.then(() => this.applyReload());
    this.reloads = next.catch(() => undefined);
    return next;
  }

  private async applyReload(): Promise<ReloadOutcome> {
    const log = this.options.logger;
    const previous = this.config;
    let next: Config;
    let credentials: Awaited<ReturnType<typeof readServerCredentials>>;
    try {
      if (this.stopping || !this.started) throw new ReloadRefusedError(this.stopping ? 'the daemon is stopping' : 'the daemon has not started');
      if (!this.options.reloadConfig) throw new ReloadRefusedError('this daemon was started without a config to read again');
      log.info('reloading the configuration');
      next = this.options.reloadConfig();
      const fixed = restartOnlyChanges(previous, next, this.options.listen !== undefined);
      if (fixed.length > 0) throw new ReloadRefusedError(fixed.join('; '));
      credentials = await readServerCredentials(next);
      await this.started;
    } catch (err) {
      return this.refused(err);
    }
    const changed = changedSections(previous, next);
    if (this.current) await stopComponents(this.current);
    try {
      this.current = await this.build(next);
      if (this.options.schedules !== false) await this.run(this.current);
    } catch (err) {
      // The old config's state was just saved and is valid; come back up on it (a failure here ends the daemon, as at start).
      log.error({ error: describe(err) }, 'the new configuration failed to start; going back to the previous one');
      this.current = await this.build(previous);
      if (this.options.schedules !== false) await this.run(this.current);
      return this.refused(err);
    }
    this.server?.setCredentials(credentials);
    this.config = next;
    this.self.retainCollectors(this.current.collectors);
    this.self.recordConfigLoad(true, Date.now());
    log.info({ changed }, 'configuration reloaded');
    return { ok: true };
  }

  private refused(err: unknown): ReloadOutcome {
    const message = describe(err);
    this.options.logger.error({ reason: message }, 'reload refused; still running on the previous configuration');
    this.self.recordConfigLoad(false, Date.now());
    return { ok: false, message };
  }

  /** Stops schedules and persists state, then closes the server, the upstream and the lock. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.started?.catch(() => undefined);
      await this.reloads;
      await this.opening?.catch(() => undefined);
      if (this.current) await stopComponents(this.current);
      await this.server?.stop();
      await this.local?.close();
      await this.state?.lock.release();
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

/**
 * Producers first: every job saves its state (the WAF job its checkpoint),
 * then the sinks deliver what they accepted: the OTLP log sink, and the
 * remote-write sender, which pushes the last cycles' samples for up to
 * REMOTE_WRITE_STOP_FLUSH_MS (what it cannot push is in the state files and
 * goes first at the next start).
 */
async function stopComponents(components: Components): Promise<void> {
  await components.engine.stop();
  await components.wafEvents?.logSink.shutdown();
  const sender = components.remoteWrite?.sender;
  if (sender !== undefined) {
    // A timer that holds the process up (the sender's own waits do not, so they never keep a daemon from exiting): under `run --once` nothing else does.
    const flushing = new AbortController();
    const deadline = setTimeout(() => flushing.abort(), REMOTE_WRITE_STOP_FLUSH_MS);
    await sender.forceFlush(flushing.signal).finally(() => clearTimeout(deadline));
    await sender.shutdown({ deadlineMs: REMOTE_WRITE_STOP_DEADLINE_MS });
  }
  await components.upstream.close();
}

/** How long a stop waits for the receiver to take what is pending, and then for the request in flight. */
const REMOTE_WRITE_STOP_FLUSH_MS = 5_000;
const REMOTE_WRITE_STOP_DEADLINE_MS = 2_000;

/** A TLS file named in the config gone or unreadable (read as the clients are built) is said as plainly as a port in use. */
function plainly(err: unknown): never {
  throw err instanceof TlsFileError ? new StartupError(err.message, { cause: err }) : err;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
