// What the daemon prints when it dies, with the secrets configured: at
// start-up (port in use, TLS key unreadable) and at runtime (an uncaught
// error and an unhandled rejection carrying the Authorization header).
// The crash must really happen (exit code, reason on stderr) and its output
// must not show any secret.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { PASSWORD, TOKEN, USERNAME, OTLP_KEY, leaks } from './canaries.js';
import { kill, servingUrl, startCli, type CliProcess } from './cli-process.js';

let sim: Simulator;
let apiUrl: string;
let dir: string;
let busy: Server;
let busyPort: number;
let child: CliProcess | undefined;

beforeAll(async () => {
  sim = createSimulator({ domains: 2, tokens: [{ token: TOKEN, permissions: '*' }] });
  ({ url: apiUrl } = await sim.listen('127.0.0.1', 0));
  dir = mkdtempSync(join(tmpdir(), 'edge-crash-'));
  writeFileSync(join(dir, 'token'), TOKEN);
  writeFileSync(join(dir, 'password'), PASSWORD);
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as AddressInfo).port;
});

afterEach(async () => {
  await kill(child);
  child = undefined;
});

afterAll(async () => {
  await new Promise((resolve) => busy?.close(resolve));
  await sim?.close();
});

function config(name: string, server: string[], tokenKey = `token_file: "${join(dir, 'token')}"`): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, [
    `upstream: { api_url: "${apiUrl}", ${tokenKey} }`,
    `state_dir: ${join(dir, `${name}-state`)}`,
    'server:',
    ...server,
    `  basic_auth: { username: ${USERNAME}, password_file: "${join(dir, 'password')}" }`,
    'log: { level: debug }',
    'collectors: { defaults: { jitter: 0s } }',
    `otlp: { headers: { x-api-key: "${OTLP_KEY}" } }`,
  ].join('\n'));
  return file;
}

const output = (proc: CliProcess): Map<string, string> => new Map([['stdout', proc.stdout()], ['stderr', proc.stderr()]]);

describe('dying at start-up', () => {
  it('with the listen port in use: exit 1, the reason named, no secret', async () => {
    child = startCli(['run', '--config', config('busy', [`  listen: "127.0.0.1:${busyPort}"`])]);
    expect(await child.exited).toBe(1);
    expect(child.stderr()).toContain('EADDRINUSE');
    expect(leaks(output(child))).toEqual([]);
  }, 30_000);

  it('with an unreadable TLS key, token from the environment: exit 2, the file named, no secret', async () => {
    const file = config('tls', ['  listen: "127.0.0.1:0"', `  tls: { cert_file: "${join(dir, 'none.pem')}", key_file: "${join(dir, 'none.key')}" }`], 'timeout: 2s');
    child = startCli(['run', '--config', file], { EDGE_API_TOKEN: TOKEN });
    expect(await child.exited).toBe(2);
    expect(child.stderr()).toMatch(/server\.tls\.key_file.*ENOENT/);
    expect(leaks(output(child))).toEqual([]);
  }, 30_000);
});

describe('dying at runtime', () => {
  it.each(['throw', 'reject'])('an uncaught error (%s) carrying the request\'s credentials: exit 1, no secret', async (mode) => {
    child = startCli(['run', '--config', config(`crash-${mode}`, ['  listen: "127.0.0.1:0"'])],
      { EDGE_TEST_CRASH: mode, EDGE_TEST_CRASH_TOKEN: TOKEN, EDGE_TEST_CRASH_API_KEY: OTLP_KEY }, ['./test/support/crash-on-signal.ts']);
    const current = child;
    await expect.poll(() => servingUrl(current.stdout()), { timeout: 30_000, interval: 100 }).toBeDefined();
    current.child.kill('SIGUSR2');
    expect(await current.exited).toBe(1);
    // The report keeps what helps (the message, the request's URL), the secrets masked.
    expect(current.stderr()).toContain('edge-exporter: crashed: Error: request failed: upstream closed the connection (sent Bearer [REDACTED])');
    expect(current.stderr()).toContain("'x-api-key': '[REDACTED]'");
    expect(current.stderr()).toContain('/prod-api/cdn/domain/list');
    expect(leaks(output(current))).toEqual([]);
  }, 40_000);
});
