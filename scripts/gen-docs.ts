// Writes the generated reference docs. Each entry is a file and a pure render
// function; add generators (metrics, ...) to GENERATED. `--check` writes
// nothing and exits 1 when a file is stale (for CI).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderConfigDocs } from '../src/config/docs.js';
import { renderMetricsReference } from '../src/daemon/docs.js';

interface Generated {
  /** Path relative to the repository root. */
  readonly file: string;
  readonly render: () => string;
}

export const GENERATED: readonly Generated[] = [
  { file: 'docs/config.md', render: renderConfigDocs },
  { file: 'docs/metrics.md', render: renderMetricsReference },
];

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');
let stale = 0;
for (const { file, render } of GENERATED) {
  const path = `${root}${file}`;
  const text = render();
  const current = readOrEmpty(path);
  if (current === text) continue;
  if (check) {
    stale++;
    console.error(`${file} is stale: run npm run docs`);
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${file}`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
