// The CLI from source as plain JavaScript: every src/ file type-stripped by
// TypeScript's transpileModule into a temporary tree laid out as the
// package's own dist/ is (a sibling of package.json, proto/ and
// node_modules, here symlinks), so the paths src/ resolves from
// import.meta.url hold. A test that starts the CLI many times uses this
// instead of `node --import tsx`, which spends most of each start (~1.7 s of
// ~1.8 s here) loading and transforming the module graph again.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

export interface CliFromSource {
  /** The transpiled src/cli/main.ts: run it with `node`. */
  readonly main: string;
  remove(): void;
}

export function transpileCli(root: string): CliFromSource {
  const dir = mkdtempSync(join(tmpdir(), 'edge-cli-js-'));
  const src = join(root, 'src');
  // The repository's own settings, so that the output is what its build emits. NodeNext emits ESM only where
  // it reads package.json's "type", which transpileModule does not: ESNext says so. No source maps: nothing reads them.
  const { options } = ts.convertCompilerOptionsFromJson(
    (ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path)).config as { compilerOptions: object }).compilerOptions,
    root,
  );
  const compilerOptions = { ...options, module: ts.ModuleKind.ESNext, sourceMap: false };
  try {
    for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const file = join(entry.parentPath, entry.name);
      const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), { fileName: file, compilerOptions });
      const out = join(dir, 'dist', relative(src, file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, outputText);
    }
    for (const name of ['package.json', 'proto', 'node_modules']) symlinkSync(join(root, name), join(dir, name));
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return { main: join(dir, 'dist/cli/main.js'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
