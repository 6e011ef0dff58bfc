// The daemon's structured log: pino JSON lines. Secrets are kept out two ways:
// well-known secret-bearing keys are censored by path, and every literal
// secret value is scrubbed from the finished line, so a token that leaks into
// an error message or a URL is masked too.
import { pino } from 'pino';
import { REDACTED, SecretMask } from './redact.js';

export { redactSecrets } from './redact.js';

export type Logger = pino.Logger;

interface CreateLoggerOptions {
  /** pino level name: fatal, error, warn, info, debug, trace (or silent). */
  level: string;
  /** Literal values to mask anywhere in a line, e.g. the API token; values shorter than 4 characters are ignored. */
  secrets?: readonly string[];
  /** Where lines go; stdout when omitted. */
  destination?: pino.DestinationStream;
}

/** Keys whose values are always censored, at the depths they commonly appear (headers of requests, undici/axios errors). */
const REDACT_PATHS: readonly string[] = [
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

/** Where a logger made by createLogger keeps its secrets; its children inherit it (pino makes a child with Object.create). */
const SECRET_MASK = Symbol('edge-exporter.secretMask');

export function createLogger(options: CreateLoggerOptions): Logger {
  const mask = new SecretMask(options.secrets ?? []);
  const pinoOptions: pino.LoggerOptions = {
    level: options.level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    // Always installed, so a secret added later (addLogSecret) is masked too.
    hooks: { streamWrite: (line: string) => mask.scrub(line) },
  };
  const logger = options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
  Object.defineProperty(logger, SECRET_MASK, { value: mask });
  return logger;
}

/**
 * Masks `secret` in every line `logger`, its parent and all their children
 * write from now on (a token read again at run time). Call it before the
 * secret can reach anything that logs. False when nothing was added: the
 * logger was not made by createLogger (it masks nothing), or the secret is
 * too short to mask or masked already.
 */
export function addLogSecret(logger: Logger, secret: string): boolean {
  // Reflect.get follows the prototype chain, so a child logger finds its root's mask.
  const mask: unknown = Reflect.get(logger, SECRET_MASK);
  return mask instanceof SecretMask ? mask.add(secret) : false;
}
