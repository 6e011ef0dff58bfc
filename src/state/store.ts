// The state directory: small JSON files that must survive a crash or power
// loss whole. A save writes a temp file beside the target, fsyncs it, renames
// it over the target and fsyncs the directory, so a reader finds either the
// old file or the new one, never a torn mix. A load never guesses: a missing
// file is a fresh start, anything unreadable is a StateError for the caller
// to act on (start-up stops, or with state_recovery: reset the damaged file is
// put aside by quarantine() and its owner starts afresh; see recovery.ts).
// A crash leaves at most one `<name>.json.tmp` per name: loads never read it
// and the next save of that name truncates and renames it away.
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';

/** Format of the envelope every state file has; bump on an incompatible change. */
export const STATE_FORMAT_VERSION = 1;
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** Platforms where a directory cannot be fsynced answer with these; the rename is still atomic there. */
const DIR_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EBADF']);

export class StateError extends Error {
  readonly code = 'EDGE_STATE';
  /** Absolute or dir-relative path of the file at fault. */
  readonly file: string;
  /** What is wrong with it, without the path. */
  readonly problem: string;
  /**
   * The file exists but its content (or a directory in its place) is unusable.
   * False for I/O failures (permissions, disk), after which the file may be intact.
   */
  readonly damaged: boolean;

