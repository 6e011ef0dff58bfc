// The state directory: small JSON files that must survive a crash or power
// loss whole. A save writes a temp file beside the target, fsyncs it, renames
// it over the target and fsyncs the directory, so a reader finds either the
// old file or the new one, never a torn mix. A load never guesses: a missing
// file is a fresh start, anything unreadable is a StateError for the caller
// to act on (start-up stops, or with state_recovery: reset the damaged file is
// put aside by quarantine() and its owner starts afresh; see recovery.ts).
// Temp names are unique per process and per save (`<name>.json.tmp-<pid>-<n>`)
// so two writers on one directory never write into each other's temp file
// (the directory lock, lock.ts, keeps a second daemon out; this keeps a torn
// mix out even before it does). A crash can so leave several temp files:
// loads never read them, and removeLeftoverTemps() deletes them once the
// caller holds the directory lock (before that they may be a live writer's).
// A directory removed while running is re-created by the next save, which
// first lets the lock be put back (onDirectoryCreated), then retries once.
//
// Beside a document a store keeps an append-only journal (`<name>.journal`,
// journal()): NDJSON lines appended and fsynced one call at a time, so a
// small change does not rewrite a large document. Its owner folds it into
// the document now and then (save, then truncate). A crash can tear only the
// last line (no newline at its end): reads drop it and say so, and the owner
// compacts before it appends again. A journal never re-creates the
// directory: an append that fails leaves its owner to save the document,
// which does.
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { errnoText } from '../shared/errno-text.js';
import { ArgumentError, EdgeError } from '../shared/errors.js';

/** Format of the envelope every state file has; bump on an incompatible change. */
const STATE_FORMAT_VERSION = 1;
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** A temp file of this store, from this version (`-<pid>-<n>`) or an older one (bare `.tmp`). */
const TEMP_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*\.json\.tmp(-[A-Za-z0-9-]+)?$/;
/** Platforms where a directory cannot be fsynced answer with these; the rename is still atomic there. */
const DIR_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EBADF']);

/** EDGE_STATE_LOCKED: another edge-exporter holds the directory (StateLockError, lock.ts). */
type StateErrorCode = 'EDGE_STATE' | 'EDGE_STATE_LOCKED';

export class StateError extends EdgeError {
  readonly code: StateErrorCode = 'EDGE_STATE';
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
    super(`state file ${file}: ${problem}`, { cause: options?.cause });
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
  /** Names in a directory. */
  readdir(path: string): Promise<string[]>;
  /** Removes a file; a file already gone is not an error. */
  remove(path: string): Promise<void>;
  /** Appends to a file (created if missing, never its directory) and fsyncs it before returning. */
  appendSynced(path: string, data: string): Promise<void>;
  /** Empties a file and fsyncs it; a file that does not exist is created empty. */
  truncate(path: string): Promise<void>;
}

