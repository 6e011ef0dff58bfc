// The state directory lock: one owner, a holder named on refusal, a stale
// lock taken over with a log line, never a damaged or foreign-host one, and
// exactly one winner among daemons starting at once, in one process (posing
// as others through pid/host/isAlive) and across real processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireStateLock, LOCK_FILE, StateLockError, type LockHolder, type StateLockOptions } from '../../src/state/lock.js';
import { rejectionOf } from './rejection.js';

let root: string;
let child: ChildProcess | undefined;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'edge-lock-'));
});
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
  rmSync(root, { recursive: true, force: true });
});

const T = '2026-11-25T10:00:00.000Z';
const at = (iso: string) => () => new Date(iso);
const lockPath = (dir = root): string => join(dir, LOCK_FILE);
const onDisk = (dir = root): Record<string, unknown> => JSON.parse(readFileSync(lockPath(dir), 'utf8')) as Record<string, unknown>;
const pose = (pid: number, alive: readonly number[], extra: StateLockOptions = {}): StateLockOptions => ({
  pid,
  host: 'h1',
  now: at(T),
  isAlive: (p) => alive.includes(p),
  ...extra,
});
const heldMessage = (h: LockHolder, dir = root): string =>
  `state directory ${dir} is held by pid ${h.pid} on host ${h.host} since ${h.startedAt}; another edge-exporter is running on it ` +
  `(two would both forward every WAF event and overwrite each other's files). Stop it, or point this one at another state_dir; ` +
  `if that process is gone (another host), remove ${lockPath(dir)}`;


