// One daemon's lifecycle. Start-up runs in an order where everything that can
// fail without side effects comes first: the server's files are read, the
// state directory is locked, the listen port is bound, and only then is state
// read or written and the upstream asked anything (a daemon that cannot serve
// has polled nothing). Stop runs in reverse: the engine first (every job saves
// its state), the log sink, the server, the upstream connections, the lock.
// A reload (reload.ts) restarts what changed: nothing, some collectors' jobs,
// or the engine and all its jobs over the same state directory; the server,
// the lock and the bundled simulator stay.
// Which state the daemon is in, what it holds there and the moves between
// them are state.ts's; the landing page and /readyz read its one status.
import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import type { Clock } from '../shared/clock.js';
import type { RunReport } from '../engine/index.js';
import type { PollReport } from '../forwarder/index.js';
import { accountsNamed, resolveAccounts, type Config } from '../config/index.js';
import { parseHostPort } from '../config/fields.js';
import { AccountsView, Exposition, negotiate, type ExpositionFormat, type SelfMetrics } from '../exporters/prometheus/index.js';
import { ACCOUNT_LABEL } from '../counters/index.js';
import type { Logger } from '../log/logger.js';
import { HttpServer, type DaemonStatus, type MetricsSource, type ReloadOutcome, type ReloadStatus } from '../server/index.js';
import { displayUrl, TlsFileError } from '../outbound/index.js';
import { startAccount, startComponents, startSenders, stopComponents } from './components.js';
import { Accounts, type Account, type Components } from './accounts.js';
import { applyReload, refuseReload, ReloadRefusedError } from './reload.js';
import { fingerprint, type Fingerprint } from './reload-changes.js';
import { readServerCredentials, ServerFileError } from './server-secrets.js';
import { holdStateDir } from './state-dir.js';
import { move, statusOf, type Held, type State } from './state.js';
import type { StartLocalUpstream } from './wiring/upstream.js';
import { buildExports } from './wiring/index.js';
import { ACCOUNT_CLIENTS, OutboundNotices, PIPE_CLIENTS } from './wiring/network.js';
import { wirePipes, type Pipes } from './wiring/pipes.js';
import { SYSTEM_CLOCK } from './wiring/job-watch.js';
import { errnoText } from '../shared/errno-text.js';
import { EdgeError, InternalError } from '../shared/errors.js';

/** A TLS file the config names, unreadable when a client is built (`call` and `doctor` meet it outside a daemon's start-up). */
export { TlsFileError };

/** Start-up stopped by the environment (a port in use, a file gone since the config loaded); the message says where. */
export class StartupError extends EdgeError {
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
   * schedule; cycles run only through runOnce(), whose first call restores the
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
  readonly exposition: Exposition;
  /** The daemon's own self-metrics; each account records its own (accounts.ts). */
  readonly self: SelfMetrics;
  /** Every account's families and self-metrics as /metrics serves them. */
  readonly view: AccountsView;
  /** Accounts are named (`accounts:` or `account.name`): their series carry `account`. */
  private readonly labelled: boolean;
  private readonly accounts: Accounts;
  private config: Config;
  /** The config's files as they were when it was applied (reload-changes.ts). */
  private applied: Fingerprint;
  private state: State = { name: 'created' };
  /** The one start-up: start()'s, or the first runOnce/forwardOnce's without a server (then no URL). */
  private startUp: Promise<string | undefined> | undefined;
  private stopping: Promise<void> | undefined;
  /** Reloads run one after another. */
  private reloads: Promise<unknown> = Promise.resolve();
  /** The OTLP metrics and remote-write clients' last connection failures, for the status page; kept across reloads. */
  private readonly outbound = new OutboundNotices();
  /** The last reload's outcome, for the status page. */
  private lastReload: ReloadStatus | undefined;

