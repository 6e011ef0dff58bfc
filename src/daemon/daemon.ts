// One daemon's lifecycle: its components (wiring.ts) come up in order (state
// checked before the server listens, the server before the first run) and go
// down in reverse on stop (the engine first, state persisted, then the log
// sink, the server, the upstream connections).
import { readFile } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import type { Clock, RunReport } from '../collectors/index.js';
import type { PollReport } from '../collectors/waf-events/index.js';
import type { Config } from '../config/index.js';
import { parseHostPort } from '../config/fields.js';
import { negotiate, type Exposition, type ExpositionFormat, type FamilyStore, type SelfMetrics } from '../exporters/prometheus/index.js';
import type { Logger } from '../log/logger.js';
import { HttpServer, type MetricsSource } from '../server/index.js';
import type { StartLocalUpstream } from './wiring/upstream.js';
import { buildExports, wire, type Components } from './wiring/index.js';

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
  /** Starts the stand-in upstream for a config without upstream.api_url (the CLI passes the bundled simulator). */
  readonly startLocal?: StartLocalUpstream;
}

export class Daemon {
  readonly families: FamilyStore;
  readonly exposition: Exposition;
  readonly self: SelfMetrics;
  private components: Promise<Components> | undefined;
  private opened: Components | undefined;
  private server: HttpServer | undefined;
  private started: Promise<string> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: DaemonOptions) {
    ({ families: this.families, self: this.self, exposition: this.exposition } = buildExports(options.config, options.version));
  }

  /** Brings up the upstream and the engine with its jobs, without the HTTP server. Once. */
  private open(): Promise<Components> {
    const { config, logger, version, clock, dispatcher, startLocal } = this.options;
    this.components ??= wire({
      config, logger, version,
      exports: { families: this.families, self: this.self, exposition: this.exposition },
      ...(clock ? { clock } : {}),
      ...(dispatcher ? { dispatcher } : {}),
      ...(startLocal ? { startLocal } : {}),
    }).then((components) => (this.opened = components));
    return this.components;
  }

  /** Runs every enabled collector once; for `run --once`. */
  async runOnce(): Promise<RunReport[]> {
    const { engine } = await this.open();
    return engine.runSamples();
  }

  /**
   * One WAF event poll (every window due), starting the log sink if needed;
   * undefined when waf_events is off. For tests that drive forwarding on a
   * fake clock with `schedules: false`, as runOnce() drives the collectors.
   */
  async forwardOnce(): Promise<PollReport | undefined> {
    const { engine, wafEvents } = await this.open();
    if (!wafEvents) return undefined;
    await wafEvents.logSink.start();
    return engine.runJob(wafEvents.forwarder);
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
      const { engine, wafEvents } = await this.open();
      // A damaged state file (ledger or WAF checkpoint) stops start-up here, before the server listens.
      if (this.options.schedules !== false) await engine.load();
      this.server = new HttpServer({
        host: listen.host,
        port: listen.port,
        metrics: this.metricsSource(),
        status: { status: () => engine.status('samples') },
        // With every metric collector disabled (only WAF events forwarded) there is no cycle to wait for.
        ready: () => {
          const status = engine.status('samples');
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
        // The sink before the engine: the WAF job delivers from its first run.
        await wafEvents?.logSink.start();
        await engine.start();
      }
      return url;
    })();
    return this.started;
  }

  /** Stops schedules and persists state, then closes the server and the upstream. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      // Producers first: every job saves its state (the WAF job its checkpoint), then the sink flushes what it accepted.
      await this.components?.catch(() => undefined);
      const opened = this.opened;
      await opened?.engine.stop();
      await opened?.wafEvents?.logSink.shutdown();
      await this.server?.stop();
      await opened?.upstream.close();
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
