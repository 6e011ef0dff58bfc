// state_recovery at the store level: `fail` explains, `reset` keeps the
// damaged file aside and reports it, and neither touches a file that is only
// unreadable (it may be intact).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAIL_ON_DAMAGE, loadRecovering, stateRecovery, type StateReset } from '../../src/state/recovery.js';
import { nodeStateFs, StateError, StateStore, type StateFs } from '../../src/state/store.js';

const doc = z.strictObject({ n: z.number() });
const ADVICE = { refusal: 'Refusing to start', remedy: 'Restore it, or set state_recovery: reset' };

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'edge-recovery-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function setUp(mode: 'fail' | 'reset', fs: StateFs = nodeStateFs): { store: StateStore; resets: StateReset[]; load: () => ReturnType<typeof loadRecovering<{ n: number }>> } {
  const store = new StateStore(root, { fs });
  const resets: StateReset[] = [];
  const recovery = stateRecovery(store, mode, (r) => resets.push(r));
  return { store, resets, load: () => loadRecovering(recovery, 's', () => store.load('s', doc), ADVICE) };
}

describe('loadRecovering', () => {
  it('passes a healthy file and a missing one through', async () => {
    const { store, load, resets } = setUp('reset');
    expect(await load()).toEqual({ value: undefined });
    await store.save('s', { n: 4 });
    expect(await load()).toEqual({ value: { n: 4 } });
    expect(resets).toEqual([]);
  });

  it('fail: says which file, what is wrong, why it stops and the ways out, and leaves the file alone', async () => {
    writeFileSync(join(root, 's.json'), '{"version":1,"da');
    const err = await setUp('fail').load().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateError);
    expect((err as StateError).message).toBe(
      `state file ${join(root, 's.json')}: is not valid JSON (truncated or edited?). Refusing to start. ` +
        'Restore it, or set state_recovery: reset; reset keeps the file as s.json.damaged-<time>',
    );
    expect((err as StateError).damaged).toBe(true);
    expect(readdirSync(root)).toEqual(['s.json']);
    // The built-in default is the same refusal.
    await expect(loadRecovering(FAIL_ON_DAMAGE, 's', () => new StateStore(root).load('s', doc), ADVICE)).rejects.toThrow(/Refusing to start/);
  });

  it('reset: keeps the damaged file aside, reports it once, and answers as a first start', async () => {
    writeFileSync(join(root, 's.json'), '{"version":1,"data":{"n":"x"}}');
    const { load, resets, store } = setUp('reset');
    const result = await load();
    expect(result.value).toBeUndefined();
    expect(result.reset?.problem).toMatch(/^does not hold what it should \(data\.n: /);
    expect(result.reset?.file).toBe(join(root, 's.json'));
    expect(result.reset?.keptAs).toMatch(/\/s\.json\.damaged-\d{8}T\d{6}Z$/);
    expect(resets).toEqual([result.reset]);
    expect(readFileSync(result.reset?.keptAs ?? '', 'utf8')).toBe('{"version":1,"data":{"n":"x"}}');
    expect(existsSync(join(root, 's.json'))).toBe(false);
    expect(await store.load('s', doc)).toBeUndefined();
  });

  it('reset does not apply to a file that cannot be read: start-up still stops and the file stays', async () => {
    writeFileSync(join(root, 's.json'), '{"version":1,"data":{"n":1}}');
    const denied: StateFs = { ...nodeStateFs, readFile: () => Promise.reject(Object.assign(new Error('denied'), { code: 'EACCES' })) };
    const { load, resets } = setUp('reset', denied);
    await expect(load()).rejects.toThrow(
      `state file ${join(root, 's.json')}: cannot be read: permission denied (EACCES). Refusing to start. It may be intact: fix what keeps it ` +
        'from being read (ownership, permissions, disk); state_recovery: reset does not apply to it',
    );
    expect(resets).toEqual([]);
    expect(readdirSync(root)).toEqual(['s.json']);
  });

  it('lets an error that is not about state through unchanged', async () => {
    const bug = new TypeError('a bug');
    await expect(loadRecovering(stateRecovery(new StateStore(root), 'reset'), 's', () => Promise.reject(bug), ADVICE)).rejects.toBe(bug);
  });
});