  constructor(private readonly options: DaemonOptions) {
    this.config = options.config;
    this.applied = fingerprint(options.config);
    // The daemon's own store holds only its self-metrics (build, config, push pipes): every account publishes into its own.
    ({ self: this.self } = buildExports(options.config, options.version, options.clock, true));
    this.labelled = accountsNamed(options.config);
    this.view = new AccountsView(this.self, this.labelled);
    this.exposition = new Exposition({ families: this.view, self: this.view });
    this.accounts = new Accounts({
      logger: options.logger, version: options.version, labelled: this.labelled, view: this.view,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      ...(options.lookup ? { lookup: options.lookup } : {}),
    });
  }

  /** The config in force: the one started with, or the last reload applied. */
  get running(): Config {
    return this.config;
  }

  /** Starts the HTTP server and the schedules (unless `schedules: false`); resolves to the server's URL. Idempotent. */
  start(): Promise<string> {
    if (this.stopping !== undefined) return Promise.reject(new InternalError(STOPPED));
    this.startUp ??= this.bringUp(true);
    return this.startUp.then((url) => url ?? Promise.reject(new InternalError('the daemon was started by runOnce or forwardOnce and serves no HTTP')));
  }

  /** Stops schedules and persists state, then closes the server, the upstream and the lock. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  /**
   * Reads the config again and applies it (reload.ts); resolves to what
   * happened. Refused while the daemon is not running (a start in progress
   * is waited for). Rejects only when not even the previous config comes
   * back up after a failed apply: the daemon then ends, as a failed start
   * does.
   */
  reload(): Promise<ReloadOutcome> {
    const next = this.reloads.then(() => this.reloadInOrder()).then((outcome) => {
      this.lastReload = { at: Date.now(), ...outcome };
      return outcome;
    });
    this.reloads = next.catch(() => undefined);
    return next;
  }

  /** Runs every account's enabled collectors once, then starts pushing their history when a push pipe is on; for `run --once`. */
  async runOnce(): Promise<RunReport[]> {
    const { accounts, pipes } = await this.components();
    const reports = await Promise.all(accounts.map((a) => a.parts.engine.runSamples()));
    // What was pending and what this run counted go out now; stop() waits for them (stopComponents).
    await startSenders(pipes);
    return reports.flat();
  }

  /**
   * One WAF event poll of `account` (the first by default: every window
   * due), starting its log sink if needed; undefined when waf_events is off.
   * For tests that drive forwarding on a fake clock with `schedules: false`,
   * as runOnce() drives the collectors.
   */
  async forwardOnce(account?: string): Promise<PollReport | undefined> {
    const { accounts } = await this.components();
    const parts = (account === undefined ? accounts[0] : accounts.find((a) => a.name === account))?.parts;
    if (!parts?.wafEvents) return undefined;
    await parts.wafEvents.logSink.start();
    return parts.engine.runJob(parts.wafEvents.forwarder);
  }

  /** The exposition as the text format, for `run --once`. */
  async renderText(): Promise<string> {
    return (await this.exposition.render('text')).body.toString('utf8');
  }

  private to(next: State): void {
    this.state = move(this.state, next);
  }

  /** What the landing page shows and /readyz answers from. */
  private status(): DaemonStatus {
    const { state, config } = this;
    const local = 'held' in state ? state.held.local?.url : undefined;
    return statusOf(state, {
      notices: this.outbound.notices(config, PIPE_CLIENTS),
      readings: this.self.readings(),
      labelled: this.labelled,
      account: (account) => {
        const upstream = account.config.upstream.api_url ?? local;
        return {
          readings: account.exports.self.readings(),
          notices: account.notices.notices(account.config, ACCOUNT_CLIENTS),
          upstream: upstream === undefined ? undefined : displayUrl(upstream),
        };
      },
      reload: this.lastReload,
    });
  }

