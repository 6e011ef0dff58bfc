// The import-cycle check of npm test (`npm run cycles`: madge with the
// settings in .madgerc) finds a cycle that runs through type-only imports
// alone, passes the same files once it is cut, and sees every import between
// our own files (one it could not resolve would drop an edge, and a cycle with
// it, in silence). Run as npm runs it, from the repository's root, on fixtures
// written here.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MADGE = join('node_modules', '.bin', 'madge');

/** madge --circular on `dir` from the repository's root (so with .madgerc), as `npm run cycles` runs it on src. */
function madge(dir: string, ...extra: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(MADGE, ['--circular', '--no-spinner', ...extra, dir], { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Three files whose imports are all type-only: a imports b's type, b c's (inline `type`), and, unless cut, c re-exports a's. */
function fixture(root: string, name: string, cut: boolean): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport interface A { readonly b?: B }\n");
  writeFileSync(join(dir, 'b.ts'), "import { type C } from './c.js';\nexport interface B { readonly c?: C }\n");
  writeFileSync(join(dir, 'c.ts'), `${cut ? '' : "export type { A } from './a.js';\n"}export interface C { readonly n: number }\n`);
  return dir;
}

/** What madge --warning listed as skipped: imports it could not resolve. */
function skipped(stdout: string): string[] {
  const lines = stdout.split('\n');
  const from = lines.findIndex((l) => /Skipped \d+ files?$/.test(l));
  return from < 0 ? [] : lines.slice(from + 1).map((l) => l.trim()).filter((l) => l !== '');
}

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'edge-cycles-'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('the import-cycle check', () => {
  it('is a step of npm test, on src, with its settings all in .madgerc', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(scripts['cycles']).toBe('madge --circular src');
    expect(scripts['test']).toContain('npm run cycles');
  });

  it('fails on a cycle of type-only imports, naming its files', () => {
    const run = madge(fixture(root, 'cycle', false));
    expect(run.stdout).toContain('Processed 3 files');
    expect(run.stdout).toContain('1) a.ts > b.ts > c.ts');
    expect(run.status).toBe(1);
  });

  it('passes the same files with the cycle cut', () => {
    const run = madge(fixture(root, 'cut', true));
    expect(run.stderr).toContain('No circular dependency found');
    expect(run.status).toBe(0);
  });

  it('lists an import it cannot resolve', () => {
    const dir = fixture(root, 'unresolved', true);
    writeFileSync(join(dir, 'd.ts'), "import type { A } from './a.js';\nimport type { M } from './missing.js';\nexport type D = A | M;\n");
    expect(skipped(madge(dir, '--warning').stdout)).toEqual(['./missing.js']);
  });

  it('resolves every import between the files of src: what it skips are packages', () => {
    const ours = skipped(madge('src', '--warning').stdout).filter((s) => s.startsWith('.') || s.startsWith('/'));
    expect(ours).toEqual([]);
  }, 60_000);
});
