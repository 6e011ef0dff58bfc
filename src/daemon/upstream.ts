// Wires the configured upstream: the real account, or the bundled simulator
// started in-process when no api_url is configured.
import type { Dispatcher } from 'undici';
import { EdgeClient, type ClientObserver } from '../api/index.js';
import type { Config } from '../config/index.js';
import { createSimulator, type Simulator } from '../simulator/index.js';
import type { Logger } from '../log/logger.js';
import { parseHostPort } from '../config/fields.js';

export interface Upstream {
  client: EdgeClient;
  /** Present when the bundled simulator serves as the upstream. */
  simulator?: Simulator;
  apiUrl: string;
  close(): Promise<void>;
}

export interface UpstreamOptions {
  observer?: ClientObserver;
  dispatcher?: Dispatcher;
}

export async function openUpstream(config: Config, logger: Logger, options: UpstreamOptions = {}): Promise<Upstream> {
  const up = config.upstream;
  let simulator: Simulator | undefined;
  let apiUrl: string;
  let token = up.token ?? '';
  if (up.api_url !== undefined) {
    apiUrl = up.api_url;
  } else {
    const sim = config.simulator;
    simulator = createSimulator({ seed: sim.seed, domains: sim.domains, tokens: [{ token: sim.token, permissions: '*' }], readings: sim.readings });
    // simulator.listen was validated as HOST:PORT when the config loaded.
    const { host, port } = parseHostPort(sim.listen) ?? { host: '127.0.0.1', port: 0 };
    ({ url: apiUrl } = await simulator.listen(host, port));
    token = sim.token;
    logger.info({ url: apiUrl, domains: sim.domains, seed: sim.seed }, 'bundled simulator listening (set upstream.api_url or EDGE_API_URL for a real account)');
  }
  const client = new EdgeClient({
    apiUrl,
    loginUrl: up.login_url ?? apiUrl,
    token,
    authScheme: up.auth_scheme,
    timeoutMs: up.timeout,
    maxBodyBytes: up.max_body_bytes,
    concurrency: up.concurrency,
    connections: up.connections,
    orderRateLimit: up.order_rate_limit,
    retry: { attempts: up.retry.attempts, minDelayMs: up.retry.min_delay, maxDelayMs: up.retry.max_delay },
    paths: up.paths ?? {},
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
  });
  return {
    client,
    ...(simulator ? { simulator } : {}),
    apiUrl,
    async close() {
      await client.close();
      await simulator?.close();
    },
  };
}
