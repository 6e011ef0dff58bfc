// A daemon started on a state directory another shard recorded refuses to
// start before it starts anything (the claim itself:
// test/collectors/targets/state-owner.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { claimStateDir } from '../../src/collectors/index.js';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { StateStore } from '../../src/state/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const silent = { info: () => undefined, warn: () => undefined };

describe('a daemon on another shard\'s state directory', () => {
  it('refuses to start before it starts anything, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-state-owner-'));
    dirs.push(dir);
    await claimStateDir(new StateStore(dir), { index: 1, count: 2 }, silent);
    const text = ['simulator: { enabled: true }', `state_dir: ${dir}`, 'shard: { index: 0, count: 2 }'].join('\n');
    const daemon = new Daemon({
      config: loadConfig({ text, env: {} }),
      logger: createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) }),
      version: 'test',
    });
    await expect(daemon.runOnce()).rejects.toThrow(`${join(dir, 'shard.json')}: belongs to shard 1 (of 2)`);
    await daemon.stop();
  });
});
