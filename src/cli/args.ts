// Small helpers shared by the sub-commands' argument handling.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseHostPort } from '../config/fields.js';
import { closest } from '../shared/closest.js';
import { EdgeError } from '../shared/errors.js';

/** Thrown for a wrong command line; main prints it with the usage of the command at fault and exits 2. */
export class UsageError extends EdgeError {
  readonly code = 'EDGE_USAGE';
}

/** `unknown operation "listDomain" (did you mean "listDomains"?)`: the one wording of every name we did not know. */
export function unknownName(what: string, name: string, known: readonly string[]): UsageError {
  const guess = closest(name, known);
  return new UsageError(`unknown ${what} "${name}"${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`);
}

/**
 * node:util parseArgs, with every refusal a UsageError: an unknown option
 * names the closest real one and lists them all (parseArgs' own message
 * only suggests `--` for a positional), other mistakes keep Node's words.
 */
export function parseCommandLine<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  const options = Object.keys(config.options ?? {});
  // A lenient pass first, only to find the options that are not ours; the strict one below reports the rest.
  const { tokens } = parseArgs({ ...config, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens ?? []) {
    if (token.kind !== 'option' || options.includes(token.name)) continue;
    const guess = closest(token.name, options);
    const known = options.length === 0 ? 'it takes no options' : `options: ${options.map((o) => `--${o}`).join(', ')}`;
    throw new UsageError(`unknown option ${token.rawName}${guess === undefined ? '' : ` (did you mean --${guess}?)`}; ${known}`);
  }
  try {
    return parseArgs(config);
  } catch (err) {
    if (err instanceof Error && String((err as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS')) throw new UsageError(err.message);
    throw err;
  }
}

/** `HOST:PORT` from the command line, or a UsageError naming the flag. */
export function parseListen(text: string, flag = '--listen'): { host: string; port: number } {
  const parsed = parseHostPort(text);
  if (!parsed) throw new UsageError(`invalid ${flag} "${text}" (expected HOST:PORT, e.g. 127.0.0.1:9400)`);
  return parsed;
}

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The environment config may read; the process environment when absent. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Filled by a command with the secrets its config holds, so main masks them in error and crash reports too. */
  secrets?: string[];
  /** Subscribes to reload requests (SIGHUP for the process); `run` re-reads its config on each. */
  onHangup?: (listener: () => void) => () => void;
  /** "Now" for the commands that read the time of day (doctor); the system clock when absent. Tests pin it to the simulator's. */
  clock?: { now(): number };
}
