// `edge-exporter check-config --config FILE [--web.config.file FILE]`:
// validate without starting anything, with the web config `run` would read.
import { loadConfig } from '../config/index.js';
import { parseCommandLine, UsageError, type Io } from './args.js';

export const CHECK_CONFIG_USAGE = 'usage: edge-exporter check-config --config FILE [--web.config.file FILE]';

export async function checkConfigCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parseCommandLine({ args: argv, options: { config: { type: 'string', short: 'c' }, 'web.config.file': { type: 'string' } } });
  if (values.config === undefined) throw new UsageError('check-config needs --config FILE');
  const webConfigFile = values['web.config.file'];
  if (webConfigFile === '') throw new UsageError('--web.config.file needs a file name');
  loadConfig({ file: values.config, ...(io.env ? { env: io.env } : {}), serverFiles: true, ...(webConfigFile === undefined ? {} : { webConfigFile }) });
  io.stdout.write(`${values.config}: OK\n`);
  if (webConfigFile !== undefined) io.stdout.write(`${webConfigFile}: OK\n`);
  return 0;
}
