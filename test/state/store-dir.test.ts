// The state directory under a long-running daemon: two writers on one
// directory (unique temp names), the temp files crashes leave, and a
// directory removed or replaced while running (re-created with its lock back
// before any state file, or each save failing and reported until it can be).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { acquireStateLock, LOCK_FILE } from '../../src/state/lock.js';
import { nodeStateFs, StateError, StateStore, type StateFs } from '../../src/state/store.js';
import { rejectionOf } from './rejection.js';

const doc = z.strictObject({ writer: z.string(), n: z.number(), pad: z.string() });
const NAMES = ['ledger-a', 'ledger-b', 'waf-checkpoint'];

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'edge-state-dir-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** nodeStateFs recording every temp path written. */
function tracing(temps: string[]): StateFs {
  return {
    ...nodeStateFs,
    writeSynced: async (path, data) => {
      temps.push(path);
      await nodeStateFs.writeSynced(path, data);
    },
  };
}


describe('two writers on one directory', () => {
  it('never share a temp file; every file ends whole, holding one writer\'s last save', async () => {
    const temps: string[] = [];
    const stores = ['x', 'y'].map((w) => ({ w, store: new StateStore(root, { fs: tracing(temps) }) }));
    const pad = 'p'.repeat(20_000); // big enough that writes interleave
    await Promise.all(
      stores.flatMap(({ w, store }) => NAMES.flatMap((name) => [1, 2, 3, 4, 5, 6, 7, 8].map((n) => store.save(name, { writer: w, n, pad })))),
    );
    expect(temps).toHaveLength(2 * NAMES.length * 8);
    expect(new Set(temps).size).toBe(temps.length);
    for (const t of temps) expect(t).toMatch(new RegExp(`^${root}/(ledger-a|ledger-b|waf-checkpoint)\\.json\\.tmp-${process.pid}-\\d+$`));
    for (const name of NAMES) {
      const loaded = await new StateStore(root).load(name, doc);
      expect([{ writer: 'x', n: 8, pad }, { writer: 'y', n: 8, pad }]).toContainEqual(loaded);
    }
    expect(readdirSync(root).sort()).toEqual(NAMES.map((n) => `${n}.json`));
  });
});

