// Shared by the CLI failure tests: main() in process with captured output,
// the CLI as a real child process, and "is anything listening" probes.
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import type { Io } from '../../src/cli/args.js';
import { main } from '../../src/cli/main.js';
import { Capture } from '../support/capture.js';

export { Capture };

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** main() in process with exactly `env` as the environment; resolves once main has returned. */
export async function cli(
  argv: string[], env: Record<string, string> = {}, signal = new AbortController().signal, extra: Pick<Io, 'clock'> = {},
): Promise<CliResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await main(argv, { stdout, stderr, env, ...extra }, signal);
  return { code, out: stdout.text, err: stderr.text };
}

/**
 * The CLI from source in its own process, with only PATH and `env` set; resolves
 * when the process has exited, so a handle left open shows as a timeout.
 */
export function cliProcess(argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...argv],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') return reject(err);
        resolve({ code: typeof err?.code === 'number' ? err.code : 0, out: stdout, err: stderr });
      },
    );
  });
}

/** The error code of a TCP connect to 127.0.0.1:port ('connected' when something accepted). */
export function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
}
