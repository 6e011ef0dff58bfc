// What the status page says about the network besides the collectors' own
// errors: a warning per TLS block with certificate checks off, and the last
// connection failure of each outbound client that is not the upstream (OTLP
// logs and metrics, remote-write), taken from the structured lines those clients log (a
// `hint` field marks a failed connection). Lives as long as the daemon.
import { insecureTlsKeys, outboundEndpoint, type Config } from '../../config/index.js';
import { via, type Endpoint } from '../../outbound/index.js';

/** The narrow logger the OTLP sink and the remote-write sender write to. */
export interface OutboundLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** The OTLP logs (with waf_events enabled), remote-write and OTLP metrics clients' start-up lines (the upstream's is openUpstream's). */
/** The WAF records' route (an account's OTLP log sink), when it forwards them. */
export function logOtlpRoute(otlp: Endpoint | undefined, logger: RouteLogger): void {
  if (otlp === undefined) return;
  const { url: endpoint, route } = otlp;
  const demo = otlp.local ? ' (the demo\'s receiver: confirms every record, keeps none; set otlp.endpoint for a collector)' : '';
  logger.info({ endpoint, proxy: via(route, endpoint), proxySource: route.source }, `otlp: ${endpoint} via ${via(route, endpoint)}${demo}`);
}

/** The routes of the push pipes that are on (the daemon's, once for every account). */
export function logPipeRoutes(config: Config, logger: RouteLogger): void {
  for (const name of ['remote_write', 'otlp_metrics'] as const) {
    // Undefined for a pipe that is off.
    const endpoint = outboundEndpoint(config, name);
    if (endpoint === undefined) continue;
    const { url, route } = endpoint;
    const temporality = name === 'otlp_metrics' ? ` (${config.otlp_metrics.temporality}, ${config.otlp_metrics.protocol})` : '';
    logger.info({ url, proxy: via(route, url), proxySource: route.source }, `${name}: ${url} via ${via(route, url)}${temporality}`);
  }
}

interface RouteLogger {
  info(obj: object, msg?: string): void;
}

export function insecureWarning(key: string): string {
  return `${key} is true: certificates are not verified, so anyone on the network path can read and change this traffic; for tests only`;
}

export class OutboundNotices {
  private readonly failures = new Map<string, { readonly at: number; readonly text: string }>();
  /** While the upstream throttles the daemon: since when, and the answer that started it. */
  private throttled: { readonly at: number; readonly host: string; readonly status: number } | undefined;

  /**
   * `logger` with its lines about failed connections also kept for the status
   * page, under `client`: warnings, and the debug lines of each failed attempt
   * (a failure spell warns once), so the page shows the latest.
   */
  watch(client: 'otlp' | 'remote_write' | 'otlp_metrics', logger: OutboundLogger): OutboundLogger {
    const note = (obj: object): void => {
      const text = failureText(obj);
      if (text !== undefined) this.failures.set(client, { at: Date.now(), text });
    };
    return {
      debug: (obj, msg) => {
        note(obj);
        logger.debug(obj, msg);
      },
      info: (obj, msg) => logger.info(obj, msg),
      error: (obj, msg) => logger.error(obj, msg),
      warn: (obj, msg) => {
        note(obj);
        logger.warn(obj, msg);
      },
    };
  }

  /**
   * A failed run of a job the collectors table does not list (the WAF event
   * job): its upstream connection failure, under `client`. The message of an
   * EDGE_NETWORK error is already the address, cause, proxy and hint.
   */
  recordRun(client: 'waf_events', error: { readonly code: string; readonly message: string } | undefined): void {
    if (error?.code === 'EDGE_NETWORK') this.failures.set(client, { at: Date.now(), text: error.message });
  }

  /** Throttling started (the answer that started it) or ended (undefined); a reload's new client starts unthrottled. */
  throttling(started: { readonly host: string; readonly status: number } | undefined): void {
    this.throttled = started === undefined ? undefined : { at: Date.now(), ...started };
  }

  /**
   * The lines for the status page under `config` (the one in force): the
   * certificate-check warnings of the clients `clients` names (an account's:
   * its upstream and OTLP log sink; the daemon's: the push pipes), throttling
   * and the failures kept here.
   */
  notices(config: Config, clients: readonly OutboundClient[]): string[] {
    const warnings = insecureKeysOf(config, clients).map(insecureWarning);
    const t = this.throttled;
    const throttled = t === undefined ? [] : [
      `upstream: throttled since ${new Date(t.at).toISOString()} (HTTP ${t.status} from ${t.host}): requests wait for Retry-After and the request rate is lowered ` +
        '(edge_exporter_upstream_rate_limit_per_second); data is late, not lost',
    ];
    const failures = [...this.failures].map(([client, f]) => `${client}: last connection failure at ${new Date(f.at).toISOString()}: ${f.text}`);
    return [...warnings, ...throttled, ...failures];
  }
}

/** The outbound clients by config section: an account's own, and the push pipes every account shares. */
type OutboundClient = 'upstream' | 'otlp' | 'otlp_metrics' | 'remote_write';
export const ACCOUNT_CLIENTS: readonly OutboundClient[] = ['upstream', 'otlp'];
export const PIPE_CLIENTS: readonly OutboundClient[] = ['otlp_metrics', 'remote_write'];

/** `insecureTlsKeys` of the named clients only. */
export function insecureKeysOf(config: Config, clients: readonly OutboundClient[]): string[] {
  return insecureTlsKeys(config).filter((key) => clients.some((client) => key.startsWith(`${client}.`)));
}

function failureText(obj: object): string | undefined {
  const fields = obj as Record<string, unknown>;
  if (typeof fields['hint'] !== 'string') return undefined;
  const text = fields['error'] ?? fields['err'];
  return typeof text === 'string' ? text : undefined;
}
