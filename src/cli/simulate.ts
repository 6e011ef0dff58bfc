// `edge-exporter simulate`: serves the bundled upstream simulator on one port
// (it answers for both the api and the login host) until SIGINT/SIGTERM, or
// until `signal` aborts when main already turned those signals into one.
// --config takes the seed, domains, token and readings from a config file's
// `simulator:` section, so a demo can play the same readings as an in-process
// run; flags given on the command line win.
import { loadConfig } from '../config/index.js';
import { createSimulator, DEFAULT_READINGS, DEFAULT_TOKEN, type BudgetSettings, type Readings } from '../simulator/index.js';
import { parseCommandLine, parseListen, UsageError } from './args.js';

export const SIMULATE_USAGE = 'usage: edge-exporter simulate [--config FILE] [--listen HOST:PORT] [--seed N] [--domains N] [--token TOKEN]';

interface FromConfig {
  seed?: number;
  domains?: number;
  token?: string;
  readings?: Partial<Readings>;
  budget?: BudgetSettings;
}

export async function simulateCommand(argv: string[], out: NodeJS.WritableStream, signal?: AbortSignal): Promise<number> {
  const { values } = parseCommandLine({
    args: argv,
    options: {
      config: { type: 'string', short: 'c' },
      listen: { type: 'string', default: '127.0.0.1:9400' },
      seed: { type: 'string' },
      domains: { type: 'string' },
      token: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const { host, port } = parseListen(values.listen);
  const file: FromConfig = values.config === undefined ? {} : fromConfig(values.config);
  const seed = values.seed === undefined ? (file.seed ?? 1) : integer('--seed', values.seed, 0);
  const domains = values.domains === undefined ? (file.domains ?? 20) : integer('--domains', values.domains, 1);
  const token = values.token ?? file.token ?? DEFAULT_TOKEN;
  if (token.trim() === '') throw new UsageError('--token must not be empty');
  const sim = createSimulator({
    seed, domains, tokens: [{ token, permissions: '*' }], ...(file.readings ? { readings: file.readings } : {}),
    ...(file.budget ? { budget: file.budget } : {}),
  });
  const { url } = await sim.listen(host, port);
  out.write(`simulator listening on ${url} (use it as both the api and the login URL)\n`);
  // A simulator token is a test credential, so showing it is harmless and saves a lookup.
  out.write(`token: ${token}${tokenOrigin(token, values.token)}; seed ${seed}, ${domains} domains\n`);
  const changed = changedReadings(sim.readings.get());
  if (changed.length > 0) out.write(`readings: ${changed.join(', ')}\n`);
  const budget = sim.budget.get();
  if (budget) out.write(`request budget: ${budget.perSecond} per second, refused with 429 and Retry-After\n`);
  await stopped(signal);
  await sim.close();
  out.write('simulator stopped\n');
  return 0;
}

function fromConfig(file: string): FromConfig {
  const { seed, domains, token, readings, request_budget: budget } = loadConfig({ file }).simulator;
  return { seed, domains, token, readings, ...(budget ? { budget } : {}) };
}

function tokenOrigin(token: string, flag: string | undefined): string {
  if (flag !== undefined) return ' (from --token)';
  return token === DEFAULT_TOKEN ? ' (default; change with --token)' : ' (from --config)';
}

/** The readings that differ from their defaults, as key=JSON, for the start-up line. */
function changedReadings(readings: Readings): string[] {
  return (Object.keys(DEFAULT_READINGS) as Array<keyof Readings>)
    .filter((k) => JSON.stringify(readings[k]) !== JSON.stringify(DEFAULT_READINGS[k]))
    .map((k) => `${k}=${JSON.stringify(readings[k])}`);
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
