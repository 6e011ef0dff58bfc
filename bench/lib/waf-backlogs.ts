// `npm run bench -- waf` without --events: the issue's one run. Each backlog
// (default 1M and 5M deny events) is forwarded by `bench/waf.ts --events=N`
// in a node of its own started with the daemon's NODE_FLAGS (what `npm start`
// and the image pass), so peak RSS and CPU are the daemon's as shipped, not a
// bare node's. With --base=REV the same runs are made on a checkout of REV
// (a temporary git worktree sharing this node_modules), alternating base and
// this tree per backlog so both see the same minutes of a shared machine.
// Prints each run's own report, then one table: before and after side by side.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { ROOT } from './child.js';
import { fmtInt, table } from './stats.js';

/** The issue's 200 MB, in bytes (190.7 MiB): the reports print MiB. */
const TARGET_RSS_BYTES = 200_000_000;
const MIB = 1024 * 1024;

export const DEFAULT_BACKLOGS: readonly number[] = [1_000_000, 5_000_000];

interface Figures {
  readonly forwarded: number;
  readonly eventsPerS: number;
  readonly cpuUs: number;
  readonly rssMiB: number;
  readonly windows: number;
}

interface Tree {
  readonly label: string;
  readonly dir: string;
}

/** The single run's report lines this reads (bench/waf.ts's table, the same in older trees). */
function figuresOf(report: string): Figures {
  const number = (pattern: RegExp): number => {
    const match = pattern.exec(report);
    if (match?.[1] === undefined) throw new Error(`bench waf: no ${String(pattern)} in the run's report`);
    return Number(match[1].replaceAll(',', ''));
  };
  return {
    forwarded: number(/([\d,]+) forwarded in/),
    windows: number(/forwarded in [^,]+, (\d+) windows/),
    eventsPerS: number(/\| events\/s overall \(wall\) \| ([\d,]+) \|/),
    cpuUs: number(/\| daemon CPU per delivered event \| ([\d.]+) µs/),
    rssMiB: number(/\| peak RSS \| ([\d.]+) MiB \|/),
  };
}

function runTree(tree: Tree, events: number, passthrough: readonly string[]): Promise<Figures> {
  const args = [...NODE_FLAGS, '--import', 'tsx', join(tree.dir, 'bench/waf.ts'), `--events=${events}`, ...passthrough];
  process.stdout.write(`### ${fmtInt(events)} events, ${tree.label}\n\n\`node ${args.join(' ').replaceAll(`${tree.dir}/`, '')}\` (in ${tree.dir})\n\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: tree.dir, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      process.stdout.write(chunk);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      process.stdout.write('\n');
      if (code !== 0) reject(new Error(`bench waf --events=${events} in ${tree.dir} exited ${code}`));
      else resolve(figuresOf(out));
    });
  });
}

/** A worktree of `rev` in the temp dir, with this tree's node_modules; removed by the returned function. */
async function checkout(rev: string): Promise<{ tree: Tree; remove: () => Promise<void> }> {
  const dir = join(await mkdtemp(join(tmpdir(), 'edge-bench-base-')), 'tree');
  execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, rev], { stdio: 'ignore' });
  if (!existsSync(join(dir, 'node_modules'))) await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const short = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  return {
    tree: { label: `before (${short})`, dir },
    remove: async () => {
      execFileSync('git', ['-C', ROOT, 'worktree', 'remove', '--force', dir], { stdio: 'ignore' });
      await rm(join(dir, '..'), { recursive: true, force: true });
    },
  };
}

export async function compareBacklogs(backlogs: readonly number[], base: string | undefined, passthrough: readonly string[]): Promise<number> {
  const head = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const after: Tree = { label: `after (${head}${execFileSync('git', ['-C', ROOT, 'status', '--porcelain'], { encoding: 'utf8' }).trim() === '' ? '' : ', with local changes'})`, dir: ROOT };
  const before = base === undefined ? undefined : await checkout(base);
  process.stdout.write(`## WAF backlogs under the daemon's node flags (${NODE_FLAGS.join(' ')})\n\n`);
  const rows: Array<Array<string | number>> = [];
  try {
    for (const events of backlogs) {
      for (const tree of before === undefined ? [after] : [before.tree, after]) {
        const f = await runTree(tree, events, passthrough);
        const cpuOk = f.cpuUs <= 50;
        const rssOk = f.rssMiB * MIB < TARGET_RSS_BYTES;
        rows.push([fmtInt(events), tree.label, fmtInt(f.forwarded), f.windows, fmtInt(f.eventsPerS), `${f.cpuUs.toFixed(1)} µs${cpuOk ? '' : ' (over 50)'}`, `${f.rssMiB.toFixed(1)} MiB${rssOk ? '' : ' (over 200 MB)'}`]);
      }
    }
  } finally {
    await before?.remove();
  }
  process.stdout.write(`### Summary\n\nTargets: daemon CPU ≤ 50 µs per delivered event (20,000/s per core), peak RSS < 200 MB (190.7 MiB). A run over a target is marked, not failed: the figures are the result.\n\n${table(
    ['backlog', 'tree', 'forwarded', 'windows', 'events/s (wall)', 'daemon CPU per event', 'peak RSS'], rows)}\n`);
  return 0;
}