describe('acquireStateLock', () => {
  it('creates the directory owner-only and a whole lock file naming pid, host and start; release removes it, twice is a no-op', async () => {
    const dir = join(root, 'a', 'state');
    const lock = await acquireStateLock(dir, pose(1001, []));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    expect(onDisk(dir)).toEqual({ pid: 1001, host: 'h1', startedAt: T, token: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(lock.holder).toEqual({ pid: 1001, host: 'h1', startedAt: T });
    expect(await lock.verify()).toBe(true);
    await lock.release();
    expect(readdirSync(dir)).toEqual([]);
    expect(await lock.verify()).toBe(false);
    await lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('defaults to this process: pid, os.hostname() and now', async () => {
    const lock = await acquireStateLock(root);
    expect(onDisk()).toMatchObject({ pid: process.pid, host: hostname() });
    expect(Number.isNaN(Date.parse(String(onDisk().startedAt)))).toBe(false);
    await lock.release();
  });

  it('refuses while the holder runs on this host, naming it, and leaves its lock alone', async () => {
    const first = await acquireStateLock(root, pose(1001, [1001]));
    const before = readFileSync(lockPath(), 'utf8');
    const err = await rejectionOf(acquireStateLock(root, pose(1002, [1001])), StateLockError);
    expect(err.code).toBe('EDGE_STATE_LOCKED');
    expect(err.file).toBe(lockPath());
    expect(err.holder).toEqual({ pid: 1001, host: 'h1', startedAt: T });
    expect(err.message).toBe(heldMessage({ pid: 1001, host: 'h1', startedAt: T }));
    expect(readFileSync(lockPath(), 'utf8')).toBe(before);
    expect(await first.verify()).toBe(true);
    await first.release();
  });

  it('refuses a holder on another host even when no such pid runs here (it cannot be checked)', async () => {
    writeFileSync(lockPath(), JSON.stringify({ pid: 4242, host: 'other-host', startedAt: T }));
    const err = await rejectionOf(acquireStateLock(root, pose(1002, [])), StateLockError);
    expect(err.message).toBe(heldMessage({ pid: 4242, host: 'other-host', startedAt: T }));
    expect(onDisk()).toEqual({ pid: 4242, host: 'other-host', startedAt: T });
  });

  it('takes over the lock of a pid that no longer runs on this host, and logs whose it was', async () => {
    writeFileSync(lockPath(), JSON.stringify({ pid: 4242, host: 'h1', startedAt: '2026-01-01T00:00:00.000Z' }));
    const heard: [LockHolder, string][] = [];
    const lock = await acquireStateLock(root, pose(1002, [], { onTakeover: (h, m) => heard.push([h, m]) }));
    expect(heard).toEqual([
      [
        { pid: 4242, host: 'h1', startedAt: '2026-01-01T00:00:00.000Z' },
        `state directory ${root}: took over the lock of pid 4242 on host h1 (since 2026-01-01T00:00:00.000Z), which no longer runs`,
      ],
    ]);
    expect(onDisk()).toMatchObject({ pid: 1002, host: 'h1', startedAt: T });
    expect(readdirSync(root)).toEqual([LOCK_FILE]);
    expect(await lock.verify()).toBe(true);
  });

  it('takes over a lock naming its own pid on its own host (a container restarted as pid 1), unless this process holds it', async () => {
    writeFileSync(lockPath(), JSON.stringify({ pid: 1, host: 'h1', startedAt: '2026-01-01T00:00:00.000Z' }));
    const heard: number[] = [];
    const lock = await acquireStateLock(root, pose(1, [1], { onTakeover: (h) => heard.push(h.pid) }));
    expect(heard).toEqual([1]);
    expect(onDisk()).toMatchObject({ pid: 1, startedAt: T });
    // A second start in the same process with the same pid is not a restart: the lock is live.
    const err = await rejectionOf(acquireStateLock(root, pose(1, [1])), StateLockError);
    expect(err.holder).toEqual({ pid: 1, host: 'h1', startedAt: T });
    await lock.release();
  });

  it.each([
    ['empty', '', 'it is empty (0 bytes)'],
    ['not JSON', 'pid=12', 'it is not JSON'],
    ['without a pid', JSON.stringify({ host: 'h1', startedAt: T }), 'it names no valid pid'],
    ['without a host', JSON.stringify({ pid: 12, startedAt: T }), 'it names no host or start time'],
  ])('refuses a damaged lock file (%s) and says to remove it, never taking it over', async (_what, content, problem) => {
    writeFileSync(lockPath(), content);
    const err = await rejectionOf(acquireStateLock(root, pose(1002, [])), StateLockError);
    expect(err.holder).toBeUndefined();
    expect(err.message).toBe(
      `state directory ${root} has a lock file ${lockPath()} that cannot be read (${problem}); another edge-exporter may be ` +
        `starting on it this moment, or one died while taking it. Refusing to start rather than run two on one directory: ` +
        `if no edge-exporter is running on it, remove ${lockPath()}`,
    );
    expect(readFileSync(lockPath(), 'utf8')).toBe(content);
  });

  it('release removes the file only while it is still ours', async () => {
    const lock = await acquireStateLock(root, pose(1001, []));
    const other = JSON.stringify({ pid: 7, host: 'h1', startedAt: T });
    writeFileSync(lockPath(), other);
    expect(await lock.verify()).toBe(false);
    await lock.release();
    expect(readFileSync(lockPath(), 'utf8')).toBe(other);
  });

  it('restore puts the same lock back after the directory was removed, and refuses when another took it', async () => {
    const dir = join(root, 'state');
    const lock = await acquireStateLock(dir, pose(1001, [1001, 1002]));
    const text = readFileSync(lockPath(dir), 'utf8');
    rmSync(dir, { recursive: true });
    expect(await lock.verify()).toBe(false);
    await lock.restore();
    expect(readFileSync(lockPath(dir), 'utf8')).toBe(text);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    await lock.restore(); // already there: nothing to do
    expect(readFileSync(lockPath(dir), 'utf8')).toBe(text);

    rmSync(dir, { recursive: true });
    const thief = await acquireStateLock(dir, pose(1002, [1001, 1002]));
    const err = await rejectionOf(lock.restore(), StateLockError);
    expect(err.holder).toEqual({ pid: 1002, host: 'h1', startedAt: T });
    await lock.release();
    expect(await thief.verify()).toBe(true);
  });

  it('of two daemons starting at once on an empty directory exactly one wins, the other names it (20 rounds)', async () => {
    for (let round = 0; round < 20; round++) {
      const dir = join(root, `r${round}`);
      const results = await Promise.allSettled([acquireStateLock(dir, pose(1001, [1001, 1002])), acquireStateLock(dir, pose(1002, [1001, 1002]))]);
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      expect({ round, won: won.length, lost: lost.length }).toEqual({ round, won: 1, lost: 1 });
      const winner = won[0]?.holder.pid;
      expect(lost[0]).toBeInstanceOf(StateLockError);
      expect((lost[0] as StateLockError).holder?.pid).toBe(winner);
      expect(onDisk(dir)).toMatchObject({ pid: winner });
      expect(readdirSync(dir)).toEqual([LOCK_FILE]);
      await won[0]?.release();
    }
  });

  it('of two daemons taking over one stale lock at once exactly one wins, the other names it (20 rounds)', async () => {
    for (let round = 0; round < 20; round++) {
      const dir = join(root, `r${round}`);
      mkdirSync(dir);
      writeFileSync(lockPath(dir), JSON.stringify({ pid: 4242, host: 'h1', startedAt: T, token: 'gone' }));
      const alive = [1001, 1002];
      const heard: number[] = [];
      const onTakeover = (h: LockHolder): number => heard.push(h.pid);
      const results = await Promise.allSettled([
        acquireStateLock(dir, pose(1001, alive, { onTakeover })),
        acquireStateLock(dir, pose(1002, alive, { onTakeover })),
      ]);
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      expect({ round, won: won.length, lost: lost.length, heard }).toEqual({ round, won: 1, lost: 1, heard: [4242] });
      expect((lost[0] as StateLockError).holder?.pid).toBe(won[0]?.holder.pid);
      expect(onDisk(dir)).toMatchObject({ pid: won[0]?.holder.pid });
      expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    }
  });
});

/** A second process on the directory (lock-holder.ts): resolves with its first line of output. */
function startHolder(dir: string): { proc: ChildProcess; line: Promise<string>; exited: Promise<number | null> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/state/lock-holder.ts', dir], { stdio: ['pipe', 'pipe', 'pipe'] });
  child = proc;
  let out = '';
  let err = '';
  proc.stderr?.setEncoding('utf8').on('data', (t: string) => (err += t));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const line = new Promise<string>((resolve, reject) => {
    proc.stdout?.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    proc.once('close', () => reject(new Error(`holder printed nothing: ${err}`)));
  });
  return { proc, line, exited };
}

describe('acquireStateLock across processes', () => {
  it('a second process is refused with this one named; this one is refused while the other holds it, and takes over once it is killed', async () => {
    const mine = await acquireStateLock(root);
    const second = startHolder(root);
    const startedAt = String(onDisk().startedAt);
    expect(await second.line).toBe(`refused EDGE_STATE_LOCKED ${heldMessage({ pid: process.pid, host: hostname(), startedAt })}`);
    expect(await second.exited).toBe(3);
    await mine.release();

    const holder = startHolder(root);
    expect(await holder.line).toBe('held');
    const theirs = onDisk();
    expect(theirs).toMatchObject({ pid: holder.proc.pid, host: hostname() });
    const err = await rejectionOf(acquireStateLock(root), StateLockError);
    expect(err.holder).toEqual({ pid: holder.proc.pid, host: hostname(), startedAt: theirs.startedAt });

    holder.proc.kill('SIGKILL');
    await holder.exited; // reaped: its pid no longer exists
    const heard: LockHolder[] = [];
    const taken = await acquireStateLock(root, { onTakeover: (h) => heard.push(h) });
    expect(heard).toEqual([{ pid: holder.proc.pid, host: hostname(), startedAt: theirs.startedAt }]);
    expect(onDisk()).toMatchObject({ pid: process.pid });
    await taken.release();
    expect(readdirSync(root)).toEqual([]);
  });

  it('a holder that exits cleanly releases the lock for the next one', async () => {
    const holder = startHolder(root);
    expect(await holder.line).toBe('held');
    holder.proc.stdin?.end();
    expect(await holder.exited).toBe(0);
    expect(readdirSync(root)).toEqual([]);
    await (await acquireStateLock(root)).release();
  });
});
