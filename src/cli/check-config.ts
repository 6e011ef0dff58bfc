// `edge-exporter check-config --config FILE`: validate without starting anything.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index.js';
import { UsageError, type Io } from './args.js';

export const CHECK_CONFIG_USAGE = 'usage: edge-exporter check-config --config FILE';

export async function checkConfigCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
  if (values.config === undefined) throw new UsageError('check-config needs --config FILE');
  loadConfig({ file: values.config, ...(io.env ? { env: io.env } : {}), serverFiles: true });
  io.stdout.write(`${values.config}: OK\n`);
  return 0;
}
