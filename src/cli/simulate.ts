// `edge-exporter simulate`: serves the bundled upstream simulator on one port
// (it answers for both the api and the login host) until SIGINT/SIGTERM, or
// until `signal` aborts when main already turned those signals into one.
import { parseArgs } from 'node:util';
import { createSimulator, DEFAULT_TOKEN } from '../simulator/index.js';
import { parseListen, UsageError } from './args.js';

export const SIMULATE_USAGE = 'simulate [--listen HOST:PORT] [--seed N] [--domains N] [--token T]';

export async function simulateCommand(argv: string[], out: NodeJS.WritableStream, signal?: AbortSignal): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      listen: { type: 'string', default: '127.0.0.1:9400' },
      seed: { type: 'string', default: '1' },
      domains: { type: 'string', default: '20' },
      token: { type: 'string', default: DEFAULT_TOKEN },
    },
    strict: true,
    allowPositionals: false,
  });
  const { host, port } = parseListen(values.listen);
  const seed = integer('--seed', values.seed, 0);
  const domains = integer('--domains', values.domains, 1);
  if (values.token.trim() === '') throw new UsageError('--token must not be empty');
  const sim = createSimulator({ seed, domains, tokens: [{ token: values.token, permissions: '*' }] });
  const { url } = await sim.listen(host, port);
  out.write(`simulator listening on ${url} (use it as both the api and the login URL)\n`);
  // A simulator token is a test credential, so showing it is harmless and saves a lookup.
  out.write(`token: ${values.token}${values.token === DEFAULT_TOKEN ? ' (default; change with --token)' : ' (from --token)'}; seed ${seed}, ${domains} domains\n`);
  await stopped(signal);
  await sim.close();
  out.write('simulator stopped\n');
  return 0;
}

function integer(flag: string, text: string, min: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`${flag} must be an integer >= ${min}, got "${text}"`);
  return n;
}

function stopped(signal: AbortSignal | undefined): Promise<void> {
  if (signal) {
    return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }
  return new Promise((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
