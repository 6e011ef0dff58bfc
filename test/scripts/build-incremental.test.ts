// `npm start` runs `npm run build` first (prestart). The build is tsc's own
// incremental build, so a second start on unchanged sources writes nothing
// and begins at once, while an edited source is still compiled. The build runs
// on a copy of the sources and configs in a temporary directory, so the
// repository's dist/ (which other tests start) is never touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

let dir: string;

/** Runs package.json's own build script (tsc from node_modules/.bin) in the copy. */
function build(): void {
  const [command, ...args] = (scripts.build ?? '').split(' ');
  expect(command).toBe('tsc');
  const result = spawnSync(join(ROOT, 'node_modules/.bin/tsc'), args, { cwd: dir, encoding: 'utf8', timeout: 110_000 });
  expect(result.stdout + result.stderr).toBe('');
  expect(result.status).toBe(0);
}

const mainJs = (): string => join(dir, 'dist/cli/main.js');

describe('npm run build (prestart)', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'edge-build-'));
    for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json']) cpSync(join(ROOT, file), join(dir, file));
    cpSync(join(ROOT, 'src'), join(dir, 'src'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is what npm start runs first', () => {
    expect(scripts.prestart).toBe('npm run build');
  });

  it('builds a missing dist/, then leaves it alone while the sources are unchanged, and rebuilds an edited source', () => {
    expect(existsSync(join(dir, 'dist'))).toBe(false);
    build();
    const first = statSync(mainJs()).mtimeMs;

    build();
    expect(statSync(mainJs()).mtimeMs).toBe(first);

    appendFileSync(join(dir, 'src/cli/main.ts'), '\n// edited after the first build\n');
    build();
    expect(readFileSync(mainJs(), 'utf8')).toContain('// edited after the first build');
    expect(statSync(mainJs()).mtimeMs).toBeGreaterThan(first);

    // The build record is the compiler's, not the package's.
    expect(existsSync(join(dir, 'dist/.tsbuildinfo'))).toBe(true);
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(pack.status).toBe(0);
    const packed = (JSON.parse(pack.stdout) as Array<{ files: Array<{ path: string }> }>)[0]?.files.map((f) => f.path) ?? [];
    expect(packed).toContain('dist/cli/main.js');
    expect(packed).not.toContain('dist/.tsbuildinfo');
  }, 120_000);
});
