// `log:` — the daemon's own structured log (pino, on stdout; stderr with --once).
import { z } from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
const LOG_FORMATS = ['json', 'pretty'] as const;

export const logSchema = z.strictObject({
  level: z.enum(LOG_LEVELS).default('info').describe('Least severe level written: fatal, error, warn, info, debug or trace (default info).'),
  // No schema default: the default depends on where the log goes, known only when the logger is made (src/log/logger.ts).
  format: z.enum(LOG_FORMATS).optional().describe(
    'json: one JSON object per line, for a log collector; pretty: one readable, coloured line per entry (pino-pretty), for a person at a terminal. ' +
    'Default: pretty when the stream the log is written to (stdout; stderr with --once) is a terminal, json otherwise. Read at start-up: a reload does not change it.',
  ),
});
