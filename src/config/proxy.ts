// Which proxy each outbound client (upstream, OTLP, remote-write) goes
// through, resolved here once from `<section>.proxy_url(_file)` and the
// environment, so no client reads process.env (undici's EnvHttpProxyAgent
// would) and all three decide the same way.
//
// Environment, as curl and undici read it: the lower-case name wins over the
// upper-case one (https_proxy over HTTPS_PROXY, http_proxy over HTTP_PROXY,
// no_proxy over NO_PROXY). Unlike curl, upper-case HTTP_PROXY is honoured
// (undici does; curl ignores it for the CGI "Proxy:" header problem, which a
// daemon does not have). An https:// target uses the https one, an http://
// target the http one; an empty value counts as unset. A section's
// proxy_url overrides all of them for that section: every request goes
// through it and NO_PROXY does not apply.
import type { Env } from './env.js';
import type { ProxyRoute, TlsFiles } from '../outbound/index.js';
import type { TlsBlock } from './fields.js';
import type { Config } from './schema.js';

export type { ProxyRoute };

export const NO_PROXY_ROUTE: ProxyRoute = { httpProxy: '', httpsProxy: '', noProxy: '', source: 'none' };

/** The outbound clients' routes; made by loadConfig, not a YAML key. */
export interface ProxyRoutes {
  readonly upstream: ProxyRoute;
  readonly otlp: ProxyRoute;
  readonly remote_write: ProxyRoute;
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

/** A config TLS block as the clients' plain options (shared/tls-files.ts reads the files). */
export function tlsFiles(tls: TlsBlock, label: string): TlsFiles {
  return {
    label,
    ...(tls.ca_file === undefined ? {} : { caFile: tls.ca_file }),
    ...(tls.cert_file === undefined ? {} : { certFile: tls.cert_file }),
    ...(tls.key_file === undefined ? {} : { keyFile: tls.key_file }),
    ...(tls.server_name === undefined ? {} : { serverName: tls.server_name }),
    insecureSkipVerify: tls.insecure_skip_verify,
  };
}

/** The TLS blocks in use that turn verification off, as their dotted keys (for the start-up warning and the status page). */
export function insecureTlsKeys(config: Config): string[] {
  const inUse = [
    ['upstream', config.upstream.tls],
    ['otlp', config.waf_events.enabled ? config.otlp.tls : undefined],
    ['remote_write', config.remote_write.url === undefined ? undefined : config.remote_write.tls],
  ] as const;
  return inUse.filter(([, tls]) => tls?.insecure_skip_verify === true).map(([section]) => `${section}.tls.insecure_skip_verify`);
}
