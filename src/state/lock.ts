// One owner per state directory. Two daemons on one state_dir would both
// forward every WAF event and overwrite each other's files, so a daemon takes
// `<state_dir>/edge-exporter.lock` before it reads or writes any state and
// holds it while it runs. The file ({pid, host, startedAt, token}) appears
// whole and atomically: it is written and fsynced under a unique temp name,
// then hard-linked into place, which fails if a lock is there (where the file
// system has no hard links, an O_EXCL create). Of any number of daemons
// starting at once exactly one wins; the others read a complete lock and name
// its holder. A lock whose holder is gone (same host, no such pid, or our own
// pid: a container restarted as pid 1) is moved aside under a `.stale-` name
// and taken over; whichever starter wins the create reports it (one log line)
// and removes it. One on another host cannot be checked and is never taken
// over, nor is a lock that cannot be parsed. restore() puts the lock back into
// a re-created directory (StateStore's onDirectoryCreated). The name is not
// `*.json`, so no state name can collide with it and no state loader reads it.
import { randomUUID } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { nodeStateFs, StateError } from './store.js';
import { errnoText } from '../shared/errno-text.js';

export const LOCK_FILE = 'edge-exporter.lock';
/** Starts that find the lock changing under them give up after this many tries (others are racing). */
const ATTEMPTS = 5;
/** Infix of a stale lock moved aside, until the winner of the create reports and removes it. */
const ASIDE = '.stale-';
/** File systems without hard links answer link() with these; the O_EXCL create is used there instead. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);
/** Tokens of the locks this process holds: a lock with our pid is stale only when it is not one of them. */
const heldHere = new Set<string>();

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** ISO time the holder took the lock. */
  readonly startedAt: string;
}

export interface StateLockOptions {
  /** Defaults to process.pid, os.hostname() and the clock; tests pose as other processes. */
  pid?: number;
  host?: string;
  now?: () => Date;
  /** Whether a pid on this host runs; defaults to process.kill(pid, 0) (EPERM counts as running). */
  isAlive?: (pid: number) => boolean;
  /** Hears of a stale lock taken over, with the warn line to log. */
  onTakeover?: (previous: LockHolder, message: string) => void;
}

export interface StateLock {
  readonly file: string;
  readonly holder: LockHolder;
  /** True while the lock file on disk is still this one. */
  verify(): Promise<boolean>;
  /** Puts the lock file back (e.g. after the directory was removed and re-created); StateLockError when another took it. */
  restore(): Promise<void>;
  /** Removes the lock file if it is still this one. Idempotent. */
  release(): Promise<void>;
}

/** The state directory is held by another process, or its lock file cannot be judged. */
export class StateLockError extends StateError {
  override readonly code = 'EDGE_STATE_LOCKED';
  /** Undefined when the lock file cannot be parsed. */
  readonly holder: LockHolder | undefined;

  constructor(file: string, message: string, holder: LockHolder | undefined) {
    super(file, message);
    this.name = 'StateLockError';
    this.message = message;
    this.holder = holder;
  }
}

/** Takes `<dir>/edge-exporter.lock`, creating the directory (owner-only) if needed. */
export async function acquireStateLock(dir: string, options: StateLockOptions = {}): Promise<StateLock> {
  const file = join(dir, LOCK_FILE);
  const me: LockHolder = { pid: options.pid ?? process.pid, host: options.host ?? hostname(), startedAt: (options.now?.() ?? new Date()).toISOString() };
  const token = randomUUID();
  const text = `${JSON.stringify({ ...me, token })}\n`;
  const isAlive = options.isAlive ?? pidRuns;
  try {
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new StateError(dir, `cannot create the state directory: ${errnoText(err)}`, { cause: err });
  }
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await createWhole(dir, file, text, me.pid)) {
      heldHere.add(token);
      for (const previous of await clearAside(dir, file, text)) options.onTakeover?.(previous, takeoverMessage(dir, previous));
      return lockOf(dir, file, me, token, text);
    }
    const found = await readOrUndefined(file);
    if (found === undefined) continue; // released or moved aside meanwhile: try again
    const parsed = parseLock(found);
    if (typeof parsed === 'string') throw new StateLockError(file, damagedMessage(dir, parsed), undefined);
    const { holder, token: theirs } = parsed;
    const stale = !heldHere.has(theirs ?? '') && holder.host === me.host && (holder.pid === me.pid || !isAlive(holder.pid));
    if (!stale) throw new StateLockError(file, heldMessage(dir, holder), holder);
    await moveAsideIfStill(dir, file, found, me.pid);
  }
  throw new StateLockError(file, `state directory ${dir}: its lock ${file} kept changing over ${ATTEMPTS} tries; other edge-exporters are starting on it at the same time. Start one only`, undefined);
}

function lockOf(dir: string, file: string, holder: LockHolder, token: string, text: string): StateLock {
  let released = false;
  return {
    file,
    holder,
    verify: async () => (await readOrUndefined(file)) === text,
    async restore() {
      if (released) return;
      await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
      if (await createWhole(dir, file, text, holder.pid)) return;
      const found = await readOrUndefined(file);
      if (found === text) return;
      const parsed = found === undefined ? 'gone again' : parseLock(found);
      if (typeof parsed === 'string') throw new StateLockError(file, damagedMessage(dir, parsed), undefined);
      throw new StateLockError(file, heldMessage(dir, parsed.holder), parsed.holder);
    },
    async release() {
      if (released) return;
      released = true;
      heldHere.delete(token);
      if ((await readOrUndefined(file)) !== text) return;
      await fsp.rm(file, { force: true });
      await syncDir(dir);
    },
  };
}