describe('removeLeftoverTemps', () => {
  it('removes every <name>.json.tmp* left by a crash, old-style too, and nothing else', async () => {
    const store = new StateStore(root);
    await store.save('a', { writer: 'x', n: 1, pad: '' });
    const keep = ['a.json', LOCK_FILE, 'a.json.damaged-20260101T000000Z', 'notes.tmp', 'a.txt.tmp-1-2'];
    const leftovers = ['a.json.tmp', 'a.json.tmp-4242-1', 'b.json.tmp-17-99'];
    for (const f of [...keep, ...leftovers]) if (f !== 'a.json') writeFileSync(join(root, f), 'x');
    expect(await store.removeLeftoverTemps()).toEqual(leftovers.map((f) => join(root, f)).sort());
    expect(readdirSync(root).sort()).toEqual([...keep].sort());
    expect(await new StateStore(join(root, 'absent')).removeLeftoverTemps()).toEqual([]);
  });

  it('leaves alone the temp file of a save of this store under way', async () => {
    let release: () => void = () => undefined;
    let written: (path: string) => void = () => undefined;
    const inTemp = new Promise<string>((resolve) => (written = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow: StateFs = {
      ...nodeStateFs,
      writeSynced: async (path, data) => {
        await nodeStateFs.writeSynced(path, data);
        written(path);
        await held;
      },
    };
    const store = new StateStore(root, { fs: slow });
    await store.init();
    writeFileSync(join(root, 'a.json.tmp-4242-1'), 'crash');
    const saving = store.save('a', { writer: 'x', n: 2, pad: '' });
    const temp = await inTemp;
    expect(await store.removeLeftoverTemps()).toEqual([join(root, 'a.json.tmp-4242-1')]);
    expect(existsSync(temp)).toBe(true);
    release();
    await saving;
    expect(readdirSync(root)).toEqual(['a.json']);
  });
});

describe('a state directory removed while running', () => {
  it('is re-created by the next save (owner-only), with the lock back exactly before any state file', async () => {
    const dir = join(root, 'state');
    const lock = await acquireStateLock(dir, { pid: 1001, host: 'h1' });
    const lockText = readFileSync(join(dir, LOCK_FILE), 'utf8');
    const seenByHook: string[][] = [];
    const recreated: string[] = [];
    const failures: string[] = [];
    const store = new StateStore(dir, {
      onDirectoryCreated: async () => {
        seenByHook.push(readdirSync(dir));
        await lock.restore();
      },
      onDirectoryRecreated: (d) => recreated.push(d),
      onSaveFailure: (name) => failures.push(name),
    });
    await store.save('ledger-a', { writer: 'x', n: 1, pad: '' });
    rmSync(dir, { recursive: true });

    // Saves of every name at once: one re-creation, one hook, all saved.
    await Promise.all(NAMES.map((name) => store.save(name, { writer: 'x', n: 2, pad: '' })));
    expect(seenByHook).toEqual([[]]);
    expect(recreated).toEqual([dir]);
    expect(failures).toEqual([]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir).sort()).toEqual([LOCK_FILE, ...NAMES.map((n) => `${n}.json`)].sort());
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(lockText);
    for (const name of NAMES) expect(await store.load(name, doc)).toEqual({ writer: 'x', n: 2, pad: '' });
    expect(await lock.verify()).toBe(true);
  });

  it.each([
    ['a file in place of its parent', (parent: string) => writeFileSync(parent, 'not a directory'), () => 'cannot be written: not a directory (ENOTDIR)'],
    [
      'its parent a dangling symlink',
      (parent: string) => symlinkSync(join(root, 'nowhere'), parent),
      (dir: string) => `cannot be written: the state directory ${dir} is gone and cannot be re-created: not a directory (ENOTDIR)`,
    ],
  ])('with %s, fails each save with a StateError reported per name; once the parent is back the next save succeeds', async (_what, breakParent, problem) => {
    // Both work as root too, where a chmod would not stop anything.
    const parent = join(root, 'parent');
    const dir = join(parent, 'state');
    const hooks: number[] = [];
    const failures: [string, StateError][] = [];
    const store = new StateStore(dir, {
      onDirectoryCreated: () => Promise.resolve(void hooks.push(1)),
      onSaveFailure: (name, err) => failures.push([name, err]),
    });
    await store.save('ledger-a', { writer: 'x', n: 1, pad: '' });
    rmSync(parent, { recursive: true });
    breakParent(parent);

    const err = await rejectionOf(store.save('ledger-a', { writer: 'x', n: 2, pad: '' }), StateError);
    expect(err.code).toBe('EDGE_STATE');
    // Node's recursive mkdir names a dangling link ENOTDIR (async, Node 20) or ENOENT (its sync twin): either means "cannot".
    expect(err.message.replace(/no such file or directory \(ENOENT\)$/, 'not a directory (ENOTDIR)')).toBe(`state file ${join(dir, 'ledger-a.json')}: ${problem(dir)}`);
    expect(failures).toEqual([['ledger-a', err]]);
    await rejectionOf(store.save('waf-checkpoint', { writer: 'x', n: 2, pad: '' }), StateError);
    expect(failures.map(([name]) => name)).toEqual(['ledger-a', 'waf-checkpoint']);
    expect(hooks).toEqual([]);

    rmSync(parent);
    await store.save('ledger-a', { writer: 'x', n: 3, pad: '' });
    expect(hooks).toEqual([1]);
    expect(failures).toHaveLength(2);
    expect(await store.load('ledger-a', doc)).toEqual({ writer: 'x', n: 3, pad: '' });
  });

  it('fails a save when a file takes the directory\'s place (not re-created over it)', async () => {
    const dir = join(root, 'state');
    const failures: string[] = [];
    const store = new StateStore(dir, { onSaveFailure: (name) => failures.push(name) });
    await store.save('a', { writer: 'x', n: 1, pad: '' });
    rmSync(dir, { recursive: true });
    writeFileSync(dir, 'a file');
    const err = await rejectionOf(store.save('a', { writer: 'x', n: 2, pad: '' }), StateError);
    expect(err.message).toBe(`state file ${join(dir, 'a.json')}: cannot be written: not a directory (ENOTDIR)`);
    expect(failures).toEqual(['a']);
    expect(readFileSync(dir, 'utf8')).toBe('a file');
  });

  it('writes no state file while the lock cannot be put back, and tries the hook again on the next save', async () => {
    const dir = join(root, 'state');
    let refuse = true;
    const failures: string[] = [];
    const store = new StateStore(dir, {
      onDirectoryCreated: () => (refuse ? Promise.reject(new Error('held by pid 7 on host h2')) : Promise.resolve()),
      onSaveFailure: (name) => failures.push(name),
    });
    await store.save('a', { writer: 'x', n: 1, pad: '' });
    rmSync(dir, { recursive: true });
    const err = await rejectionOf(store.save('a', { writer: 'x', n: 2, pad: '' }), StateError);
    expect(err.message).toBe(
      `state file ${join(dir, 'a.json')}: cannot be written: the state directory ${dir} was re-created but its lock could not be put back (held by pid 7 on host h2)`,
    );
    // The directory is back, so the next save finds it: still no file before the hook succeeds.
    await rejectionOf(store.save('b', { writer: 'x', n: 1, pad: '' }), StateError);
    expect(readdirSync(dir)).toEqual([]);
    expect(failures).toEqual(['a', 'b']);
    refuse = false;
    await store.save('a', { writer: 'x', n: 3, pad: '' });
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('keeps a save failing for another reason a plain StateError, reported once, without touching the directory', async () => {
    const failures: string[] = [];
    const full: StateFs = { ...nodeStateFs, rename: () => Promise.reject(Object.assign(new Error('full'), { code: 'ENOSPC' })) };
    mkdirSync(join(root, 'state'));
    const err = await rejectionOf(new StateStore(join(root, 'state'), { fs: full, onSaveFailure: (n) => failures.push(n) }).save('a', {}), StateError);
    expect(err.message).toBe(`state file ${join(root, 'state', 'a.json')}: cannot be written: no space left on device (ENOSPC)`);
    expect(failures).toEqual(['a']);
  });
});
