// Small helpers shared by the sub-commands' argument handling.
import { parseHostPort } from '../config/fields.js';

/** Thrown for a wrong command line; main prints it with the usage and exits 2. */
export class UsageError extends Error {
  readonly code = 'EDGE_USAGE';
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
