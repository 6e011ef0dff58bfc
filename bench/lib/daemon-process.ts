// The daemon as production runs it: `edge-exporter run --config FILE` in its
// own process (tsx, from the project root, or the built dist), with real schedules. Its JSON log
// lines on stdout are kept, parsed, for the benchmark to read run starts and
// durations from; ready once it logs the /metrics URL. Stopped with SIGTERM by
// its pid (SIGKILL if it does not exit within 15 s).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { ROOT } from './child.js';

export interface LogLine {
  readonly time: number;
  readonly level: string;
  readonly msg: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface DaemonProcess {
  /** Full /metrics URL. */
  readonly metricsUrl: string;
  readonly pid: number;
  /** Every log line so far, in order. */
  lines(): readonly LogLine[];
  /** Resolves with the first line (from `after` on) `match` accepts, or undefined after `timeoutMs`. */
  waitFor(match: (line: LogLine) => boolean, timeoutMs: number, after?: number): Promise<LogLine | undefined>;
  stop(): Promise<void>;
}

function parse(text: string): LogLine | undefined {
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    return { time: Date.parse(String(json.time)), level: String(json.level), msg: String(json.msg ?? ''), fields: json };
  } catch {
    return undefined;
  }
}

/**
 * The daemon under `nodeFlags`: by default the ones `npm start` and the image
 * pass (src/cli/node-flags.ts). `built` runs dist/cli/main.js with plain node
 * (what `npm start` and the Dockerfile run; `npm run build` first) instead of
 * the sources under tsx.
 */
export async function startDaemon(configFile: string, readyTimeoutMs = 60_000, built = false, nodeFlags: readonly string[] = NODE_FLAGS): Promise<DaemonProcess> {
  const entry = built ? [join(ROOT, 'dist/cli/main.js')] : ['--import', 'tsx', join(ROOT, 'src/cli/main.ts')];
  const child = spawn(process.execPath, [...nodeFlags, ...entry, 'run', '--config', configFile], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = parse(text);
    if (line === undefined) return;
    lines.push(line);
    for (const wake of waiters) wake();
  });
  const waitFor = (match: (line: LogLine) => boolean, timeoutMs: number, after = 0): Promise<LogLine | undefined> =>
    new Promise((resolve) => {
      const check = (): void => {
        const found = lines.slice(after).find(match);
        if (found === undefined && child.exitCode === null) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        resolve(undefined);
      }, timeoutMs);
      waiters.add(check);
      void exited.then(check);
      check();
    });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  const ready = await waitFor((l) => l.msg === 'serving metrics', readyTimeoutMs);
  const url = ready?.fields.url;
  if (typeof url !== 'string' || child.pid === undefined) {
    await stop();
    throw new Error(`the daemon did not log its metrics URL within ${readyTimeoutMs / 1000} s`);
  }
  return { metricsUrl: url, pid: child.pid, lines: () => lines, waitFor, stop };
}
