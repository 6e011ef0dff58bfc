// Wires the configured upstream: the real account, or, when no api_url is
// configured, a stand-in the caller provides (the CLI passes the bundled
// simulator). The daemon never imports the simulator: it is not in the
// production import graph, and a real deployment cannot start it by accident.
import type { Dispatcher } from 'undici';
import { EdgeClient, type ClientObserver } from '../../api/index.js';
import { readTokenFile, type Config } from '../../config/index.js';
import { addLogSecret, type Logger } from '../../log/logger.js';

/** A stand-in upstream served locally, started when upstream.api_url is not set. */
export interface LocalUpstream {
  readonly url: string;
  /** The token it accepts. */
  readonly token: string;
  close(): Promise<void>;
}

/** Starts the local stand-in for a config without upstream.api_url (config validation requires simulator.enabled then). */
export type StartLocalUpstream = (config: Config, logger: Logger) => Promise<LocalUpstream>;

export interface Upstream {
  client: EdgeClient;
  /** True when a local stand-in (the bundled simulator) serves as the upstream. */
  local: boolean;
  apiUrl: string;
  /**
   * Sends `token` from the next request on (a reload that read a rotated
   * upstream.token_file); registers it with the log's masking first.
   */
  rotateToken(token: string): void;
  close(): Promise<void>;
}

export interface UpstreamOptions {
  observer?: ClientObserver;
  dispatcher?: Dispatcher;
  /** A running stand-in for a config without upstream.api_url, owned by the caller (close() leaves it running). */
  local?: LocalUpstream;
  /** Starts one for a config without upstream.api_url when `local` is not given; close() stops it. */
  startLocal?: StartLocalUpstream;
}

export async function openUpstream(config: Config, logger: Logger, options: UpstreamOptions = {}): Promise<Upstream> {
  const up = config.upstream;
  let local: LocalUpstream | undefined;
  let started: LocalUpstream | undefined;
  let apiUrl: string;
  let token = up.token ?? '';
  if (up.api_url !== undefined) {
    apiUrl = up.api_url;
  } else {
    if (options.local) local = options.local;
    else if (options.startLocal) local = started = await options.startLocal(config, logger);
    else throw new Error('upstream.api_url is not set and no local upstream (the bundled simulator) was given to start');
    apiUrl = local.url;
    token = local.token;
  }
  // The token came from upstream.token_file (load refuses it next to upstream.token or EDGE_API_TOKEN).
  const tokenFile = local === undefined ? up.token_file : undefined;
  let current = token;
  const client = new EdgeClient({
    apiUrl,
    loginUrl: up.login_url ?? apiUrl,
    token,
    ...(tokenFile === undefined ? {} : {
      refreshToken: async () => {
        const read = readTokenFile(tokenFile);
        // Whatever was read is masked before anything can log it, even content refused as a token.
        if (read.token !== undefined) addLogSecret(logger, read.token);
        if (read.problem !== undefined) {
          logger.warn({ file: tokenFile, problem: read.problem }, `upstream token file ${tokenFile} could not be re-read after a 401; keeping the current token`);
          return undefined;
        }
        const changed = read.token !== current;
        current = read.token;
        logger.info({ file: tokenFile, changed }, `upstream token re-read from ${tokenFile} after a 401`);
        return read.token;
      },
    }),
    authScheme: up.auth_scheme,
    timeoutMs: up.timeout,
    maxBodyBytes: up.max_body_bytes,
    concurrency: up.concurrency,
    connections: up.connections,
    orderRateLimit: up.order_rate_limit,
    ...(up.rate_limit === undefined ? {} : { rateLimit: up.rate_limit }),
    rateLimits: up.rate_limits,
    retry: { attempts: up.retry.attempts, minDelayMs: up.retry.min_delay, maxDelayMs: up.retry.max_delay },
    paths: up.paths ?? {},
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
  });
  return {
    client,
    local: local !== undefined,
    apiUrl,
    rotateToken(next: string) {
      addLogSecret(logger, next);
      current = next;
      client.setToken(next);
    },
    async close() {
      await client.close();
      await started?.close();
    },
  };
}
