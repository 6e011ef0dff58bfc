// What a failed connection comes to, for a person: the address tried, the
// errno or TLS reason found by walking `cause` (undici and node:http wrap the
// socket's error), a proxy's refusal with its status, and one hint naming the
// setting to look at. Used by every outbound client, so the upstream, OTLP
// and remote-write failures read alike in the log and on the status page.
import { EdgeError } from '../shared/errors.js';
import type { OutboundName } from './endpoint.js';

interface NetCause {
  /** host:port tried (the proxy's when the proxy could not be reached); never credentials. */
  readonly address: string;
  /** errno or TLS code (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED...), or PROXY_REFUSED. */
  readonly reason: string;
  /** The proxy's status when it refused the request or the CONNECT. */
  readonly proxyStatus?: number;
  readonly hint: string;
}

const URL_KEYS: Readonly<Record<OutboundName, string>> = {
  upstream: 'upstream.api_url', otlp: 'otlp.endpoint', otlp_metrics: 'otlp_metrics.endpoint', remote_write: 'remote_write.url',
};

const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE',
]);

// undici says so only in its message: `Proxy response (407) !== 200 when HTTP Tunneling`, `Proxy Authentication Required (407)`.
const PROXY_STATUS_RE = /^Proxy (?:response \((\d{3})\) !== 200|Authentication Required \((\d{3})\))/;

/**
 * Describes `error` for a request to `url` (through `proxy`, masked, when
 * one is in use). The reason is the deepest errno-like code in the chain
 * (undici's own UND_ERR_* only when nothing deeper says more).
 */
export function describeNetCause(error: unknown, url: string, section: OutboundName, proxy: string | undefined): NetCause {
  let reason: string | undefined;
  let address: string | undefined;
  let proxyStatus: number | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth += 1) {
    const node = current as { code?: unknown; message?: unknown; address?: unknown; port?: unknown; hostname?: unknown; cause?: unknown };
    const status = typeof node.message === 'string' ? PROXY_STATUS_RE.exec(node.message) : null;
    if (status) proxyStatus = Number(status[1] ?? status[2]);
    if (typeof node.code === 'string' && (reason === undefined || !node.code.startsWith('UND_ERR'))) reason = node.code;
    if (typeof node.address === 'string' && typeof node.port === 'number') address = hostPort(node.address, node.port);
    else if (address === undefined && typeof node.hostname === 'string') address = hostPort(node.hostname, portOf(proxy ?? url));
    current = node.cause;
  }
  if (proxyStatus !== undefined) reason = 'PROXY_REFUSED';
  const finalReason = reason ?? 'unknown';
  return {
    address: address ?? urlAddress(url),
    reason: finalReason,
    ...(proxyStatus === undefined ? {} : { proxyStatus }),
    hint: hintFor(finalReason, section, proxy !== undefined, proxyStatus),
  };
}

/** A failed connection as every client reports it: the line netCauseText makes, its parts, and the proxy in use (masked). */
interface ConnectionFailure extends NetCause {
  readonly message: string;
  readonly proxy?: string;
}

/** `error` of a request to `url` by the `name` client, through `proxy` (masked) when one is in use, described once for every client. */
export function connectionFailure(error: unknown, name: OutboundName, url: string, proxy: string | undefined): ConnectionFailure {
  const cause = describeNetCause(error, url, name, proxy);
  return { message: netCauseText(cause, proxy), ...cause, ...(proxy === undefined ? {} : { proxy }) };
}

/** A proxy's refusal in the words undici uses, for a client whose proxy agent hands it on as an answer (node:http's), so both read alike. */
export class ProxyRefusal extends EdgeError {
  readonly code = 'EDGE_PROXY_REFUSED';
  constructor(status: number) {
    super(`Proxy response (${status}) !== 200 when HTTP Tunneling`);
  }
}

/** One line a log or the status page can show: `cannot reach HOST:PORT (REASON) via PROXY: HINT`. */
export function netCauseText(cause: NetCause, proxy: string | undefined): string {
  const status = cause.proxyStatus === undefined ? '' : `, proxy answered HTTP ${cause.proxyStatus}`;
  return `cannot reach ${cause.address} (${cause.reason}${status})${proxy === undefined ? '' : ` via proxy ${proxy}`}: ${cause.hint}`;
}

function hintFor(reason: string, section: OutboundName, viaProxy: boolean, proxyStatus: number | undefined): string {
  const proxyKeys = `HTTPS_PROXY / ${section}.proxy_url`;
  // 407 asks for credentials; some proxies (tinyproxy) answer wrong ones 401.
  if (proxyStatus === 407 || proxyStatus === 401) {
    return `the proxy wants (other) credentials: put them in the proxy URL (http://user:password@host:port) in ${section}.proxy_url or ${section}.proxy_url_file, or HTTPS_PROXY`;
  }
  if (proxyStatus !== undefined) return 'the proxy refused to connect to the target: check that it allows this host and port';
  if (reason === 'ENOTFOUND' || reason === 'EAI_AGAIN') {
    return viaProxy
      ? `the proxy's host name does not resolve: check its address (${proxyKeys})`
      : `the host name does not resolve: check DNS, or whether this network reaches the internet only through a proxy (${proxyKeys})`;
  }
  if (UNTRUSTED.has(reason)) return `the certificate is not signed by a trusted CA: add the CA that signed it (a corporate TLS-inspection CA) with ${section}.tls.ca_file`;
  if (reason === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the certificate does not name this host: check the host in ${URL_KEYS[section]}, or set ${section}.tls.server_name`;
  if (reason === 'CERT_HAS_EXPIRED' || reason === 'CERT_NOT_YET_VALID') return 'the certificate is outside its validity period: renew it, or check this machine\'s clock';
  if (reason === 'ECONNREFUSED') {
    if (viaProxy) return `nothing accepts connections there: check the proxy's address and port (${proxyKeys})`;
    // The demo's first meeting with OTLP: it forwards WAF events to localhost:4318 whether or not a collector runs there.
    if (section === 'otlp') {
      return 'nothing accepts connections there: start an OpenTelemetry Collector (OTLP/HTTP receiver) there, or set otlp.endpoint to one that listens, ' +
        `or set waf_events.enabled: false to forward no WAF events; behind a proxy, set ${proxyKeys}`;
    }
    return `nothing accepts connections there: check the host and port of ${URL_KEYS[section]}, or whether a proxy is required (${proxyKeys})`;
  }
  if (reason === 'ECONNRESET' || reason === 'EPIPE' || reason === 'UND_ERR_SOCKET') return 'the connection was cut: a firewall, or a proxy the traffic must go through, may be in the way';
  if (reason === 'ETIMEDOUT' || reason === 'UND_ERR_CONNECT_TIMEOUT' || reason === 'EHOSTUNREACH' || reason === 'ENETUNREACH') {
    return `no route or no answer: a firewall drops the traffic, or a proxy is required (${proxyKeys})`;
  }
  return `check ${URL_KEYS[section]} and the network path (proxy: ${proxyKeys})`;
}

/** host:port a URL's requests go to (the scheme's port when it names none); never its credentials. */
export function urlAddress(url: string): string {
  return hostPort(new URL(url).hostname, portOf(url));
}

function portOf(url: string): number {
  const parsed = new URL(url);
  return Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80);
}

function hostPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}
