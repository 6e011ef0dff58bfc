// Which part of a reload each config change lands in: one collector's block
// restarts that collector; collectors.defaults restarts the collectors that
// inherit it; the upstream, its rate limit, targets, OTLP (logs and metrics) and the jitter are
// shared and restart everything; the server's and the log's keys, and the
// simulator's (unused with a real account), restart nothing; a `*_file` whose content changed counts though the YAML did not.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.js';
import { fingerprint, reloadChanges } from '../../src/daemon/reload-changes.js';

const dir = mkdtempSync(join(tmpdir(), 'edge-reload-changes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const caFile = join(dir, 'ca.pem');
writeFileSync(caFile, 'first');

const BASE = [
  'upstream: { api_url: "http://127.0.0.1:1", token: "reload-token", rate_limit: 5 }',
  `state_dir: ${JSON.stringify(join(dir, 'state'))}`,
  `otlp: { endpoint: "http://127.0.0.1:4318", tls: { ca_file: ${JSON.stringify(caFile)} } }`,
  'log: { level: info }',
  'server: { listen: "127.0.0.1:0" }',
  'collectors:',
  '  defaults: { jitter: 1s, delay: 5m }',
  '  access: { interval: 1m }',
  '  usage: { interval: 5m }',
  '  inventory: { interval: 1h }',
].join('\n');

let n = 0;
function load(text: string): Config {
  const file = join(dir, `c${n++}.yaml`);
  writeFileSync(file, text);
  return loadConfig({ file, env: {} });
}

const running = load(BASE);
const applied = fingerprint(running);

describe('reloadChanges', () => {
  it.each<[string, string, string, { shared?: boolean; server?: boolean; log?: boolean; collectors?: string[] }]>([
    ['the same config', 'x', 'x', {}],
    ["one collector's interval", 'usage: { interval: 5m }', 'usage: { interval: 1h }', { collectors: ['usage'] }],
    ['a collector disabled', 'usage: { interval: 5m }', 'usage: { enabled: false }', { collectors: ['usage'] }],
    ['collectors.defaults.delay (inventory has none)', 'delay: 5m', 'delay: 10m', { collectors: ['access', 'usage', 'topn', 'cc-attack', 'waf-trend'] }],
    ['the jitter (the engine)', 'jitter: 1s', 'jitter: 2s', { shared: true }],
    ['the upstream rate limit (the shared client)', 'rate_limit: 5', 'rate_limit: 2', { shared: true }],
    ['the token', 'reload-token', 'reload-token-2', { shared: true }],
    ['the OTLP endpoint', '4318', '4319', { shared: true }],
    ['otlp_metrics turned on (as remote_write: the sinks are shared)', 'log: { level: info }', 'log: { level: info }\notlp_metrics: { enabled: true }', { shared: true }],
    ['otlp_metrics.temporality, even while off (as any shared key)', 'log: { level: info }', 'log: { level: info }\notlp_metrics: { temporality: delta }', { shared: true }],
    ['server.enable_reload', 'listen: "127.0.0.1:0"', 'listen: "127.0.0.1:0", enable_reload: true', { server: true }],
    ['the log level', 'level: info', 'level: debug', { log: true }],
    ['the simulator section, unused with a real account', 'log: { level: info }', 'log: { level: info }\nsimulator: { seed: 7, domains: 3 }', {}],
  ])('%s', (_name, from, to, expected) => {
    expect(reloadChanges(applied, fingerprint(load(BASE.replace(from, to))))).toEqual({
      shared: false, server: false, log: false, collectors: [], ...expected,
    });
  });

  it("a TLS file whose content changed, the YAML the same, changes what is shared (the OTLP client reads it when built)", () => {
    const before = fingerprint(load(BASE));
    writeFileSync(caFile, 'renewed');
    expect(reloadChanges(before, fingerprint(load(BASE)))).toEqual({ shared: true, server: false, log: false, collectors: [] });
  });
});
