// The delivered ids' hashes on disk (delivered-minutes.ts keeps them in
// memory): one file per minute of event time in
// `<state_dir>/waf-events-delivered/<minute ms>.hashes`, 8 bytes a hash
// (little-endian doubles), appended as batches are confirmed, deleted once
// the minute leaves the look-back. Nothing is ever rewritten, so saving costs
// what was added, whatever the look-back holds: kept in the checkpoint's JSON,
// a million hashes made every snapshot a 10 MB base64 string and its JSON
// copy, 211.8 MiB peak RSS over a 1M-event backlog against 156.6 without the
// audit (section 13.2 of `git show 7888197:docs/benchmarks.md`).
//
// Appends are not fsynced. They are written before the checkpoint line that
// counts their batch, so after a process crash a batch's hashes are there
// whether or not its line is (the kernel has the write): a batch sent again
// after the crash is found delivered by a later recovery, never sent a third
// time. A power loss may lose the newest hashes while their line survives;
// a recovery of their minute then sends those records again with the same
// `log.record.uid`, counted in edge_exporter_waf_events_resent_total.
import { mkdir, open, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

const SUFFIX = '.hashes';
const NAME_RE = /^(\d+)\.hashes$/;

export class DeliveredFiles {
  constructor(readonly dir: string) {}

  /** Appends each minute's new hashes to its file. */
  async append(added: ReadonlyMap<number, readonly number[]>): Promise<void> {
    if (added.size === 0) return;
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    for (const [minute, hashes] of added) {
      if (hashes.length === 0) continue;
      const handle = await open(this.fileOf(minute), 'a', 0o600);
      try {
        await handle.write(encode(hashes));
      } finally {
        await handle.close();
      }
    }
  }

  /** One minute's hashes (undefined: no file); a torn last record is left out. */
  async read(minute: number): Promise<Float64Array | undefined> {
    try {
      return decode(await readFile(this.fileOf(minute)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** The minutes that have a file, oldest first. */
  async minutes(): Promise<number[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return names.flatMap((n) => {
      const m = NAME_RE.exec(n);
      return m?.[1] === undefined ? [] : [Number(m[1])];
    }).sort((a, b) => a - b);
  }

  /** Deletes the files of minutes before `beforeMs`. */
  async forget(beforeMs: number): Promise<void> {
    for (const minute of await this.minutes()) {
      if (minute < beforeMs) await rm(this.fileOf(minute), { force: true });
    }
  }

  /** Deletes every file (a first start, or a checkpoint reset: nothing delivered is known). */
  async clear(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  private fileOf(minute: number): string {
    return join(this.dir, `${minute}${SUFFIX}`);
  }
}

function encode(hashes: readonly number[]): Buffer {
  const bytes = Buffer.allocUnsafe(hashes.length * 8);
  for (let i = 0; i < hashes.length; i++) bytes.writeDoubleLE(hashes[i] ?? 0, i * 8);
  return bytes;
}

function decode(bytes: Buffer): Float64Array {
  const out = new Float64Array(Math.floor(bytes.length / 8));
  for (let i = 0; i < out.length; i++) out[i] = bytes.readDoubleLE(i * 8);
  return out;
}
