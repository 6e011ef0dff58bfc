// The real CLI as a child process (as an operator runs it), with everything it
// prints kept, so a test can grep all of it.
import { spawn, type ChildProcess } from 'node:child_process';

export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves to the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

/** The environment without the variables config reads, so only what a test passes counts. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(EDGE_|OTEL_)/.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

export function startCli(args: readonly string[], env: Record<string, string> = {}, preload: readonly string[] = []): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', ...preload.flatMap((p) => ['--import', p]), 'src/cli/main.ts', ...args], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => {
    out += text;
  });
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    err += text;
  });
  // 'close' rather than 'exit': by then both pipes are drained.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** The base URL the daemon logs once it serves (from its `serving metrics` line). */
export function servingUrl(stdout: string): string | undefined {
  // The last piece is empty or a line still being written.
  for (const line of stdout.split('\n').slice(0, -1)) {
    if (!line.includes('"serving metrics"')) continue;
    const { url } = JSON.parse(line) as { url?: string };
    return url?.replace(/\/metrics$/, '');
  }
  return undefined;
}

/** SIGKILL unless it already ended; for afterEach. */
export async function kill(proc: CliProcess | undefined): Promise<void> {
  if (!proc || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGKILL');
  await proc.exited;
}
