// The daemon's structured log: pino JSON lines. Secrets are kept out two ways:
// well-known secret-bearing keys are censored by path, and every literal
// secret value is scrubbed from the finished line, so a token that leaks into
// an error message or a URL is masked too.
import { pino } from 'pino';
import { REDACTED, scrub, secretForms } from './redact.js';

export { redactSecrets } from './redact.js';

export type Logger = pino.Logger;

export interface CreateLoggerOptions {
  /** pino level name: fatal, error, warn, info, debug, trace (or silent). */
  level: string;
  /** Literal values to mask anywhere in a line, e.g. the API token; values shorter than 4 characters are ignored. */
  secrets?: readonly string[];
  /** Where lines go; stdout when omitted. */
  destination?: pino.DestinationStream;
}

/** Keys whose values are always censored, at the depths they commonly appear (headers of requests, undici/axios errors). */
export const REDACT_PATHS: readonly string[] = [
  'token',
  '*.token',
  '*.*.token',
  'access_token',
  '*.access_token',
  'authorization',
  'Authorization',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  'req.headers.authorization',
  'req.headers.Authorization',
  'request.headers.authorization',
  'request.headers.Authorization',
  'err.config.headers.authorization',
  'err.config.headers.Authorization',
  'err.cause.config.headers.authorization',
  'err.cause.config.headers.Authorization',
  'password',
  '*.password',
  'sslKey',
  '*.sslKey',
];

export function createLogger(options: CreateLoggerOptions): Logger {
  const forms = secretForms(options.secrets ?? []);
  const pinoOptions: pino.LoggerOptions = {
    level: options.level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    ...(forms.length > 0 ? { hooks: { streamWrite: (line: string) => scrub(line, forms) } } : {}),
  };
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}

/** TEMPORARY until i13-token lands. */
export function addSecrets(_logger: Logger, _secrets: readonly string[]): void {}
