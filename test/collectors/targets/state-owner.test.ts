// A state directory belongs to one shard: the first start records it, a
// replica of another index refuses to start there, and a changed count
// (scaling) is recorded with a warning; a sharded replica says which shard it is.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claimStateDir, SHARD_MARKER } from '../../../src/collectors/targets/state-owner.js';
import { StateError, StateStore } from '../../../src/state/index.js';

const dirs: string[] = [];
const fresh = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-state-owner-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const markerOf = (dir: string): unknown => (JSON.parse(readFileSync(join(dir, `${SHARD_MARKER}.json`), 'utf8')) as { data: unknown }).data;

/** Records the warnings in `lines`, the info lines in `infos`. */
function warnings() {
  const lines: Array<[object, string | undefined]> = [];
  const infos: Array<[object, string | undefined]> = [];
  return { lines, infos, info: (obj: object, msg?: string) => void infos.push([obj, msg]), warn: (obj: object, msg?: string) => void lines.push([obj, msg]) };
}

describe('claimStateDir', () => {
  it('records the shard on the first start, and accepts the same shard again', async () => {
    const dir = fresh();
    const log = warnings();
    await claimStateDir(new StateStore(dir), { index: 1, count: 3 }, log);
    expect(markerOf(dir)).toEqual({ index: 1, count: 3 });
    await claimStateDir(new StateStore(dir), { index: 1, count: 3 }, log);
    expect(log.lines).toEqual([]);
  });

  it('refuses another shard index, naming the file and both shards', async () => {
    const dir = fresh();
    await claimStateDir(new StateStore(dir), { index: 0, count: 3 }, warnings());
    const claim = claimStateDir(new StateStore(dir), { index: 2, count: 3 }, warnings());
    await expect(claim).rejects.toBeInstanceOf(StateError);
    await expect(claim).rejects.toThrow(/shard\.json: belongs to shard 0 \(of 3\), and this replica is shard 2 \(of 3\)\. Each shard needs its own state_dir/);
    expect(markerOf(dir)).toEqual({ index: 0, count: 3 });
  });

  it('accepts a changed count (scaling), records it and warns', async () => {
    const dir = fresh();
    await claimStateDir(new StateStore(dir), { index: 0, count: 1 }, warnings());
    const log = warnings();
    await claimStateDir(new StateStore(dir), { index: 0, count: 3 }, log);
    expect(markerOf(dir)).toEqual({ index: 0, count: 3 });
    expect(log.lines).toEqual([[expect.objectContaining({ index: 0, from: 1, to: 3 }), expect.stringMatching(/^shard\.count changed/)]]);
  });

  it('says which shard a sharded replica is, and nothing when unsharded', async () => {
    const sharded = warnings();
    await claimStateDir(new StateStore(fresh()), { index: 2, count: 3 }, sharded);
    expect(sharded.infos).toEqual([[{ shard: 2, of: 3 }, expect.stringMatching(/^sharded: /)]]);
    const unsharded = warnings();
    await claimStateDir(new StateStore(fresh()), { index: 0, count: 1 }, unsharded);
    expect(unsharded.infos).toEqual([]);
  });

  it('refuses a damaged marker rather than guessing its owner', async () => {
    const dir = fresh();
    writeFileSync(join(dir, `${SHARD_MARKER}.json`), '{"version":1,"data":{"index":"zero"}}');
    await expect(claimStateDir(new StateStore(dir), { index: 0, count: 1 }, warnings())).rejects.toBeInstanceOf(StateError);
  });
});