  /** The components in force, once started (a reload in progress is waited for). */
  private async components(): Promise<Components> {
    if (this.stopping !== undefined) throw new InternalError(STOPPED);
    this.startUp ??= this.bringUp(false);
    await this.startUp;
    await this.reloads;
    const { state } = this;
    if (state.name !== 'running') throw new InternalError(`the daemon is not running (${state.name})`);
    return state.components;
  }

  /**
   * starting -> running, or failed (stop() then releases what was taken).
   * `serve`: the server's files, the lock, the port, then the components
   * (started unless `schedules: false`); without it the lock and the
   * components only, started by runOnce/forwardOnce.
   */
  private async bringUp(serve: boolean): Promise<string | undefined> {
    const held: Held = {};
    this.to({ name: 'starting', held });
    let components: Components | undefined;
    try {
      let url: string | undefined;
      if (serve) url = await this.serve(held);
      else await this.takeStateDir(held);
      const opened = this.open(held);
      components = await (serve ? opened.catch(plainly) : opened);
      // A damaged state file (ledger or WAF checkpoint) stops start-up here, before the first request.
      if (serve) await this.startJobs(components).catch(plainly);
      this.to({ name: 'running', held, components });
      if (serve) this.self.recordConfigLoad(true, Date.now());
      return url;
    } catch (error) {
      this.to({ name: 'failed', held, components, error });
      throw error;
    }
  }

  /** Checks the listen address and reads the server's files, takes the lock, binds the port; the server's URL. */
  private async serve(held: Held): Promise<string> {
    const { config } = this;
    const listenText = this.options.listen ?? config.server.listen;
    const listenFrom = this.options.listen === undefined ? 'server.listen' : '--listen';
    const listen = parseHostPort(listenText);
    if (!listen) throw new StartupError(`${listenFrom}: invalid listen address "${listenText}"`);
    const credentials = await readServerCredentials(config).catch((err: unknown) => {
      throw err instanceof ServerFileError ? new StartupError(err.message, { cause: err }) : err;
    });
    // The lock before the port: a second daemon on this directory is told who holds it, not that the port is taken.
    await this.takeStateDir(held);
    held.server = new HttpServer({
      host: listen.host,
      port: listen.port,
      metrics: this.metricsSource(),
      status: { status: () => this.status() },
      reload: { enabled: () => this.config.server.enable_reload, reload: () => this.reload() },
      version: this.options.version,
      ...credentials,
    });
    // Server before state and upstream: a port in use stops start-up before anything is read, written or asked.
    return held.server.start().catch((err: unknown) => {
      throw new StartupError(`${listenFrom}: cannot listen on ${listenText}: ${errnoText(err)}`, { cause: err });
    });
  }

  private async takeStateDir(held: Held): Promise<void> {
    // Without `accounts:` the one account's state is in this directory, so its saves are the account's.
    const saves = (): SelfMetrics => (this.config.accounts === undefined ? this.accounts.selfOf(this.config.account.name, this.config) : this.self);
    held.dir = await holdStateDir(this.config.state_dir, this.options.logger, (file) => saves().recordStateSaveFailure(file));
  }

  /** Starts the bundled simulator if an account has no upstream.api_url (they share it), and builds the config's components. */
  private async open(held: Held): Promise<Components> {
    const local = resolveAccounts(this.config).find((a) => a.config.upstream.api_url === undefined);
    if (local !== undefined && this.options.startLocal) held.local = await this.options.startLocal(local.config, this.options.logger);
    const components = await this.build(this.config, held);
    this.accounts.publish(components.accounts, components.pipes);
    return components;
  }

  /** Every account of `config` over the push pipes they share, built in the config's order, not started. */
  private async build(config: Config, held: Held): Promise<Components> {
    const pipes = wirePipes(config, {
      version: this.options.version, self: this.self, view: this.view, clock: this.options.clock ?? SYSTEM_CLOCK,
      logger: this.options.logger, outbound: this.outbound, labelled: this.labelled,
      wafCountingSince: (labels) => this.forwarderOf(labels[ACCOUNT_LABEL])?.countingSince(),
    });
    const accounts: Account[] = [];
    try {
      for (const account of resolveAccounts(config)) accounts.push(await this.accounts.build(account, pipes, held));
    } catch (err) {
      // What the accounts built so far opened (their upstream connections) closes.
      await Promise.all(accounts.map((a) => a.parts.upstream.stop()));
      throw err;
    }
    return { accounts, pipes };
  }

