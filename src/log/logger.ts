// The daemon's structured log: pino JSON lines, or the same lines made
// readable by pino-pretty for a terminal. Secrets are kept out two ways:
// well-known secret-bearing keys are censored by path, and every literal
// secret value is scrubbed from the finished line, so a token that leaks into
// an error message or a URL is masked too. Every time pino writes is ISO 8601
// in UTC (`…Z`, an offset); times the platform reads in its own zone are
// logged with that zone's offset by the code that logs them (PlatformClock.formatIso).
import { pino } from 'pino';
import { prettyFactory } from 'pino-pretty';
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
  /** json or pretty; when omitted, pretty if the destination is a terminal (isTTY), json otherwise. */
  format?: 'json' | 'pretty' | undefined;
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
  const destination = options.destination ?? process.stdout;
  const format = options.format ?? (isTerminal(destination) ? 'pretty' : 'json');
  const logger = pino(pinoOptions, format === 'pretty' ? prettyDestination(destination) : destination);
  Object.defineProperty(logger, SECRET_MASK, { value: mask });
  return logger;
}

function isTerminal(stream: pino.DestinationStream): boolean {
  return 'isTTY' in stream && stream.isTTY === true;
}

/**
 * pino-pretty's formatter (prettyFactory) called in pino's own write: each
 * JSON line, already scrubbed of secrets by the streamWrite hook, is written
 * to the destination in its readable form before the log call returns, the
 * path a JSON line takes, with nothing in between to flush at exit. Not pino's
 * `transport` (a worker thread: lines still queued there are lost when the
 * process exits or crashes, and a test cannot capture them from an in-memory
 * stream), nor pino-pretty's stream form (a split2/pump pipeline in front of
 * the destination, which buffers under backpressure and ends or destroys the
 * destination, stdout, with itself). The time is shown as pino wrote it
 * (translateTime: false), so both formats carry the same ISO 8601 time; pid
 * and hostname are left out of the terminal view. Colours only on a terminal.
 */
function prettyDestination(destination: pino.DestinationStream): pino.DestinationStream {
  const pretty = prettyFactory({
    colorize: isTerminal(destination), translateTime: false, ignore: 'pid,hostname', singleLine: true,
  });
  return { write: (line: string) => destination.write(pretty(line)) };
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
