// The remote_write section: off by default, defaults, values as written,
// problems at their YAML path, and the EDGE_REMOTE_WRITE_* variables.
import { describe, expect, it } from 'vitest';
import type { Env } from '../../src/config/env.js';
import { loadConfig } from '../../src/config/load.js';
import { loadError, problemAt, yaml } from './helpers.js';

const SIM = 'simulator: { enabled: true }';
const load = (lines: readonly string[], env: Env = {}) => loadConfig({ text: yaml(SIM, ...lines), env });

describe('remote_write: defaults', () => {
  it('off: no url; Prometheus\' own batching and backoff defaults; job=edge-exporter', () => {
    expect(load([]).remote_write).toEqual({
      url: undefined,
      headers: {},
      timeout: 30_000,
      external_labels: { job: 'edge-exporter' },
      max_samples_per_send: 2_000,
      batch_send_deadline: 5_000,
      min_backoff: 30,
      max_backoff: 5_000,
      max_pending_samples: 1_000_000,
    });
  });
});

describe('remote_write: values as written', () => {
  it.each<[string[], unknown]>([
    [['remote_write: { url: "http://prom:9090/api/v1/write/" }'], { url: 'http://prom:9090/api/v1/write' }],
    [['remote_write: { url: "https://m.example/api/v1/push", bearer_token_file: /run/token }'], { bearer_token_file: '/run/token' }],
    [['remote_write: { url: "https://m.example/api/v1/push", basic_auth: { username: u, password_file: /run/p } }'], { basic_auth: { username: 'u', password_file: '/run/p' } }],
    [['remote_write: { url: "https://m.example", headers: { X-Scope-OrgID: tenant-1 } }'], { headers: { 'X-Scope-OrgID': 'tenant-1' } }],
    [['remote_write: { url: "https://m.example", tls: { ca_file: /ca.pem } }'], { tls: { ca_file: '/ca.pem', insecure_skip_verify: false } }],
    [['remote_write: { url: "https://m.example", external_labels: { job: edge-push, region: eu } }'], { external_labels: { job: 'edge-push', region: 'eu' } }],
    [['remote_write: { url: "https://m.example", max_samples_per_send: 500, batch_send_deadline: 1s, min_backoff: 100ms, max_backoff: 1m }'],
      { max_samples_per_send: 500, batch_send_deadline: 1_000, min_backoff: 100, max_backoff: 60_000 }],
  ])('%j', (lines, expected) => {
    expect(load(lines).remote_write).toMatchObject(expected as object);
  });
});

describe('remote_write: problems at their YAML path', () => {
  it.each<[string[], string, RegExp]>([
    [['remote_write: { url: "prom:9090/api/v1/write" }'], 'remote_write.url', /http:\/\/ or https:\/\//],
    [['remote_write: { url: "http://u:secret@prom:9090/api/v1/write" }'], 'remote_write.url', /must not carry credentials/],
    [['remote_write: { url: "http://p", bearer_token: abcd, bearer_token_file: /t }'], 'remote_write.basic_auth', /at most one of/],
    [['remote_write: { url: "http://p", basic_auth: { username: u } }'], 'remote_write.basic_auth.password', /exactly one of/],
    [['remote_write: { url: "http://p", headers: { Authorization: x } }'], 'remote_write.headers.Authorization', /set by the exporter/],
    [['remote_write: { url: "http://p", headers: { Content-Encoding: gzip } }'], 'remote_write.headers.Content-Encoding', /set by the exporter/],
    [['remote_write: { url: "http://p", external_labels: { __name__: x } }'], 'remote_write.external_labels.__name__', /expected a label name/],
    [['remote_write: { url: "http://p", external_labels: { "a-b": x } }'], 'remote_write.external_labels.a-b', /expected a label name/],
    [['remote_write: { url: "http://p", tls: { cert_file: /c.pem } }'], 'remote_write.tls.cert_file', /both/],
    [['remote_write: { url: "http://p", min_backoff: 2s, max_backoff: 1s }'], 'remote_write.max_backoff', /at least min_backoff/],
    [['remote_write: { url: "http://p", max_samples_per_send: 0 }'], 'remote_write.max_samples_per_send', />= 1/],
    [['remote_write: { url: "http://p", max_pending_samples: 10 }'], 'remote_write.max_pending_samples', />= 1000/],
    [['remote_write: { url: "http://p", max_pending_samples: 4000001 }'], 'remote_write.max_pending_samples', /<= 4000000/],
    [['remote_write: { url: "http://p", timeout: 2h }'], 'remote_write.timeout', /at most|too long|1h/],
    [['remote_write: { url: "http://p", queue: {} }'], 'remote_write.queue', /unknown key/],
  ])('%j', (lines, path, message) => {
    expect(problemAt(loadError({ text: yaml(SIM, ...lines) }), path).message).toMatch(message);
  });
});

describe('EDGE_REMOTE_WRITE_* variables win over the file', () => {
  const FILE = ['remote_write:', '  url: http://file.example/api/v1/write', '  bearer_token_file: /run/token', '  headers: { x-file: f, x-both: file }'];
  it('URL, token (which clears the file) and headers (merged key by key)', () => {
    const config = load(FILE, {
      EDGE_REMOTE_WRITE_URL: 'https://env.example/api/v1/push',
      EDGE_REMOTE_WRITE_BEARER_TOKEN: 'env-token-123',
      EDGE_REMOTE_WRITE_HEADERS: 'x-both=env,x-env=e',
    });
    expect(config.remote_write).toMatchObject({ url: 'https://env.example/api/v1/push', bearer_token: 'env-token-123', headers: { 'x-file': 'f', 'x-both': 'env', 'x-env': 'e' } });
    expect(config.remote_write.bearer_token_file).toBeUndefined();
  });
  it('turns remote-write on for a file without the section', () => {
    expect(load([], { EDGE_REMOTE_WRITE_URL: 'http://p:9090/api/v1/write' }).remote_write.url).toBe('http://p:9090/api/v1/write');
  });
  it('a token from the environment never appears in a problem', () => {
    const err = loadError({ text: yaml(SIM, 'remote_write: { url: "http://p", basic_auth: { username: u, password: pw } }'), env: { EDGE_REMOTE_WRITE_BEARER_TOKEN: 'leaky-token-9' } });
    expect(problemAt(err, 'remote_write.basic_auth').message).toMatch(/at most one of/);
    expect(err.message).not.toContain('leaky-token-9');
  });
});
