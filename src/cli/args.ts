// Small helpers shared by the sub-commands' argument handling.

/** Thrown for a wrong command line; main prints it with the usage and exits 2. */
export class UsageError extends Error {
  readonly code = 'EDGE_USAGE';
}

/** Splits `HOST:PORT` (IPv6 as `[::1]:9400`). */
export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new UsageError(`invalid listen address "${text}" (expected HOST:PORT, e.g. 127.0.0.1:9400)`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The environment config may read; the process environment when absent. */
  env?: Readonly<Record<string, string | undefined>>;
}
