// The undici transport of an endpoint (the upstream's, remote-write's):
// undici's own proxy agent (EnvHttpProxyAgent) given the route as explicit
// strings, so it reads no environment variable itself, and the endpoint's TLS
// material both directly (`connect`) and through a proxy's CONNECT tunnel
// (`requestTls`). An http:// URL goes to an http:// proxy in absolute-form
// (proxyTunnel: false); an https:// one always through CONNECT.
import type { LookupFunction } from 'node:net';
import { EnvHttpProxyAgent, type Dispatcher } from 'undici';
import type { Endpoint } from './endpoint.js';
import { proxyTls, readTlsFiles } from './tls-files.js';

interface DispatcherOptions {
  /** Pooled connections per origin (default: undici's, no limit). */
  readonly connections?: number;
  /**
   * Host name resolution for direct connections (default node's dns.lookup).
   * For tests that need a name not to resolve without asking a DNS server.
   */
  readonly lookup?: LookupFunction;
}

/** Reads the endpoint's TLS files now (throws TlsFileError naming the one that cannot be read). */
export function createDispatcher(endpoint: Endpoint, options: DispatcherOptions = {}): Dispatcher {
  const { route } = endpoint;
  const tls = readTlsFiles(endpoint.tls, `${endpoint.name}.tls`);
  const lookup = options.lookup === undefined ? {} : { lookup: options.lookup };
  return new EnvHttpProxyAgent({
    httpProxy: route.httpProxy,
    httpsProxy: route.httpsProxy,
    noProxy: route.noProxy,
    ...(options.connections === undefined ? {} : { connections: options.connections }),
    proxyTunnel: false,
    connect: { ...tls, ...lookup },
    requestTls: tls,
    proxyTls: { ...proxyTls(tls), ...lookup },
  });
}
