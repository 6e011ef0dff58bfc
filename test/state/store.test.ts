import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { StateError, StateStore, nodeStateFs, type StateFs } from '../../src/state/store.js';

const doc = z.strictObject({ counter: z.number(), names: z.array(z.string()) });

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'edge-state-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const stateError = async (promise: Promise<unknown>): Promise<StateError> => {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StateError);
  if (err instanceof StateError) return err;
  throw new Error('expected a StateError');
};

describe('StateStore', () => {
  it('creates the directory owner-only and round-trips a document inside a versioned envelope', async () => {
    const dir = join(root, 'nested', 'state');
    const store = new StateStore(dir);
    await store.save('ledger-access', { counter: 3, names: ['a'] });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(join(dir, 'ledger-access.json'), 'utf8'))).toEqual({ version: 1, data: { counter: 3, names: ['a'] } });
    expect(await new StateStore(dir).load('ledger-access', doc)).toEqual({ counter: 3, names: ['a'] });
  });

  it('treats a missing file (and a missing directory) as a fresh start', async () => {
    expect(await new StateStore(join(root, 'absent')).load('ledger-access', doc)).toBeUndefined();
  });

  it('keeps the old file intact when the process dies between the temp write and the rename', async () => {
    const store = new StateStore(root);
    await store.save('s', { counter: 1, names: [] });
    const crashing: StateFs = {
      ...nodeStateFs,
      rename: () => Promise.reject(Object.assign(new Error('simulated crash'), { code: 'ECRASH' })),
    };
    const err = await stateError(new StateStore(root, { fs: crashing }).save('s', { counter: 2, names: ['new'] }));
    expect(err.file).toBe(join(root, 's.json'));
    // The new content reached the temp file only; the target still holds the old document.
    expect(existsSync(join(root, 's.json.tmp'))).toBe(true);
    expect(await new StateStore(root).load('s', doc)).toEqual({ counter: 1, names: [] });
    // The next save simply overwrites the leftover temp file.
    await new StateStore(root).save('s', { counter: 3, names: [] });
    expect(await new StateStore(root).load('s', doc)).toEqual({ counter: 3, names: [] });
  });

  it('fsyncs the file before the rename and the directory after it', async () => {
    const steps: string[] = [];
    const traced: StateFs = {
      ...nodeStateFs,
      writeSynced: async (p, d) => {
        steps.push(`write ${p.endsWith('.tmp') ? 'temp' : 'target'}`);
        await nodeStateFs.writeSynced(p, d);
      },
      rename: async (a, b) => {
        steps.push('rename');
        await nodeStateFs.rename(a, b);
      },
      syncDir: async (p) => {
        steps.push('sync dir');
        await nodeStateFs.syncDir(p);
      },
    };
    await new StateStore(root, { fs: traced }).save('s', { counter: 1, names: [] });
    expect(steps).toEqual(['write temp', 'rename', 'sync dir']);
  });

  it.each([
    ['truncated JSON', '{"version":1,"data":{"coun', /is not valid JSON/],
    ['not an envelope', '{"counter":1}', /not an edge-exporter state file/],
    ['a newer format', '{"version":2,"data":{}}', /format version 2; this edge-exporter reads version 1/],
    ['the wrong shape', '{"version":1,"data":{"counter":"x","names":[]}}', /does not hold what it should \(data\.counter: /],
  ])('refuses %s with a StateError naming the file', async (_name, content, problem) => {
    writeFileSync(join(root, 's.json'), content);
    const err = await stateError(new StateStore(root).load('s', doc));
    expect(err.code).toBe('EDGE_STATE');
    expect(err.file).toBe(join(root, 's.json'));
    expect(err.message).toContain(join(root, 's.json'));
    expect(err.message).toMatch(problem);
  });

  it('serialises saves of one name so the last one wins', async () => {
    const store = new StateStore(root);
    await Promise.all([1, 2, 3, 4, 5].map((n) => store.save('s', { counter: n, names: [] })));
    expect(await store.load('s', doc)).toEqual({ counter: 5, names: [] });
  });

  it.each(['../escape', '', '.hidden', 'a/b'])('rejects the name %j', (name) => {
    expect(() => new StateStore(root).pathOf(name)).toThrow(TypeError);
  });

  it('names the directory when it cannot be created', async () => {
    const file = join(root, 'file');
    writeFileSync(file, '');
    const err = await stateError(new StateStore(join(file, 'state')).init());
    expect(err.message).toContain(join(file, 'state'));
  });
});
