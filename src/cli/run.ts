// `edge-exporter run [--config FILE]`: the daemon. Until the collectors land it
// brings up the upstream (starting the bundled simulator when configured),
// checks that the token works, and waits for SIGTERM.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log/logger.js';
import { isApiError } from '../api/index.js';
import { UsageError, type Io } from './args.js';
import { openUpstream } from './upstream.js';

export const RUN_USAGE = 'usage: edge-exporter run [--config FILE]';

export async function runCommand(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { config: { type: 'string', short: 'c' } } });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const config = loadConfig({ ...(values.config === undefined ? { text: '{}' } : { file: values.config }), ...(io.env ? { env: io.env } : {}) });
  const logger = createLogger({ level: config.log.level, secrets: [config.upstream.token ?? '', config.simulator.token], destination: io.stdout });
  const upstream = await openUpstream(config, logger);
  try {
    const packages = await upstream.client.getPackages({}, { signal });
    logger.info({ apiUrl: upstream.apiUrl, packages: packages.data?.length ?? 0 }, 'upstream reachable');
  } catch (err) {
    // Not fatal: the upstream may come up later; the collectors will retry.
    logger.warn({ err: isApiError(err) ? { code: err.code, message: err.message } : err }, 'upstream check failed');
  }
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  logger.info('shutting down');
  await upstream.close();
  return 0;
}
