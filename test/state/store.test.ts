import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { StateError, StateStore, nodeStateFs, type StateFs } from '../../src/state/store.js';
import { rejectionOf } from './rejection.js';
import { ArgumentError } from '../../src/shared/errors.js';

const doc = z.strictObject({ counter: z.number(), names: z.array(z.string()) });

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'edge-state-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));


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
    const err = await rejectionOf(new StateStore(root, { fs: crashing }).save('s', { counter: 2, names: ['new'] }), StateError);
    expect(err.file).toBe(join(root, 's.json'));
    // The new content reached the temp file only (named by pid and save); the target still holds the old document.
    const temps = readdirSync(root).filter((f) => f !== 's.json');
    expect(temps).toHaveLength(1);
    expect(temps[0]).toMatch(new RegExp(`^s\\.json\\.tmp-${process.pid}-\\d+$`));
    expect(JSON.parse(readFileSync(join(root, temps[0] ?? ''), 'utf8'))).toEqual({ version: 1, data: { counter: 2, names: ['new'] } });
    expect(await new StateStore(root).load('s', doc)).toEqual({ counter: 1, names: [] });
    // The next save writes its own temp file beside the leftover one and succeeds.
    await new StateStore(root).save('s', { counter: 3, names: [] });
    expect(await new StateStore(root).load('s', doc)).toEqual({ counter: 3, names: [] });
    expect(readdirSync(root).sort()).toEqual(['s.json', temps[0]]);
  });

  it('fsyncs the file before the rename and the directory after it', async () => {
    const steps: string[] = [];
    const traced: StateFs = {
      ...nodeStateFs,
      writeSynced: async (p, d) => {
        steps.push(`write ${/\.json\.tmp-\d+-\d+$/.test(p) ? 'temp' : 'target'}`);
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
    ['garbage', '\u0000\u0007PK\u0003\u0004 not json', /is not valid JSON/],
    ['an empty file', '', /is empty \(0 bytes\)/],
    ['a blank file', ' \n', /is empty \(2 bytes\)/],
    ['not an envelope', '{"counter":1}', /not an edge-exporter state file/],
    ['a newer format', '{"version":2,"data":{}}', /format version 2; this edge-exporter reads version 1/],
    ['the wrong shape', '{"version":1,"data":{"counter":"x","names":[]}}', /does not hold what it should \(data\.counter: /],
  ])('refuses %s with a StateError naming the file, as damage', async (_name, content, problem) => {
    writeFileSync(join(root, 's.json'), content);
    const err = await rejectionOf(new StateStore(root).load('s', doc), StateError);
    expect(err.code).toBe('EDGE_STATE');
    expect(err.file).toBe(join(root, 's.json'));
    expect(err.message).toContain(join(root, 's.json'));
    expect(err.message).toMatch(problem);
    expect(err.damaged).toBe(true);
  });

  it('refuses a directory where the file should be, as damage', async () => {
    mkdirSync(join(root, 's.json'));
    const err = await rejectionOf(new StateStore(root).load('s', doc), StateError);
    expect(err.message).toBe(`state file ${join(root, 's.json')}: is a directory, not a file`);
    expect(err.damaged).toBe(true);
  });

  it('reports a file it cannot read as an I/O problem, not damage (the file may be intact)', async () => {
    const denied: StateFs = { ...nodeStateFs, readFile: () => Promise.reject(Object.assign(new Error('denied'), { code: 'EACCES' })) };
    const err = await rejectionOf(new StateStore(root, { fs: denied }).load('s', doc), StateError);
    expect(err.message).toBe(`state file ${join(root, 's.json')}: cannot be read: permission denied (EACCES)`);
    expect(err.damaged).toBe(false);
  });

  it('serialises saves of one name so the last one wins', async () => {
    const store = new StateStore(root);
    await Promise.all([1, 2, 3, 4, 5].map((n) => store.save('s', { counter: n, names: [] })));
    expect(await store.load('s', doc)).toEqual({ counter: 5, names: [] });
  });

  it('puts a damaged file aside under a timestamped name, never over an earlier one, and reports its mtime', async () => {
    const store = new StateStore(root);
    const now = Date.UTC(2026, 2, 2, 4, 5, 6, 789);
    writeFileSync(join(root, 's.json'), 'first damage');
    utimesSync(join(root, 's.json'), new Date(now - 60_000), new Date(now - 60_000));
    const first = await store.quarantine('s', now);
    expect(first).toEqual({ keptAs: join(root, 's.json.damaged-20260302T040506Z'), lastWrittenMs: now - 60_000 });
    writeFileSync(join(root, 's.json'), 'second damage');
    const second = await store.quarantine('s', now);
    expect(second.keptAs).toBe(join(root, 's.json.damaged-20260302T040506Z-2'));
    expect(readFileSync(first.keptAs, 'utf8')).toBe('first damage');
    expect(readFileSync(second.keptAs, 'utf8')).toBe('second damage');
    expect(existsSync(join(root, 's.json'))).toBe(false);
    // What is left is a first start.
    expect(await store.load('s', doc)).toBeUndefined();
  });

  it('puts a directory aside the same way, and names the file when there is nothing to move', async () => {
    mkdirSync(join(root, 's.json'));
    writeFileSync(join(root, 's.json', 'inside'), 'x');
    const { keptAs } = await new StateStore(root).quarantine('s', Date.UTC(2026, 0, 1));
    expect(readdirSync(keptAs)).toEqual(['inside']);
    const err = await rejectionOf(new StateStore(root).quarantine('absent'), StateError);
    expect(err.message).toBe(`state file ${join(root, 'absent.json')}: cannot be moved aside: no such file or directory (ENOENT)`);
  });

  it('ignores a torn temp file a crash left, and removeLeftoverTemps deletes it', async () => {
    const store = new StateStore(root);
    await store.save('s', { counter: 1, names: [] });
    writeFileSync(join(root, 's.json.tmp-4242-7'), '{"version":1,"data":{"counter":2,"na');
    expect(await new StateStore(root).load('s', doc)).toEqual({ counter: 1, names: [] });
    await new StateStore(root).save('s', { counter: 3, names: ['x'] });
    expect(await new StateStore(root).removeLeftoverTemps()).toEqual([join(root, 's.json.tmp-4242-7')]);
    expect(readdirSync(root)).toEqual(['s.json']);
    expect(await new StateStore(root).load('s', doc)).toEqual({ counter: 3, names: ['x'] });
  });

  it.each(['../escape', '', '.hidden', 'a/b'])('rejects the name %j', (name) => {
    expect(() => new StateStore(root).pathOf(name)).toThrow(ArgumentError);
  });

  it('names the directory when it cannot be created', async () => {
    const file = join(root, 'file');
    writeFileSync(file, '');
    const err = await rejectionOf(new StateStore(join(file, 'state')).init(), StateError);
    expect(err.message).toContain(join(file, 'state'));
  });
});

describe('StateStore.journal', () => {
  it('appends lines that read back in order; truncate empties it', async () => {
    const store = new StateStore(root);
    await store.init();
    const journal = store.journal('cp');
    expect(journal.path).toBe(join(root, 'cp.journal'));
    expect(await journal.read()).toEqual({ entries: [], torn: false });
    await journal.truncate();
    await journal.append([{ n: 1 }]);
    await journal.append([{ n: 2 }, { n: 3 }]);
    expect(await store.journal('cp').read()).toEqual({ entries: [{ n: 1 }, { n: 2 }, { n: 3 }], torn: false });
    await journal.truncate();
    expect(readFileSync(journal.path, 'utf8')).toBe('');
    expect(await journal.read()).toEqual({ entries: [], torn: false });
  });

  it('drops a torn last line (a crash during an append) and says so', async () => {
    const store = new StateStore(root);
    writeFileSync(join(root, 'cp.journal'), '{"n":1}\n{"n":2}\n{"n":');
    expect(await store.journal('cp').read()).toEqual({ entries: [{ n: 1 }, { n: 2 }], torn: true });
  });

  it('refuses a complete line that is not JSON as damage, naming the line', async () => {
    writeFileSync(join(root, 'cp.journal'), '{"n":1}\n{"n":\n{"n":3}\n');
    const err = await rejectionOf(new StateStore(root).journal('cp').read(), StateError);
    expect(err.damaged).toBe(true);
    expect(err.message).toBe(`state file ${join(root, 'cp.journal')}: line 2 is not valid JSON (edited, or damaged other than by a crash)`);
  });

  it('never re-creates a missing directory: the append fails as a save failure', async () => {
    const failures: string[] = [];
    const store = new StateStore(join(root, 'gone'), { onSaveFailure: (name) => failures.push(name) });
    const err = await rejectionOf(store.journal('cp').append([{ n: 1 }]), StateError);
    expect(err.message).toContain('cannot be appended to: no such file or directory (ENOENT)');
    expect(failures).toEqual(['cp']);
    expect(existsSync(join(root, 'gone'))).toBe(false);
  });

  it('quarantine puts the journal aside with its document', async () => {
    const store = new StateStore(root);
    await store.save('cp', { counter: 1, names: [] });
    await store.journal('cp').append([{ n: 1 }]);
    const { keptAs } = await store.quarantine('cp', Date.UTC(2026, 0, 1));
    expect(keptAs).toBe(join(root, 'cp.json.damaged-20260101T000000Z'));
    expect(readdirSync(root).sort()).toEqual(['cp.journal.damaged-20260101T000000Z', 'cp.json.damaged-20260101T000000Z']);
  });
});
