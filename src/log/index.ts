// The exporter's logging: a pino logger that never prints a secret, and the
// same masking for plain text (CLI messages on stderr).
export { addLogSecret, createLogger, REDACT_PATHS } from './logger.js';
export type { CreateLoggerOptions, Logger } from './logger.js';
export { MIN_SECRET_LENGTH, REDACTED, SecretMask, credentialParts, redactSecrets } from './redact.js';
