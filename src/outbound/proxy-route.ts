// A client's proxy route as plain strings (resolved by the config from
// proxy_url and the environment) and the NO_PROXY rule that picks the proxy
// for a target, shared by every outbound client so all decide alike.

/** Plain options an outbound client receives: '' means none (what undici's EnvHttpProxyAgent takes so it reads no variable itself). */
export interface ProxyRoute {
  /** Proxy for http:// targets ('' none). */
  readonly httpProxy: string;
  /** Proxy for https:// targets ('' none). */
  readonly httpsProxy: string;
  /** NO_PROXY list, curl's syntax ('' none). */
  readonly noProxy: string;
  /** Where it came from, for the start-up log line. */
  readonly source: 'config' | 'environment' | 'none';
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy a request to `target` goes through, or undefined for a direct
 * connection. NO_PROXY is matched as undici's EnvHttpProxyAgent matches it
 * (curl's rules): entries split on commas and spaces; `*` alone means no
 * proxy at all; `host` matches the host and its subdomains (a leading `.` or
 * `*.` is dropped); `host:port` only that port; case-insensitive; no CIDR.
 * The node:http client (OTLP) uses this; the undici clients get the same
 * strings and undici applies the same rule.
 */
export function proxyFor(route: ProxyRoute, target: string): string | undefined {
  const url = new URL(target);
  const proxy = url.protocol === 'https:' ? route.httpsProxy || route.httpProxy : route.httpProxy;
  if (proxy === '') return undefined;
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  return bypassed(route.noProxy, hostname, port) ? undefined : proxy;
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

