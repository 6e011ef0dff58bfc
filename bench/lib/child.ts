// Helper processes of the benchmarks: started with tsx from the project root,
// ready when they print one JSON line, stopped with SIGTERM by their pid.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';

/**
 * The nearest folder above `from` with a package.json. Not a fixed `../..`:
 * `npm run bench -- waf` also runs this file compiled, from
 * <root>/.bench-build/bench/lib (bench/lib/waf-backlogs.ts), and the helpers
 * it starts are the project's own sources, not that build.
 */
function projectRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const ROOT = projectRoot(dirname(fileURLToPath(import.meta.url)));

interface Child<T> {
  readonly ready: T;
  /** For /proc readings (CPU time, RSS) of the helper. */
  readonly pid: number;
  stop(): Promise<void>;
}

/** Runs `bench/lib/<script>` with `args`; resolves with its first stdout line parsed by `schema`. */
export async function startChild<S extends z.ZodType>(script: string, args: readonly string[], schema: S): Promise<Child<z.infer<S>>> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/lib', script), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const { pid } = child;
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    lines.close();
    try {
      if (pid === undefined) throw new Error(`${script} has no pid`);
      return { ready: schema.parse(JSON.parse(line)), pid, stop };
    } catch (err) {
      await stop();
      throw err;
    }
  }
  await stop();
  throw new Error(`${script} exited before it was ready`);
}
