// The words beside an errno code are libuv's, for every code a file or a
// socket can fail with; anything else keeps what it has.
import { describe, expect, it } from 'vitest';
import { errnoText } from '../../src/shared/errno-text.js';

describe('errnoText', () => {
  it.each([
    ['ENOENT', 'no such file or directory (ENOENT)'],
    ['EACCES', 'permission denied (EACCES)'],
    ['EISDIR', 'illegal operation on a directory (EISDIR)'],
    ['ENOTDIR', 'not a directory (ENOTDIR)'],
    ['EROFS', 'read-only file system (EROFS)'],
    ['ENOSPC', 'no space left on device (ENOSPC)'],
    ['EADDRINUSE', 'address already in use (EADDRINUSE)'],
  ])('%s -> %s', (code, text) => {
    expect(errnoText(Object.assign(new Error('x'), { code }))).toBe(text);
  });

  it('names a real failure of the file system', async () => {
    const { readFile } = await import('node:fs/promises');
    const err = await readFile('/nonexistent-edge-exporter-path/x').catch((e: unknown) => e);
    expect(errnoText(err)).toBe('no such file or directory (ENOENT)');
  });

  it.each([
    ['a code libuv does not know', { code: 'ERR_SOMETHING' }, 'ERR_SOMETHING'],
    ['an error without a code', new Error('boom'), 'unknown error'],
    ['a non-string code', { code: 2 }, 'unknown error'],
    ['not an object', 'ENOENT', 'unknown error'],
  ])('%s', (_what, err, text) => {
    expect(errnoText(err)).toBe(text);
  });
});
