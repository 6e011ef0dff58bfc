// `log:` — the daemon's own structured log (pino, JSON lines on stdout).
import { z } from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

export const logSchema = z.strictObject({
  level: z.enum(LOG_LEVELS).default('info').describe('Least severe level written: fatal, error, warn, info, debug or trace (default info).'),
});
