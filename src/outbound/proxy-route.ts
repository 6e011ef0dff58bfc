// A client's proxy route as plain strings (resolved by the config from
// proxy_url and the environment) and the NO_PROXY rule that picks the proxy
// for a URL, shared by every outbound client so all decide alike.
import { maskUrl } from './url-credentials.js';

/** Plain options an outbound client receives: '' means none (what undici's EnvHttpProxyAgent takes so it reads no variable itself). */
export interface ProxyRoute {
  /** Proxy for http:// URLs ('' none). */
  readonly httpProxy: string;
  /** Proxy for https:// URLs ('' none). */
  readonly httpsProxy: string;
  /** NO_PROXY list, curl's syntax ('' none). */
  readonly noProxy: string;
  /** Where it came from, for the start-up log line. */
  readonly source: 'config' | 'environment' | 'none';
}

/** No proxy: every request goes direct. */
export const DIRECT: ProxyRoute = { httpProxy: '', httpsProxy: '', noProxy: '', source: 'none' };

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy a request to `url` goes through, or undefined for a direct
 * connection. NO_PROXY is matched as undici's EnvHttpProxyAgent matches it
 * (curl's rules): entries split on commas and spaces; `*` alone means no
 * proxy at all; `host` matches the host and its subdomains (a leading `.` or
 * `*.` is dropped); `host:port` only that port; case-insensitive; no CIDR.
 * The node:http client (OTLP) uses this; the undici clients get the same
 * strings and undici applies the same rule.
 */
export function proxyFor(route: ProxyRoute, url: string): string | undefined {
  const parsed = new URL(url);
  const proxy = parsed.protocol === 'https:' ? route.httpsProxy || route.httpProxy : route.httpProxy;
  if (proxy === '') return undefined;
  const hostname = parsed.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(parsed.port, 10) || DEFAULT_PORTS[parsed.protocol] || 0;
  return bypassed(route.noProxy, hostname, port) ? undefined : proxy;
}

/** The proxy a request to `url` goes through as it may be shown (credentials masked), or undefined when direct. */
export function shownProxy(route: ProxyRoute, url: string): string | undefined {
  const proxy = proxyFor(route, url);
  return proxy === undefined ? undefined : maskUrl(proxy);
}

/** Where a request to `url` goes, as a start-up line says it: the proxy (masked) or `direct`. */
export function via(route: ProxyRoute, url: string): string {
  return shownProxy(route, url) ?? 'direct';
}

function bypassed(noProxy: string, hostname: string, port: number): boolean {
  if (noProxy.trim() === '*') return true;
  for (const entry of noProxy.split(/[,\s]/)) {
    if (entry === '') continue;
    const withPort = /^(.+):(\d+)$/.exec(entry);
    const host = (withPort?.[1] ?? entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = withPort?.[2] === undefined ? 0 : Number(withPort[2]);
    if (entryPort !== 0 && entryPort !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return true;
  }
  return false;
}