/** Opens `path` owner-only with `flags` ('w' replaces, 'a' appends), writes `data` and fsyncs before closing. */
async function writeFileSynced(path: string, flags: 'w' | 'a', data: string): Promise<void> {
  const handle = await fsp.open(path, flags, 0o600);
  try {
    if (data !== '') await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export const nodeStateFs: StateFs = Object.freeze<StateFs>({
  async mkdir(path, mode) {
    await fsp.mkdir(path, { recursive: true, mode });
  },
  readFile: (path) => fsp.readFile(path, 'utf8'),
  writeSynced: (path, data) => writeFileSynced(path, 'w', data),
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
  readdir: (path) => fsp.readdir(path),
  remove: (path) => fsp.rm(path, { force: true }),
  appendSynced: (path, data) => writeFileSynced(path, 'a', data),
  truncate: (path) => writeFileSynced(path, 'w', ''),
});

/** What a journal holds: its complete lines, parsed, and whether a torn last line was dropped. */
export interface JournalContents {
  readonly entries: unknown[];
  /** A crash cut the last append short: that line was dropped (it was never confirmed to its writer). */
  readonly torn: boolean;
}

/** An append-only NDJSON file beside a state document (StateStore.journal). */
export interface StateJournal {
  readonly path: string;
  /** Every complete line, parsed; a complete line that is not JSON is damage (StateError, damaged). */
  read(): Promise<JournalContents>;
  /** Appends one line per value and fsyncs; the directory must exist (a failure is a StateError). */
  append(values: readonly unknown[]): Promise<void>;
  /** Empties the journal (after its contents were saved into the document); fsyncs the directory if it created the file. */
  truncate(): Promise<void>;
}

export interface StateStoreOptions {
  fs?: StateFs;
  /**
   * Runs after a save found the directory gone and re-created it, before any
   * file is written into it: the daemon puts its lock back here (StateLock.restore).
   * Until it succeeds every save fails and tries it again.
   */
  onDirectoryCreated?: () => Promise<void>;
  /** Hears of a re-created directory once its hook succeeded (for a log line). */
  onDirectoryRecreated?: (dir: string) => void;
  /** Called once per failed save with the state name (the daemon counts them per file). */
  onSaveFailure?: (name: string, err: StateError) => void;
}

/** Distinguishes the saves of one process; with the pid it makes every temp name unique. */
let tempSeq = 0;

/** Named JSON documents in one directory; `name` becomes `<dir>/<name>.json`. */
export class StateStore {
  readonly dir: string;
  private readonly fs: StateFs;
  private readonly options: StateStoreOptions;
  private created: Promise<void> | undefined;
  /** Saves of one name run one after another, so the last one called is the one on disk. */
  private readonly queues = new Map<string, Promise<void>>();
  /** Temp files being written now; removeLeftoverTemps() leaves them alone. */
  private readonly activeTemps = new Set<string>();
  /** Write attempts under way, which a re-creation waits out before it writes the lock. */
  private readonly inflight = new Set<Promise<void>>();
  /** The re-creation under way; new attempts wait for it. */
  private recreation: Promise<void> | undefined;
  /** The directory was re-created but onDirectoryCreated has not yet succeeded. */
  private hookPending = false;

  constructor(dir: string, options: StateStoreOptions = {}) {
    this.dir = dir;
    this.fs = options.fs ?? nodeStateFs;
    this.options = options;
  }

  /** Path of the file holding `name`. */
  pathOf(name: string): string {
    if (!NAME_RE.test(name)) throw new ArgumentError(`invalid state name ${JSON.stringify(name)}`);
    return join(this.dir, `${name}.json`);
  }

  /** Path of the journal of `name` (`<dir>/<name>.journal`). */
  journalPathOf(name: string): string {
    if (!NAME_RE.test(name)) throw new ArgumentError(`invalid state name ${JSON.stringify(name)}`);
    return join(this.dir, `${name}.journal`);
  }

  /** The append-only journal beside the document `name` (see the file comment). */
  journal(name: string): StateJournal {
    const path = this.journalPathOf(name);
    const fail = (what: string, err: unknown): StateError => {
      const failure = isStateError(err) ? err : new StateError(path, `${what}: ${errnoText(err)}`, { cause: err });
      this.options.onSaveFailure?.(name, failure);
      return failure;
    };
    return {
      path,
      read: async () => {
        let text: string;
        try {
          text = await this.fs.readFile(path);
        } catch (err) {
          const code = errorCode(err);
          if (code === 'ENOENT') return { entries: [], torn: false };
          if (code === 'EISDIR') throw new StateError(path, 'is a directory, not a file', { cause: err, damaged: true });
          throw new StateError(path, `cannot be read: ${errnoText(err)}`, { cause: err });
        }
        const lines = text.split('\n');
        // The part after the last newline: empty, or an append a crash cut short.
        const torn = (lines.pop() ?? '') !== '';
        const entries: unknown[] = [];
        for (const [i, line] of lines.entries()) {
          try {
            entries.push(JSON.parse(line));
          } catch (err) {
            throw new StateError(path, `line ${i + 1} is not valid JSON (edited, or damaged other than by a crash)`, { cause: err, damaged: true });
          }
        }
        return { entries, torn };
      },
      append: async (values) => {
        if (values.length === 0) return;
        const text = values.map((v) => `${JSON.stringify(v)}\n`).join('');
        try {
          // A missing directory fails here (ENOENT): only a save re-creates it, with its lock.
          await this.fs.appendSynced(path, text);
        } catch (err) {
          throw fail('cannot be appended to', err);
        }
      },
      truncate: async () => {
        try {
          const existed = (await this.fs.modifiedAt(path)) !== undefined;
          await this.fs.truncate(path);
          if (!existed) await this.fs.syncDir(this.dir);
        } catch (err) {
          throw fail('cannot be truncated', err);
        }
      },
    };
  }

  /** Creates the directory (owner-only) if needed; a failure names it. Idempotent. */
  init(): Promise<void> {
    this.created ??= this.fs.mkdir(this.dir, 0o700).catch((err: unknown) => {
      this.created = undefined;
      throw new StateError(this.dir, `cannot create the state directory: ${errnoText(err)}`, { cause: err });
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
      throw new StateError(file, `cannot be read: ${errnoText(err)}`, { cause: err });
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
      if (lastWrittenMs === undefined) throw new StateError(file, `cannot be moved aside: ${errnoText({ code: 'ENOENT' })}`);
      const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
      let keptAs = `${file}.damaged-${stamp}`;
      for (let n = 2; (await this.fs.modifiedAt(keptAs)) !== undefined; n++) keptAs = `${file}.damaged-${stamp}-${n}`;
      await this.fs.rename(file, keptAs);
      // Its journal belongs to it: kept aside with it, so a new document never replays the old one's changes.
      const journal = this.journalPathOf(name);
      if ((await this.fs.modifiedAt(journal)) !== undefined) await this.fs.rename(journal, `${journal}${keptAs.slice(file.length)}`);
      await this.fs.syncDir(this.dir);
      return { keptAs, lastWrittenMs };
    } catch (err) {
      if (isStateError(err)) throw err;
      throw new StateError(file, `cannot be moved aside: ${errnoText(err)}`, { cause: err });
    }
  }

  /** Atomically replaces the document (see the file comment). */
  save(name: string, value: unknown): Promise<void> {
    const file = this.pathOf(name);
    const text = `${JSON.stringify({ version: STATE_FORMAT_VERSION, data: value })}\n`;
    const previous = this.queues.get(name) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.write(name, file, text));
    const tail = next.catch(() => undefined);
    this.queues.set(name, tail);
    void tail.then(() => {
      if (this.queues.get(name) === tail) this.queues.delete(name);
    });
    return next;
  }

  /**
   * Deletes the temp files crashed saves left (every `<name>.json.tmp*`), not
   * those of this store's saves under way. Call it only while holding the
   * directory lock: without it they may be another live writer's. Returns the
   * paths removed.
   */
  async removeLeftoverTemps(): Promise<string[]> {
    let names: string[];
    try {
      names = await this.fs.readdir(this.dir);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return [];
      throw new StateError(this.dir, `cannot be listed: ${errnoText(err)}`, { cause: err });
    }
    const removed: string[] = [];
    for (const name of names.filter((n) => TEMP_RE.test(n)).sort()) {
      const path = join(this.dir, name);
      if (this.activeTemps.has(path)) continue;
      try {
        await this.fs.remove(path);
      } catch (err) {
        throw new StateError(path, `leftover temp file cannot be removed: ${errnoText(err)}`, { cause: err });
      }
      removed.push(path);
    }
    return removed;
  }

  private async write(name: string, file: string, text: string): Promise<void> {
    try {
      await this.init();
      try {
        await this.attempt(file, text);
      } catch (err) {
        // The directory (or the temp file in it) went away under the save: bring it back and try once more.
        if (errorCode(err) !== 'ENOENT') throw err;
        await this.recreate(file);
        await this.attempt(file, text);
      }
    } catch (err) {
      const failure = isStateError(err) ? err : new StateError(file, `cannot be written: ${errnoText(err)}`, { cause: err });
      this.options.onSaveFailure?.(name, failure);
      throw failure;
    }
  }

  /** One temp write, rename and directory sync; waits first for a re-creation (and its lock) to finish. */
  private async attempt(file: string, text: string): Promise<void> {
    while (this.recreation !== undefined) await this.recreation.catch(() => undefined);
    if (this.hookPending) await this.recreate(file);
    const temp = `${file}.tmp-${process.pid}-${++tempSeq}`;
    const op = (async () => {
      this.activeTemps.add(temp);
      try {
        await this.fs.writeSynced(temp, text);
        await this.fs.rename(temp, file);
        await this.fs.syncDir(this.dir);
      } finally {
        this.activeTemps.delete(temp);
      }
    })();
    this.inflight.add(op);
    try {
      await op;
    } finally {
      this.inflight.delete(op);
    }
  }

  /**
   * Re-creates a missing directory and runs onDirectoryCreated, once for all
   * saves that ask at the same time. It first waits out the attempts already
   * under way, so none of them lands a file in the new directory before the hook ran.
   */
  private recreate(file: string): Promise<void> {
    this.recreation ??= (async () => {
      await Promise.allSettled([...this.inflight]);
      if ((await this.fs.modifiedAt(this.dir).catch(() => undefined)) === undefined) {
        try {
          await this.fs.mkdir(this.dir, 0o700);
        } catch (err) {
          throw new StateError(file, `cannot be written: the state directory ${this.dir} is gone and cannot be re-created: ${errnoText(err)}`, { cause: err });
        }
        this.hookPending = true;
      }
      if (!this.hookPending) return;
      try {
        await this.options.onDirectoryCreated?.();
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new StateError(file, `cannot be written: the state directory ${this.dir} was re-created but its lock could not be put back (${why})`, { cause: err });
      }
      this.hookPending = false;
      this.options.onDirectoryRecreated?.(this.dir);
    })().finally(() => {
      this.recreation = undefined;
    });
    return this.recreation;
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
