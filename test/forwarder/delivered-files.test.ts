// The delivered ids' hashes on disk (delivered-files.ts): appended per minute,
// read back whole (a torn last record left out), listed, forgotten, cleared.
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveredFiles } from '../../src/forwarder/delivered-files.js';

const MIN = 60_000;
const T = Date.UTC(2026, 2, 2, 4, 0, 0);
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function files(): DeliveredFiles {
  dir = mkdtempSync(join(tmpdir(), 'delivered-files-'));
  return new DeliveredFiles(join(dir, 'waf-events-delivered'));
}

describe('DeliveredFiles', () => {
  it('appends each minute\'s hashes to its file and reads them back in order', async () => {
    const f = files();
    await f.append(new Map([[T, [1, 2 ** 53 - 1]], [T + MIN, [3]]]));
    await f.append(new Map([[T, [4]]]));
    expect(Array.from((await f.read(T)) ?? [])).toEqual([1, 2 ** 53 - 1, 4]);
    expect(Array.from((await f.read(T + MIN)) ?? [])).toEqual([3]);
    expect(await f.read(T + 2 * MIN)).toBeUndefined();
    expect(await f.minutes()).toEqual([T, T + MIN]);
  });

  it('leaves out a record a crash cut short', async () => {
    const f = files();
    await f.append(new Map([[T, [7, 8]]]));
    appendFileSync(join(f.dir, `${T}.hashes`), Buffer.from([1, 2, 3]));
    expect(Array.from((await f.read(T)) ?? [])).toEqual([7, 8]);
  });

  it('forgets the minutes before an instant, and clears them all', async () => {
    const f = files();
    await f.append(new Map([[T, [1]], [T + MIN, [2]], [T + 2 * MIN, [3]]]));
    await f.forget(T + 2 * MIN);
    expect(await f.minutes()).toEqual([T + 2 * MIN]);
    await f.clear();
    expect(await f.minutes()).toEqual([]);
    expect(readdirSync(dir ?? '')).toEqual([]);
  });
});
