// The dispatcher the upstream client sends through: undici's own proxy agent
// (EnvHttpProxyAgent) given the route as explicit strings, so it reads no
// environment variable itself, and the TLS material for the upstream both
// directly (`connect`) and through a proxy's CONNECT tunnel (`requestTls`).
// An http:// target goes to an http:// proxy in absolute-form (proxyTunnel:
// false); an https:// target always through CONNECT.
import type { LookupFunction } from 'node:net';
import { EnvHttpProxyAgent, type Dispatcher } from 'undici';
import type { ProxyRoute } from './proxy-route.js';
import type { TlsMaterial } from './tls-files.js';

interface DispatcherOptions {
  /** Pooled connections per origin. */
  readonly connections: number;
  readonly proxy: ProxyRoute;
  readonly tls: TlsMaterial;
  /**
   * Host name resolution for direct connections (default node's dns.lookup).
   * For tests that need a name not to resolve without asking a DNS server.
   */
  readonly lookup?: LookupFunction;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { proxy, tls } = options;
  // A CA file is for the target (a TLS-inspecting proxy's CA); an https:// proxy is verified against the same roots.
  const proxyTls = { ...(tls.ca === undefined ? {} : { ca: tls.ca }), rejectUnauthorized: tls.rejectUnauthorized };
  return new EnvHttpProxyAgent({
    httpProxy: proxy.httpProxy,
    httpsProxy: proxy.httpsProxy,
    noProxy: proxy.noProxy,
    connections: options.connections,
    proxyTunnel: false,
    connect: { ...tls, ...(options.lookup === undefined ? {} : { lookup: options.lookup }) },
    requestTls: tls,
    proxyTls: { ...proxyTls, ...(options.lookup === undefined ? {} : { lookup: options.lookup }) },
  });
}
