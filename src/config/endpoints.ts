// Each outbound client's section (upstream, otlp, otlp_metrics,
// remote_write) resolved into the Endpoint its transport is built from
// (src/outbound): the URL, the proxy route from `<section>.proxy_url(_file)`
// and the environment, and the `tls` block. The one place the config's outbound keys become the clients'
// options. The WAF log query has no section of its own: it goes to
// upstream.login_url through the upstream's endpoint.
//
// Environment, as curl and undici read it: the lower-case name wins over the
// upper-case one (https_proxy over HTTPS_PROXY, http_proxy over HTTP_PROXY,
// no_proxy over NO_PROXY). Unlike curl, upper-case HTTP_PROXY is honoured
// (undici does; curl ignores it for the CGI "Proxy:" header problem, which a
// daemon does not have). An https:// URL uses the https one, an http:// URL
// the http one; an empty value counts as unset. A section's proxy_url
// overrides all of them for that section: every request goes through it and
// NO_PROXY does not apply. Resolved here once, so no client reads process.env
// (undici's EnvHttpProxyAgent would) and all decide the same way.
import type { z } from 'zod';
import { directEndpoint, type Endpoint, type OutboundName, type ProxyRoute, type ProxyRoutes, type TlsFiles } from '../outbound/index.js';
import type { Env } from './env.js';
import type { TlsBlock } from './fields.js';
import type { Config, configSchema } from './schema.js';
import { metricsUrlOf } from './sections/otlp-metrics.js';
import { DEFAULT_OTLP_ENDPOINT } from './sections/waf-events.js';

type Parsed = z.output<typeof configSchema>;

/**
 * Each section's own URL (otlp.endpoint and otlp_metrics.endpoint also from
 * the OTEL_* variables, mapped onto them at load). Undefined: the client has
 * no URL of its own; for otlp_metrics that means it is off, since on it
 * always has one (its own, derived or the default).
 */
const URL_OF: Readonly<Record<OutboundName, (config: Config) => string | undefined>> = {
  upstream: (config) => config.upstream.api_url,
  otlp: (config) => config.otlp.endpoint,
  otlp_metrics: (config) => (config.otlp_metrics.enabled ? otlpMetricsUrl(config) : undefined),
  remote_write: (config) => config.remote_write.url,
};

/** Where OTLP metrics go, enabled or not: otlp_metrics.endpoint, else what otlp.endpoint implies (see the key's description). */
export function otlpMetricsUrl(config: Pick<Config, 'otlp' | 'otlp_metrics'>): string {
  return config.otlp_metrics.endpoint ?? metricsUrlOf(config.otlp.endpoint);
}

/** Where a client goes when neither its section nor a stand-in gives a URL. */
const DEFAULT_URL: Partial<Record<OutboundName, string>> = { otlp: DEFAULT_OTLP_ENDPOINT };

/**
 * The endpoint of the `name` client: the section's URL with its proxy route
 * and tls block. Where the section sets no URL of its own, `standIn`, a
 * loopback stand-in the daemon started (the bundled simulator, the demo's
 * receiver), reached directly without the tls block, comes before otlp's
 * default. Undefined when there is neither (no api_url; no remote_write.url
 * or otlp_metrics not enabled: nothing is pushed).
 */
export function outboundEndpoint(config: Config, name: 'otlp', standIn?: string): Endpoint;
export function outboundEndpoint(config: Config, name: OutboundName, standIn?: string): Endpoint | undefined;
export function outboundEndpoint(config: Config, name: OutboundName, standIn?: string): Endpoint | undefined {
  const own = URL_OF[name](config);
  if (own === undefined && standIn !== undefined) return directEndpoint(name, standIn, true);
  const url = own ?? DEFAULT_URL[name];
  if (url === undefined) return undefined;
  const tls = config[name].tls;
  return { name, url, route: config.proxies[name], ...(tls === undefined ? {} : { tls: tlsFiles(tls) }), local: false };
}

/** The TLS blocks in use that turn verification off, as their dotted keys (for the start-up warning and the status page). */
export function insecureTlsKeys(config: Config): string[] {
  const inUse = [
    ['upstream', config.upstream.tls],
    ['otlp', config.waf_events.enabled ? config.otlp.tls : undefined],
    ['otlp_metrics', config.otlp_metrics.enabled ? config.otlp_metrics.tls : undefined],
    ['remote_write', config.remote_write.url === undefined ? undefined : config.remote_write.tls],
  ] as const;
  return inUse.filter(([, tls]) => tls?.insecure_skip_verify === true).map(([section]) => `${section}.tls.insecure_skip_verify`);
}

/** Every section's route: its proxy_url (from `urls`, what the proxy_url_files held, or the YAML) when set, else the environment's. */
export function resolveProxies(config: Parsed, urls: Partial<Record<OutboundName, string>>, env: Env): ProxyRoutes {
  const environment = proxyEnvironment(env);
  const route = (name: OutboundName): ProxyRoute => proxyRoute(urls[name] ?? config[name].proxy_url, environment);
  return { upstream: route('upstream'), otlp: route('otlp'), otlp_metrics: route('otlp_metrics'), remote_write: route('remote_write') };
}

/** The environment's proxy variables, read as described above. */
export function proxyEnvironment(env: Env): ProxyRoute {
  const pick = (lower: string, upper: string): string => nonEmpty(env[lower]) ?? nonEmpty(env[upper]) ?? '';
  const httpProxy = pick('http_proxy', 'HTTP_PROXY');
  const httpsProxy = pick('https_proxy', 'HTTPS_PROXY');
  const noProxy = pick('no_proxy', 'NO_PROXY');
  return { httpProxy, httpsProxy, noProxy, source: httpProxy === '' && httpsProxy === '' ? 'none' : 'environment' };
}

/** A section's route: its own proxy_url when set, else the environment's. */
export function proxyRoute(proxyUrl: string | undefined, environment: ProxyRoute): ProxyRoute {
  if (proxyUrl === undefined) return environment;
  return { httpProxy: proxyUrl, httpsProxy: proxyUrl, noProxy: '', source: 'config' };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** A config TLS block as the transports' plain options (outbound reads the files). */
function tlsFiles(tls: TlsBlock): TlsFiles {
  return {
    ...(tls.ca_file === undefined ? {} : { caFile: tls.ca_file }),
    ...(tls.cert_file === undefined ? {} : { certFile: tls.cert_file }),
    ...(tls.key_file === undefined ? {} : { keyFile: tls.key_file }),
    ...(tls.server_name === undefined ? {} : { serverName: tls.server_name }),
    insecureSkipVerify: tls.insecure_skip_verify,
  };
}