  constructor(file: string, problem: string, options?: { cause?: unknown; damaged?: boolean }) {
    super(`state file ${file}: ${problem}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StateError';
    this.file = file;
    this.problem = problem;
    this.damaged = options?.damaged ?? false;
  }
}

export function isStateError(err: unknown): err is StateError {
  return err instanceof StateError;
}

/** The file operations a save performs, in order; a test replaces one to crash between steps. */
export interface StateFs {
  mkdir(path: string, mode: number): Promise<void>;
  readFile(path: string): Promise<string>;
  /** Writes and fsyncs the file before returning. */
  writeSynced(path: string, data: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  syncDir(path: string): Promise<void>;
  /** Last modification time (ms) of a file or directory, undefined when nothing is there. */
  modifiedAt(path: string): Promise<number | undefined>;
}

export const nodeStateFs: StateFs = Object.freeze<StateFs>({
  async mkdir(path, mode) {
    await fsp.mkdir(path, { recursive: true, mode });
  },
  readFile: (path) => fsp.readFile(path, 'utf8'),
  async writeSynced(path, data) {
    const handle = await fsp.open(path, 'w', 0o600);
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  rename: (from, to) => fsp.rename(from, to),
  async syncDir(path) {
    let handle: fsp.FileHandle | undefined;
    try {
      handle = await fsp.open(path, 'r');
      await handle.sync();
    } catch (err) {
      if (!DIR_SYNC_UNSUPPORTED.has(errorCode(err) ?? '')) throw err;
    } finally {
      await handle?.close();
    }
  },
  async modifiedAt(path) {
    try {
      return (await fsp.lstat(path)).mtimeMs;
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return undefined;
      throw err;
    }
  },
});

export interface StateStoreOptions {
  fs?: StateFs;
}

/** Named JSON documents in one directory; `name` becomes `<dir>/<name>.json`. */
export class StateStore {
  readonly dir: string;
  private readonly fs: StateFs;
  private created: Promise<void> | undefined;
  /** Saves of one name run one after another, so two writers never share its temp file. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(dir: string, options: StateStoreOptions = {}) {
    this.dir = dir;
    this.fs = options.fs ?? nodeStateFs;
  }

  /** Path of the file holding `name`. */
  pathOf(name: string): string {
    if (!NAME_RE.test(name)) throw new TypeError(`invalid state name ${JSON.stringify(name)}`);
    return join(this.dir, `${name}.json`);
  }

  /** Creates the directory (owner-only) if needed; a failure names it. Idempotent. */
  init(): Promise<void> {
    this.created ??= this.fs.mkdir(this.dir, 0o700).catch((err: unknown) => {
      this.created = undefined;
      throw new StateError(this.dir, `cannot create the state directory (${errorCode(err) ?? 'unknown error'})`, { cause: err });
    });
    return this.created;
  }

  /** The document, or undefined when the file does not exist; StateError when it exists but is unusable. */
  async load<T>(name: string, schema: z.ZodType<T>): Promise<T | undefined> {
    const file = this.pathOf(name);
    let text: string;
    try {
      text = await this.fs.readFile(file);
    } catch (err) {
      const code = errorCode(err);
      if (code === 'ENOENT') return undefined;
      if (code === 'EISDIR') throw new StateError(file, 'is a directory, not a file', { cause: err, damaged: true });
      throw new StateError(file, `cannot be read (${code ?? 'unknown error'})`, { cause: err });
    }
    if (text.trim() === '') throw new StateError(file, `is empty (${text.length} bytes)`, { damaged: true });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new StateError(file, 'is not valid JSON (truncated or edited?)', { cause: err, damaged: true });
    }
    const data = unwrap(file, json);
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((i) => `${['data', ...i.path.map(String)].join('.')}: ${i.message}`);
      throw new StateError(file, `does not hold what it should (${issues.join('; ')})`, { damaged: true });
    }
    return parsed.data;
  }

  /**
   * Renames the file of `name` (whatever is there, a directory too) to
   * `<name>.json.damaged-<UTC time>`, never over an earlier one, so a damaged
   * file is kept for inspection and never deleted. Returns the new path and
   * when the file was last written.
   */
  async quarantine(name: string, now: number = Date.now()): Promise<{ keptAs: string; lastWrittenMs: number | undefined }> {
    const file = this.pathOf(name);
    try {
      const lastWrittenMs = await this.fs.modifiedAt(file);
      if (lastWrittenMs === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
      const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
      let keptAs = `${file}.damaged-${stamp}`;
      for (let n = 2; (await this.fs.modifiedAt(keptAs)) !== undefined; n++) keptAs = `${file}.damaged-${stamp}-${n}`;
      await this.fs.rename(file, keptAs);
      await this.fs.syncDir(this.dir);
      return { keptAs, lastWrittenMs };
    } catch (err) {
      throw new StateError(file, `cannot be moved aside (${errorCode(err) ?? 'unknown error'})`, { cause: err });
    }
  }

  /** Atomically replaces the document (see the file comment). */
  save(name: string, value: unknown): Promise<void> {
    const file = this.pathOf(name);
    const text = `${JSON.stringify({ version: STATE_FORMAT_VERSION, data: value })}\n`;
    const previous = this.queues.get(name) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.write(file, text));
    const tail = next.catch(() => undefined);
    this.queues.set(name, tail);
    void tail.then(() => {
      if (this.queues.get(name) === tail) this.queues.delete(name);
    });
    return next;
  }

  private async write(file: string, text: string): Promise<void> {
    await this.init();
    const temp = `${file}.tmp`;
    try {
      await this.fs.writeSynced(temp, text);
      await this.fs.rename(temp, file);
      await this.fs.syncDir(this.dir);
    } catch (err) {
      throw new StateError(file, `cannot be written (${errorCode(err) ?? 'unknown error'})`, { cause: err });
    }
  }
}

/** Checks the envelope `{ version, data }` and returns `data`. */
function unwrap(file: string, json: unknown): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json) || !('version' in json) || !('data' in json)) {
    throw new StateError(file, 'is not an edge-exporter state file (expected {"version": ..., "data": ...})', { damaged: true });
  }
  if (json.version !== STATE_FORMAT_VERSION) {
    throw new StateError(
      file,
      `has format version ${JSON.stringify(json.version)}; this edge-exporter reads version ${STATE_FORMAT_VERSION}`,
      { damaged: true },
    );
  }
  return json.data;
}

function errorCode(err: unknown): string | undefined {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  return typeof code === 'string' ? code : undefined;
}
