// What machine the numbers came from, read at run time (docs/benchmarks.md quotes it).
import { spawnSync } from 'node:child_process';
import os from 'node:os';

export function machineMarkdown(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const load = os.loadavg().map((l) => l.toFixed(2)).join(', ');
  return [
    `- CPUs: ${os.availableParallelism()} (nproc) × ${cpu.trim()}`,
    `- Memory: ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB total, ${(os.freemem() / 2 ** 30).toFixed(1)} GiB free`,
    `- Node ${process.version}, ${os.type()} ${os.release()} (${os.arch()})`,
    `- Load average at start (1/5/15 min): ${load}`,
    `- Date: ${new Date().toISOString()}`,
  ].join('\n');
}

/** First line of `command args` (e.g. `nginx -v`), or undefined when it cannot run. */
export function toolVersion(command: string, args: readonly string[]): string | undefined {
  const out = spawnSync(command, args, { encoding: 'utf8', timeout: 5_000 });
  if (out.error !== undefined) return undefined;
  // nginx -v prints to stderr; wrk -v exits non-zero but prints its version.
  return `${out.stdout}${out.stderr}`.split('\n').find((l) => l.trim() !== '')?.trim();
}