/** Writes `text` to a unique temp file and links it into place: true if it is now the lock, false if one was there. */
async function createWhole(dir: string, file: string, text: string, pid: number): Promise<boolean> {
  const temp = `${file}.tmp-${pid}-${randomUUID().slice(0, 8)}`;
  try {
    await writeSynced(temp, text, 'w');
    await fsp.link(temp, file);
  } catch (err) {
    const code = codeOf(err);
    if (code === 'EEXIST') return false;
    if (!NO_LINKS.has(code ?? '')) throw new StateError(file, `cannot be created: ${errnoText(err)}`, { cause: err });
    if (!(await createExclusive(file, text))) return false;
  } finally {
    await fsp.rm(temp, { force: true });
  }
  await syncDir(dir);
  return true;
}

/** The O_EXCL fallback; a reader may briefly see it empty (and refuse, which is the right answer then too). */
async function createExclusive(file: string, text: string): Promise<boolean> {
  try {
    await writeSynced(file, text, 'wx');
    return true;
  } catch (err) {
    if (codeOf(err) === 'EEXIST') return false;
    throw new StateError(file, `cannot be created: ${errnoText(err)}`, { cause: err });
  }
}

/**
 * Moves the lock aside only if it still holds `stale`: renamed to a unique
 * `.stale-` name first, so two starters that both judged it stale cannot both
 * remove it; a live lock taken by mistake (created after we read) is linked
 * back. A stale one is left aside for the winner of the create to report
 * (clearAside), which may be another starter: so exactly one logs it.
 */
async function moveAsideIfStill(dir: string, file: string, stale: string, pid: number): Promise<void> {
  const aside = `${file}${ASIDE}${pid}-${randomUUID().slice(0, 8)}`;
  try {
    await fsp.rename(file, aside);
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return; // another starter moved it
    throw new StateError(file, `stale lock cannot be moved aside: ${errnoText(err)}`, { cause: err });
  }
  if ((await readOrUndefined(aside)) === stale) return;
  await fsp.link(aside, file).catch(() => undefined);
  await fsp.rm(aside, { force: true });
  await syncDir(dir);
}

/** Removes the stale locks moved aside (by us or a starter that lost the create), returning their holders to log. */
async function clearAside(dir: string, file: string, ours: string): Promise<LockHolder[]> {
  const previous: LockHolder[] = [];
  for (const name of (await fsp.readdir(dir)).filter((n) => n.startsWith(`${LOCK_FILE}${ASIDE}`)).sort()) {
    const path = join(dir, name);
    const text = await readOrUndefined(path);
    const parsed = text === undefined || text === ours ? undefined : parseLock(text);
    if (parsed !== undefined && typeof parsed !== 'string') previous.push(parsed.holder);
    await fsp.rm(path, { force: true });
  }
  if (previous.length > 0) await syncDir(dir);
  return previous;
}

function parseLock(text: string): { holder: LockHolder; token: string | undefined } | string {
  if (text.trim() === '') return `it is empty (${text.length} bytes)`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  if (typeof json !== 'object' || json === null) return 'it is not a JSON object';
  const { pid, host, startedAt, token } = json as Record<string, unknown>;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return 'it names no valid pid';
  if (typeof host !== 'string' || host === '' || typeof startedAt !== 'string') return 'it names no host or start time';
  return { holder: { pid, host, startedAt }, token: typeof token === 'string' ? token : undefined };
}

function heldMessage(dir: string, h: LockHolder): string {
  return (
    `state directory ${dir} is held by pid ${h.pid} on host ${h.host} since ${h.startedAt}; another edge-exporter is running on it ` +
    `(two would both forward every WAF event and overwrite each other's files). Stop it, or point this one at another state_dir; ` +
    `if that process is gone (another host), remove ${join(dir, LOCK_FILE)}`
  );
}

function damagedMessage(dir: string, problem: string): string {
  return (
    `state directory ${dir} has a lock file ${join(dir, LOCK_FILE)} that cannot be read (${problem}); another edge-exporter may be ` +
    `starting on it this moment, or one died while taking it. Refusing to start rather than run two on one directory: ` +
    `if no edge-exporter is running on it, remove ${join(dir, LOCK_FILE)}`
  );
}

function takeoverMessage(dir: string, h: LockHolder): string {
  return `state directory ${dir}: took over the lock of pid ${h.pid} on host ${h.host} (since ${h.startedAt}), which no longer runs`;
}

function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return codeOf(err) !== 'ESRCH';
  }
}

async function writeSynced(path: string, text: string, flags: 'w' | 'wx'): Promise<void> {
  const handle = await fsp.open(path, flags, 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (err) {
    await handle.close();
    if (flags === 'wx') await fsp.rm(path, { force: true }); // a half-written lock would read as damaged
    throw err;
  }
  await handle.close();
}

async function readOrUndefined(file: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return undefined;
    throw new StateError(file, `cannot be read: ${errnoText(err)}`, { cause: err });
  }
}

async function syncDir(dir: string): Promise<void> {
  await nodeStateFs.syncDir(dir);
}

function codeOf(err: unknown): string | undefined {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  return typeof code === 'string' ? code : undefined;
}
