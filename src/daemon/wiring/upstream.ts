// Wires the configured upstream: the real account, or, when no api_url is
// configured, a stand-in the caller provides (the CLI passes the bundled
// simulator). The daemon never imports the simulator: it is not in the
// production import graph, and a real deployment cannot start it by accident.
// What the daemon and the doctor get is a read client (no write method at
// all); the writes stay behind `call`, which only the `call` command uses.
import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import { EdgeClient, readClient, type ClientObserver, type ReadClient } from '../../api/index.js';
import { outboundEndpoint, readTokenFile, type Config } from '../../config/index.js';
import { createDispatcher, proxyCredentials, via, type Endpoint } from '../../outbound/index.js';
import { InternalError } from '../../shared/errors.js';
import { addLogSecret, type Logger } from '../../log/logger.js';

/** A stand-in upstream served locally, started when upstream.api_url is not set. */
export interface LocalUpstream {
  readonly url: string;
  /** The token it accepts. */
  readonly token: string;
  /** An OTLP/HTTP logs URL standing in for a receiver, used when otlp.endpoint is not set (outboundEndpoint). */
  readonly otlpEndpoint?: string;
  stop(): Promise<void>;
}

/** Starts the local stand-in for a config without upstream.api_url (config validation requires simulator.enabled then). */
export type StartLocalUpstream = (config: Config, logger: Logger) => Promise<LocalUpstream>;

export interface Upstream {
  /** What the collectors, the WAF forwarder and the doctor ask with: read operations only, not even behind a cast. */
  client: ReadClient;
  /** Any operation by name, the writes included: for the `call` command alone. */
  call: EdgeClient['call'];
  /** The request rate in force, per second (Infinity: no limit of the daemon's own). */
  ratePerSecond(): number;
  /** True when a local stand-in (the bundled simulator) serves as the upstream. */
  local: boolean;
  apiUrl: string;
  /**
   * Sends `token` from the next request on (a reload that read a rotated
   * upstream.token_file); registers it with the log's masking first.
   */
  rotateToken(token: string): void;
  /** Closes the client's connections and stops the stand-in it started. */
  stop(): Promise<void>;
}

interface UpstreamOptions {
  observer?: ClientObserver;
  /** Sends through this instead of the one built from upstream.proxy_url / the environment and upstream.tls (tests). */
  dispatcher?: Dispatcher;
  /** Host name resolution of the built dispatcher (default node's): tests make a name fail to resolve without asking DNS. */
  lookup?: LookupFunction;
  /** A running stand-in for a config without upstream.api_url, owned by the caller (stop() leaves it running). */
  local?: LocalUpstream;
  /** Starts one for a config without upstream.api_url when `local` is not given; stop() stops it. */
  startLocal?: StartLocalUpstream;
}

export async function openUpstream(config: Config, logger: Logger, options: UpstreamOptions = {}): Promise<Upstream> {
  const up = config.upstream;
  let local: LocalUpstream | undefined;
  let started: LocalUpstream | undefined;
  if (up.api_url === undefined) {
    if (options.local) local = options.local;
    else if (options.startLocal) local = started = await options.startLocal(config, logger);
  }
  const endpoint = outboundEndpoint(config, 'upstream', local?.url);
  if (endpoint === undefined) throw new InternalError('upstream.api_url is not set and no local upstream (the bundled simulator) was given to start');
  const apiUrl = endpoint.url;
  const token = local?.token ?? up.token ?? '';
  const network = upstreamNetwork(config, endpoint, logger, options);
  // The token came from upstream.token_file (load refuses it next to upstream.token or EDGE_API_TOKEN).
  const tokenFile = local === undefined ? up.token_file : undefined;
  let current = token;
  const edge = new EdgeClient({
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
    dispatcher: network.dispatcher,
    proxy: endpoint.route,
    ...(options.observer ? { observer: options.observer } : {}),
  });
  return {
    client: readClient(edge),
    call: edge.call.bind(edge),
    ratePerSecond: () => edge.ratePerSecond,
    local: local !== undefined,
    apiUrl,
    rotateToken(next: string) {
      addLogSecret(logger, next);
      current = next;
      edge.setToken(next);
    },
    async stop() {
      await edge.close();
      if (network.owned) await network.dispatcher.close();
      await started?.stop();
    },
  };
}

/**
 * The dispatcher the client sends through, built by outbound from the
 * upstream's endpoint (its route from upstream.proxy_url or the environment,
 * upstream.tls's files read now, so again at every reload), and the one
 * start-up line saying where requests go. The bundled simulator is on
 * loopback and is reached directly.
 */
function upstreamNetwork(
  config: Config, endpoint: Endpoint, logger: Logger, options: UpstreamOptions,
): { dispatcher: Dispatcher; owned: boolean } {
  const { url: apiUrl, route } = endpoint;
  // Every client's proxy credentials, before anything can log them (the OTLP and remote-write clients are built after this).
  for (const r of Object.values(config.proxies)) {
    for (const secret of [...proxyCredentials(r.httpProxy), ...proxyCredentials(r.httpsProxy)]) addLogSecret(logger, secret);
  }
  const loginUrl = config.upstream.login_url ?? apiUrl;
  logger.info(
    { apiUrl, ...(loginUrl === apiUrl ? {} : { loginUrl, loginProxy: via(route, loginUrl) }), proxy: via(route, apiUrl), proxySource: route.source },
    `upstream: ${apiUrl} via ${via(route, apiUrl)}`,
  );
  if (options.dispatcher) return { dispatcher: options.dispatcher, owned: false };
  const dispatcher = createDispatcher(endpoint, { connections: config.upstream.connections, ...(options.lookup ? { lookup: options.lookup } : {}) });
  return { dispatcher, owned: true };
}
