// Runs promtool: `check metrics` on an exposition, `check rules` and `test rules` on rule files. A missing promtool is an error, never a pass.
import { spawn } from 'node:child_process';

interface PromtoolResult {
  /** promtool exited 0 (no lint problems, no parse errors). */
  readonly ok: boolean;
  /** stdout and stderr together; empty for a clean exposition. */
  readonly output: string;
}

interface PromtoolOptions {
  /** Default: $PROMTOOL, else `promtool` on PATH. */
  readonly bin?: string;
  readonly timeoutMs?: number;
}

/** `promtool check metrics` on an exposition given on stdin; a clean one prints nothing. */
export function checkMetrics(text: string, options: PromtoolOptions = {}): Promise<PromtoolResult> {
  return runPromtool(['check', 'metrics'], { timeoutMs: 10_000, ...options, input: text });
}

/** Runs promtool with `args` (and `input` on stdin); a missing promtool rejects, a failed check resolves with ok false. */
function runPromtool(args: readonly string[], options: PromtoolOptions & { readonly input?: string } = {}): Promise<PromtoolResult> {
  const bin = options.bin ?? process.env.PROMTOOL ?? 'promtool';
  const timeoutMs = options.timeoutMs ?? 60_000;
  const what = `promtool ${args.slice(0, 2).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not finish within ${timeoutMs} ms`));
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
    if (child.stdin) {
      // promtool may exit before reading everything (on a parse error); that is a result, not a failure.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
  });
}

/** `promtool check rules` with every lint check, lint findings fatal. */
export function checkRules(files: readonly string[], options: PromtoolOptions = {}): Promise<PromtoolResult> {
  return runPromtool(['check', 'rules', '--lint=all', '--lint-fatal', ...files], options);
}

/** `promtool test rules`: the unit tests in `files` (rule_files resolve relative to each test file). */
export function testRules(files: readonly string[], options: PromtoolOptions = {}): Promise<PromtoolResult> {
  return runPromtool(['test', 'rules', ...files], options);
}
