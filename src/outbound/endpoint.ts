// One outbound client's endpoint as the config resolved it: where its
// requests go, the proxy route to it, the TLS block to verify it with, and the
// client's name, which every hint, message and log line about it uses. Each
// transport (dispatcher.ts, node-agent.ts) is built from this alone, so an
// option every client honours is declared with the outbound keys
// (config/fields.ts), resolved into this (config/endpoints.ts) and applied by
// the transports, and no client or wiring in between changes.
//
// A request timeout is not part of it: the clients' timeouts are three things
// (one upstream attempt; one OTLP logs export with the SDK's retries; one
// push POST, remote-write's or OTLP metrics'), each checked and documented by
// its client.
import { DIRECT, type ProxyRoute } from './proxy-route.js';
import type { TlsFiles } from './tls-files.js';

/** The outbound clients, each by its config section. */
export const OUTBOUND_NAMES = ['upstream', 'otlp', 'otlp_metrics', 'remote_write'] as const;
export type OutboundName = (typeof OUTBOUND_NAMES)[number];

/** Every outbound client's proxy route, by its name (the config resolves them at load). */
export type ProxyRoutes = Readonly<Record<OutboundName, ProxyRoute>>;

export interface Endpoint {
  /** The client's config section: names its keys in hints (`otlp.tls.ca_file`) and in messages about its TLS files. */
  readonly name: OutboundName;
  /** Where requests go. The upstream's WAF log host (login_url) is reached by the same route and TLS. */
  readonly url: string;
  /** The proxies and NO_PROXY, resolved by the config from the section's proxy_url and the environment. */
  readonly route: ProxyRoute;
  /** The section's `tls` block; its files are read when a transport is built (start, reload). Absent: the system's roots. */
  readonly tls?: TlsFiles;
  /** A loopback stand-in the daemon started (the bundled simulator, the demo's OTLP receiver), reached directly without the section's TLS. */
  readonly local: boolean;
}

/** `url` reached directly, verified against the system's roots: a stand-in on loopback (`local`), or a receiver a test started. */
export function directEndpoint(name: OutboundName, url: string, local = false): Endpoint {
  return { name, url, route: DIRECT, local };
}
