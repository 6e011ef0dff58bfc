// `run` hands main every secret its config holds, so error and crash reports
// (and the logger, which gets the same list) mask them; the basic-auth
// password kept in a file is one of them, though only the server reads it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { Capture } from './helpers.js';

/** `run` on `config` until it serves (the secrets list is complete then), stopped cleanly: the list main was handed, and stdout. */
async function runUntilServing(config: string): Promise<{ secrets: string[]; stdout: Capture }> {
  const secrets: string[] = [];
  const stop = new AbortController();
  const stdout = new Capture();
  const ran = main(['run', '--config', config], { stdout, stderr: new Capture(), env: {}, secrets }, stop.signal);
  await expect.poll(() => stdout.text, { timeout: 10_000 }).toContain('serving metrics');
  stop.abort();
  expect(await ran).toBe(0);
  return { secrets, stdout };
}

describe('run secrets', () => {
  it('includes the password read from server.basic_auth.password_file and the OTLP header values (logs and metrics)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-run-secrets-'));
    writeFileSync(join(dir, 'password'), 'file-password-7731\n');
    const config = join(dir, 'config.yaml');
    writeFileSync(config, [
      'upstream: { api_url: "http://127.0.0.1:9", token: "run-secrets-token-1" }',
      `state_dir: ${join(dir, 'state')}`,
      `server: { listen: "127.0.0.1:0", basic_auth: { username: prom, password_file: "${join(dir, 'password')}" } }`,
      'otlp: { headers: { x-api-key: "otlp-key-5521" } }',
      'otlp_metrics: { headers: { x-api-key: "otlp-metrics-key-6632" } }',
    ].join('\n'));
    const { secrets, stdout } = await runUntilServing(config);
    expect(secrets).toEqual(expect.arrayContaining(['run-secrets-token-1', 'file-password-7731', 'otlp-key-5521', 'otlp-metrics-key-6632']));
    expect(stdout.text).not.toContain('file-password-7731');
  });

  it('includes every account\'s token, from the config and from its token_file, under accounts:', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-run-secrets-'));
    writeFileSync(join(dir, 'us-token'), 'us-file-token-4418\n');
    const config = join(dir, 'config.yaml');
    writeFileSync(config, [
      `state_dir: ${join(dir, 'state')}`,
      'server: { listen: "127.0.0.1:0" }',
      'accounts:',
      '  - { name: eu, upstream: { api_url: "http://127.0.0.1:9", token: "eu-inline-token-2207" } }',
      `  - { name: us, upstream: { api_url: "http://127.0.0.1:9", token_file: "${join(dir, 'us-token')}" } }`,
    ].join('\n'));
    const { secrets, stdout } = await runUntilServing(config);
    expect(secrets).toEqual(expect.arrayContaining(['eu-inline-token-2207', 'us-file-token-4418']));
    expect(stdout.text).not.toContain('eu-inline-token-2207');
    expect(stdout.text).not.toContain('us-file-token-4418');
  });
});
