// Runs the benchmarks and prints one Markdown report (docs/benchmarks.md
// quotes it): `npm run bench` runs the quick ones (scrape, memory, cycle),
// `npm run bench -- load soak waf waf-steady daemon-memory remote-write otlp-metrics accounts accounts-scrape` the named ones (they take
// minutes, so they run only by name); flags (e.g. --no-wrk, --hours=2) are passed on to each. Every
// benchmark runs in its own process, started with --expose-gc so the memory
// benchmark can force GC and none inherits another's heap, in its own process
// group so a time-out stops its helpers (exporter, simulator, nginx) with it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './lib/child.js';
import { machineMarkdown } from './lib/machine.js';
import { fmtMs, since, table } from './lib/stats.js';

const BENCHMARKS = ['scrape', 'memory', 'cycle', 'load', 'soak', 'waf', 'waf-steady', 'daemon-memory', 'remote-write', 'otlp-metrics', 'accounts', 'accounts-scrape'] as const;
type Name = (typeof BENCHMARKS)[number];
const QUICK: readonly Name[] = ['scrape', 'memory', 'cycle'];
/** Each stops by itself well before this; the limit only guards against a hang. A simulated day takes 10-25 min on a busy 2-core machine. */
const TIME_LIMIT_MS: Readonly<Record<Name, number>> = { scrape: 10 * 60_000, memory: 10 * 60_000, cycle: 10 * 60_000, load: 10 * 60_000, soak: 60 * 60_000, waf: 90 * 60_000, 'waf-steady': 30 * 60_000, 'daemon-memory': 30 * 60_000, 'remote-write': 10 * 60_000, 'otlp-metrics': 20 * 60_000, accounts: 15 * 60_000, 'accounts-scrape': 10 * 60_000 };

function isName(arg: string): arg is Name {
  return BENCHMARKS.some((b) => b === arg);
}

function runOne(name: Name, flags: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(ROOT, 'bench', `${name}.ts`), ...flags], {
      cwd: ROOT, stdio: 'inherit', detached: true,
    });
    const group = (signal: NodeJS.Signals): void => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, signal);
    };
    const timer = setTimeout(() => {
      process.stderr.write(`bench ${name}: over ${TIME_LIMIT_MS[name] / 60_000} min, stopping it\n`);
      group('SIGKILL');
    }, TIME_LIMIT_MS[name]);
    const interrupt = (): void => group('SIGTERM');
    process.once('SIGINT', interrupt);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      process.off('SIGINT', interrupt);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const flags = args.filter((a) => a.startsWith('--'));
  const named = args.filter((a) => !a.startsWith('--'));
  const unknown = named.filter((a) => !isName(a));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark ${unknown.join(', ')}; choose from ${BENCHMARKS.join(', ')}\n`);
    return 2;
  }
  const selected = named.length > 0 ? named.filter(isName) : [...QUICK];
  process.stdout.write(`# edge-exporter benchmarks\n\nCommand: \`npm run bench${args.length > 0 ? ` -- ${args.join(' ')}` : ''}\`\n\n${machineMarkdown()}\n\n`);
  const results: Array<[Name, number, number]> = [];
  for (const name of selected) {
    const start = performance.now();
    const code = await runOne(name, flags);
    results.push([name, code, since(start)]);
    process.stdout.write('\n');
  }
  process.stdout.write(`## Runs\n\n${table(['benchmark', 'exit code', 'wall time'], results.map(([n, c, ms]) => [n, c, fmtMs(ms)]))}\n`);
  return results.some(([, code]) => code !== 0) ? 1 : 0;
}

process.exitCode = await main();
