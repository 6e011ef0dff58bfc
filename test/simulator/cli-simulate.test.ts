import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { simulateCommand } from '../../src/cli/simulate.js';

/** Collects output and resolves once a line matching `re` was written. */
function capture(re: RegExp): { out: Writable; text: () => string; seen: Promise<RegExpExecArray> } {
  let buffer = '';
  let found: (m: RegExpExecArray) => void = () => {};
  const seen = new Promise<RegExpExecArray>((resolve) => {
    found = resolve;
  });
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      buffer += chunk.toString();
      const m = re.exec(buffer);
      if (m) found(m);
      done();
    },
  });
  return { out, text: () => buffer, seen };
}

describe('edge-exporter simulate', () => {
  it('serves until aborted, printing the URL and the token', async () => {
    const io = capture(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const controller = new AbortController();
    const done = simulateCommand(['--listen', '127.0.0.1:0', '--seed', '3', '--domains', '4', '--token', 't0k'], io.out, controller.signal);
    const url = (await io.seen)[1] ?? '';
    const res = await fetch(`${url}/prod-api/cdn/domain/list`, {
      method: 'POST',
      headers: { authorization: 'Bearer t0k', 'content-type': 'application/json' },
      body: JSON.stringify({ filters: [], searchHeader: { isActive: [] } }),
    });
    expect(await res.json()).toMatchObject({ code: 200, total: 4 });
    controller.abort();
    await expect(done).resolves.toBe(0);
    expect(io.text()).toContain('token: t0k');
    expect(io.text()).toContain('simulator stopped');
  });

  it('plays the request budget of a config file: 429 with Retry-After past it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-simulate-'));
    try {
      const file = join(dir, 'config.yaml');
      writeFileSync(file, 'simulator:\n  enabled: true\n  request_budget: { per_second: 1, retry_after: 9s }\n');
      const io = capture(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const controller = new AbortController();
      const done = simulateCommand(['--config', file, '--listen', '127.0.0.1:0'], io.out, controller.signal);
      const url = (await Promise.race([io.seen, done.then(() => { throw new Error('simulate ended'); })]))[1] ?? '';
      const ping = () => fetch(`${url}/prod-api/cdn/domain/getPackages`, { headers: { authorization: 'Bearer sim-token' } });
      expect((await ping()).status).toBe(200);
      const refused = await ping();
      expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '9']);
      controller.abort();
      await expect(done).resolves.toBe(0);
      expect(io.text()).toContain('request budget: 1 per second');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [['--seed', 'x']],
    [['--domains', '0']],
    [['--listen', 'nowhere']],
    [['--token', ' ']],
  ])('refuses %j as a usage error', async (argv) => {
    await expect(simulateCommand(argv, capture(/$^/).out, AbortSignal.abort())).rejects.toThrow(UsageError);
  });

  it('refuses unknown options', async () => {
    await expect(simulateCommand(['--nope'], capture(/$^/).out, AbortSignal.abort())).rejects.toThrow(/nope/);
  });
});
