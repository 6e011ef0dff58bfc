// Runs `promtool check metrics` on an exposition; a missing promtool is an error, never a pass.
import { spawn } from 'node:child_process';

export interface PromtoolResult {
  /** promtool exited 0 (no lint problems, no parse errors). */
  readonly ok: boolean;
  /** stdout and stderr together; empty for a clean exposition. */
  readonly output: string;
}

export interface PromtoolOptions {
  /** Default: $PROMTOOL, else `promtool` on PATH. */
  readonly bin?: string;
  readonly timeoutMs?: number;
}

export function checkMetrics(text: string, options: PromtoolOptions = {}): Promise<PromtoolResult> {
  const bin = options.bin ?? process.env.PROMTOOL ?? 'promtool';
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`promtool check metrics did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        error.code === 'ENOENT'
          ? new Error(`${bin} not found: run scripts/install-test-deps.sh (Debian package "prometheus") or set PROMTOOL`, { cause: error })
          : error,
      );
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, output: Buffer.concat(chunks).toString('utf8') });
    });
    // promtool may exit before reading everything (on a parse error); that is a result, not a failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
  });
}
