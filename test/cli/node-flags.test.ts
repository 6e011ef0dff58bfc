// The daemon's node/V8 flags in one place (src/cli/node-flags.ts): npm start
// and the image pass exactly those, the node running the tests accepts each,
// and `run` started without them sets the late ones itself unless node's
// command line gave a value.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { NODE_FLAGS, setMissingFlags } from '../../src/cli/node-flags.js';
import { execForm, fromRoot, parseDockerfile, readText } from '../deploy/files.js';

const ENTRY = 'dist/cli/main.js';

describe('the node flags', () => {
  it('are what npm start passes, before the CLI, and nothing else', () => {
    const start = (JSON.parse(readText(fromRoot('package.json'))) as { scripts: { start: string } }).scripts.start;
    expect(start.split(' ')).toEqual(['node', ...NODE_FLAGS, ENTRY, 'run', '--config', 'config.example.yaml']);
  });

  it('are what the image\'s ENTRYPOINT passes, and nothing else', () => {
    const runtime = parseDockerfile(readText(fromRoot('Dockerfile'))).stages.at(-1);
    const entrypoints = runtime?.instructions.filter((i) => i.keyword === 'ENTRYPOINT') ?? [];
    expect(entrypoints).toHaveLength(1);
    expect(execForm(entrypoints[0]?.args ?? '')).toEqual(['node', ...NODE_FLAGS, ENTRY]);
  });

  it('are each accepted on the command line of the node running this (a misspelt one is not)', () => {
    for (const flag of NODE_FLAGS) {
      const run = spawnSync(process.execPath, [flag, '-e', ''], { encoding: 'utf8' });
      expect([flag, run.status, run.stderr]).toEqual([flag, 0, '']);
    }
    const misspelt = spawnSync(process.execPath, ['--heap-growing-percentage=20', '-e', ''], { encoding: 'utf8' });
    expect(misspelt.status).not.toBe(0);
  });

  it('set late only where node\'s command line gave no value, in either spelling', () => {
    expect(setMissingFlags(['--heap-growing-percent=50'])).toEqual([]);
    expect(setMissingFlags(['--inspect', '--heap_growing_percent=10'])).toEqual([]);
    expect(setMissingFlags(['--enable-source-maps'])).toEqual(['--heap-growing-percent=20']);
  });
});
