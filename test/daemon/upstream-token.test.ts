// The wired upstream with upstream.token_file: a 401 re-reads the file (one
// info line naming the file, never a token), a rotated token is used from
// then on, and a file that cannot be read keeps the AuthError. rotateToken is
// what a reload calls with the token it read.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthError } from '../../src/api/errors.js';
import { loadConfig } from '../../src/config/index.js';
import { openUpstream, type Upstream } from '../../src/daemon/wiring/upstream.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { lineSink } from '../support/capture.js';

const T1 = 'wiring-token-one-4b7e21';
const T2 = 'wiring-token-two-9c3f58';
const T3 = 'wiring-token-three-1d6a40';

let sim: Simulator | undefined;
let upstream: Upstream | undefined;
let dir: string | undefined;
afterEach(async () => {
  await upstream?.stop();
  await sim?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  upstream = undefined;
  sim = undefined;
  dir = undefined;
});

async function setup(): Promise<{ sim: Simulator; up: Upstream; tokenFile: string; lines: string[]; logger: Logger }> {
  sim = createSimulator({ clock: { mode: 'fixed', start: '2026-03-02 12:00:00' }, domains: 2, tokens: [{ token: T1, permissions: '*' }] });
  const { url } = await sim.listen('127.0.0.1', 0);
  dir = mkdtempSync(join(tmpdir(), 'edge-upstream-token-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${T1}\n`);
  const config = loadConfig({ text: `upstream: { api_url: "${url}", token_file: "${tokenFile}", retry: { attempts: 1 } }`, env: {} });
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', secrets: [T1], destination: lineSink(lines) });
  upstream = await openUpstream(config, logger);
  return { sim, up: upstream, tokenFile, lines, logger };
}

/** The log lines after the start-up line saying where requests go (`upstream: URL via ...`), which every openUpstream writes. */
const parsed = (lines: readonly string[]): Array<Record<string, unknown>> =>
  lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => !String(l['msg']).startsWith('upstream: '));

describe('upstream.token_file re-read after a 401', () => {
  it('picks up the rotated file and logs the re-read without any token', async () => {
    const { sim: s, up, tokenFile, lines, logger } = await setup();
    await expect(up.client.getPackages({})).resolves.toMatchObject({ code: 200 });
    s.setTokens([{ token: T2, permissions: '*' }]);
    writeFileSync(tokenFile, `${T2}\n`);
    await expect(up.client.getPackages({})).resolves.toMatchObject({ code: 200 });
    expect(s.requestCounts().getPackages).toBe(3);
    expect(parsed(lines).map((l) => [l['level'], l['msg'], l['changed']])).toEqual([
      ['info', `upstream token re-read from ${tokenFile} after a 401`, true],
    ]);
    // Later log lines mask the new token too: it was registered before use.
    logger.child({ component: 'collector' }).warn(`failed with Bearer ${T2}`);
    expect(parsed(lines)[1]?.['msg']).toBe('failed with Bearer [REDACTED]');
    const all = lines.join('');
    expect(all).not.toContain(T1);
    expect(all).not.toContain(T2);
  });

  it('keeps the AuthError when the file still holds the refused token, and says it did not change', async () => {
    const { sim: s, up, tokenFile, lines } = await setup();
    s.setTokens([{ token: T2, permissions: '*' }]);
    const err = await up.client.getPackages({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(s.requestCounts().getPackages).toBe(1);
    expect(parsed(lines).map((l) => [l['msg'], l['changed']])).toEqual([[`upstream token re-read from ${tokenFile} after a 401`, false]]);
  });

  it('warns, without the content, when the re-read file is not a usable token, and keeps the AuthError', async () => {
    const { sim: s, up, tokenFile, lines } = await setup();
    s.setTokens([{ token: T2, permissions: '*' }]);
    writeFileSync(tokenFile, `${T2}\nsecond-line-${T3}\n`);
    const err = await up.client.getPackages({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(parsed(lines).map((l) => [l['level'], l['problem']])).toEqual([['warn', 'the token file must hold one line without control characters']]);
    expect(lines.join('')).not.toContain(T2);
    expect(lines.join('')).not.toContain(T3);
  });

  it('rotateToken (the reload path) sends the new token with no 401 and masks it in the log', async () => {
    const { sim: s, up, lines, logger } = await setup();
    s.setTokens([{ token: T3, permissions: '*' }]);
    up.rotateToken(T3);
    await expect(up.client.getPackages({})).resolves.toMatchObject({ code: 200 });
    expect(s.requestCounts().getPackages).toBe(1);
    logger.info({ detail: T3 }, `token ${T3}`);
    expect(parsed(lines)).toEqual([expect.objectContaining({ msg: 'token [REDACTED]', detail: '[REDACTED]' })]);
  });
});
