// Finding (and, as root, installing from Debian) the external programs the
// scrape benchmark compares against: nginx for the static-file floor, wrk for
// throughput. Without them the benchmark still runs and says what is missing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const SEARCH = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', '/sbin', '/bin'];

/** Absolute path of `name`, looking in the sbin directories a non-root PATH lacks. */
function findTool(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':').filter((d) => d !== ''), ...SEARCH];
  return dirs.map((d) => `${d}/${name}`).find((p) => existsSync(p));
}

export interface Tools {
  readonly nginx?: string;
  readonly wrk?: string;
  /** What was installed or why something is missing, for the report. */
  readonly notes: readonly string[];
}

/**
 * Installs the missing Debian packages when running as root (bounded to
 * five minutes); otherwise returns a note with the command to run.
 */
export function ensureTools(packages: readonly ('nginx' | 'wrk')[]): Tools {
  const notes: string[] = [];
  const missing = packages.filter((p) => findTool(p) === undefined);
  if (missing.length > 0) {
    if (process.getuid?.() === 0) {
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
      const opts = { stdio: 'ignore', timeout: 300_000, env } as const;
      // An install can fail on a stale package list; update once and retry.
      let install = spawnSync('apt-get', ['install', '-y', '-qq', ...missing], opts);
      if (install.status !== 0) {
        spawnSync('apt-get', ['update', '-qq'], opts);
        install = spawnSync('apt-get', ['install', '-y', '-qq', ...missing], opts);
      }
      notes.push(install.status === 0 ? `installed with apt-get: ${missing.join(', ')}` : `apt-get install ${missing.join(' ')} failed`);
    } else {
      notes.push(`not found: ${missing.join(', ')}; install with \`sudo apt-get install -y ${missing.join(' ')}\``);
    }
  }
  const nginx = findTool('nginx');
  const wrk = findTool('wrk');
  return { ...(nginx ? { nginx } : {}), ...(wrk ? { wrk } : {}), notes };
}
