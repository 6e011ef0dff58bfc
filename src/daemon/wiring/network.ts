// What the status page says about the network besides the collectors' own
// errors: a warning per TLS block with certificate checks off, and the last
// connection failure of each outbound client that is not the upstream (OTLP,
// remote-write), taken from the structured warning those clients log (its
// `hint` field marks a failed connection). Lives as long as the daemon.
import { insecureTlsKeys, type Config } from '../../config/index.js';

/** The narrow logger the OTLP sink and the remote-write sender write to. */
export interface OutboundLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export function insecureWarning(key: string): string {
  return `${key} is true: certificates are not verified, so anyone on the network path can read and change this traffic; for tests only`;
}

export class OutboundNotices {
  private readonly failures = new Map<string, { readonly at: number; readonly text: string }>();

  /** `logger` with its warnings about failed connections also kept for the status page, under `client`. */
  watch(client: 'otlp' | 'remote_write', logger: OutboundLogger): OutboundLogger {
    return {
      debug: (obj, msg) => logger.debug(obj, msg),
      info: (obj, msg) => logger.info(obj, msg),
      error: (obj, msg) => logger.error(obj, msg),
      warn: (obj, msg) => {
        const text = failureText(obj);
        if (text !== undefined) this.failures.set(client, { at: Date.now(), text });
        logger.warn(obj, msg);
      },
    };
  }

  /** The lines for the status page under `config` (the one in force). */
  notices(config: Config): string[] {
    const warnings = insecureTlsKeys(config, config.waf_events.enabled).map(insecureWarning);
    const failures = [...this.failures].map(([client, f]) => `${client}: last connection failure at ${new Date(f.at).toISOString()}: ${f.text}`);
    return [...warnings, ...failures];
  }
}

function failureText(obj: object): string | undefined {
  const fields = obj as Record<string, unknown>;
  if (typeof fields['hint'] !== 'string') return undefined;
  const text = fields['message'] ?? fields['err'];
  return typeof text === 'string' ? text : undefined;
}