  /** The WAF forwarder of the account named `name` (the only one when accounts are not named). */
  private forwarderOf(name: string | undefined) {
    const { state } = this;
    const accounts = 'components' in state ? state.components?.accounts ?? [] : [];
    const account = name === undefined ? accounts[0] : accounts.find((a) => a.name === name);
    return account?.parts.wafEvents?.forwarder;
  }

  /** Starts built components, unless cycles run only through runOnce (`schedules: false`). */
  private async startJobs(components: Components): Promise<void> {
    if (this.options.schedules !== false) await startComponents(components);
  }

  /** running -> reloading -> running (applied, refused, or back on the previous config), or failed. */
  private async reloadInOrder(): Promise<ReloadOutcome> {
    await this.startUp?.catch(() => undefined);
    const { state } = this;
    const read = this.options.reloadConfig;
    if (this.stopping !== undefined || state.name !== 'running' || state.held.server === undefined || !read) {
      const why = this.stopping !== undefined ? 'the daemon is stopping'
        : state.name === 'failed' ? `the daemon failed: ${describe(state.error)}`
          : state.name !== 'running' || state.held.server === undefined ? 'the daemon has not started'
            : 'this daemon was started without a config to read again';
      return refuseReload(new ReloadRefusedError(why), { logger: this.options.logger, self: this.self });
    }
    const { held } = state;
    this.to({ name: 'reloading', held, components: state.components });
    // The components built last, which a stop after a failed reload stops.
    let latest = state.components;
    try {
      const reloaded = await applyReload({ config: this.config, fingerprint: this.applied, components: state.components }, {
        logger: this.options.logger,
        self: this.self,
        read,
        listenOverridden: this.options.listen !== undefined,
        build: async (config) => (latest = await this.build(config, held)),
        start: (components) => this.startJobs(components),
        buildAccount: (account, pipes: Pipes) => this.accounts.build(account, pipes, held),
        startAccount: async (account) => {
          if (this.options.schedules !== false) await startAccount(account);
        },
        publish: (components) => {
          latest = components;
          this.accounts.publish(components.accounts, components.pipes);
        },
      });
      if (reloaded.credentials) held.server?.setCredentials(reloaded.credentials);
      this.config = reloaded.inForce.config;
      this.applied = reloaded.inForce.fingerprint;
      this.to({ name: 'running', held, components: reloaded.inForce.components });
      return reloaded.outcome;
    } catch (error) {
      this.to({ name: 'failed', held, components: latest, error });
      throw error;
    }
  }

  /** stopping -> stopped, from created, running or failed (a start or reload in progress is waited for). */
  private async shutDown(): Promise<void> {
    // Stopped before it started: nothing to wait for, and start() is refused from now on.
    if (this.state.name !== 'created') {
      await this.startUp?.catch(() => undefined);
      await this.reloads;
    }
    const from = this.state;
    const components = 'components' in from ? from.components : undefined;
    this.to({ name: 'stopping', components });
    if (components) await stopComponents(components);
    const held = 'held' in from ? from.held : {};
    await held.server?.stop();
    await held.local?.stop();
    await held.dir?.lock.release();
    this.self.close();
    this.to({ name: 'stopped' });
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

const STOPPED = 'the daemon was stopped; a stopped daemon does not start or run again';

/** A TLS file named in the config gone or unreadable (read as the clients are built) is said as plainly as a port in use. */
function plainly(err: unknown): never {
  throw err instanceof TlsFileError ? new StartupError(err.message, { cause: err }) : err;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
