// readTokenFile: the one reader of upstream.token_file, at load and again
// when the upstream answers 401. A problem never quotes the content.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTokenFile } from '../../src/config/index.js';

const dir = mkdtempSync(join(tmpdir(), 'edge-token-file-'));
function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('readTokenFile', () => {
  it('gives the content trimmed', () => {
    expect(readTokenFile(file('ok', '  token-file-value-81f2\n'))).toEqual({ token: 'token-file-value-81f2' });
  });

  it.each([
    ['empty', '\n \n', 'the token file is empty'],
    ['two lines', 'token-line-one-55\ntoken-line-two-66\n', 'the token file must hold one line without control characters'],
    ['a control character', 'token\u0007bell-77', 'the token file must hold one line without control characters'],
  ])('refuses a file that is %s, without quoting it', (name, content, problem) => {
    const read = readTokenFile(file(name.replace(/ /g, '-'), content));
    expect(read.problem).toBe(problem);
    expect(read.problem).not.toContain('token-');
  });

  it('names the error code of a file it cannot read', () => {
    expect(readTokenFile(join(dir, 'missing'))).toEqual({ problem: `cannot read the token file ${join(dir, 'missing')}: no such file or directory (ENOENT)` });
  });
});
