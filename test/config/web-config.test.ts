// `run --web.config.file`: exporter-toolkit's web config, read as the other
// exporters read it (relative paths against the file's directory, the same
// defaults), with what Node's TLS server cannot enforce refused by key.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfig } from '../../src/config/load.js';
import { loadWebConfig, type WebConfig } from '../../src/config/web-config.js';
import { problemAt, yaml } from './helpers.js';

/** A bcrypt hash exporter-toolkit itself ships (of "fakepassword"), as htpasswd writes it. */
const HASH = '$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi';
let dir: string;
let n = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'edge-web-config-'));
  const selfSigned = (name: string) => execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', `/CN=${name}`, '-keyout', join(dir, `${name}-key.pem`), '-out', join(dir, `${name}.pem`)], { stdio: 'ignore' });
  selfSigned('server');
  selfSigned('other');
  mkdirSync(join(dir, 'certs'));
  copyFileSync(join(dir, 'server.pem'), join(dir, 'certs', 'ca.pem'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `lines` as a web config file in `dir` and loads it. */
function load(...lines: string[]): WebConfig {
  const file = join(dir, `web-${++n}.yml`);
  writeFileSync(file, yaml(...lines));
  return loadWebConfig(file);
}

function problems(...lines: string[]): ConfigError {
  try {
    load(...lines);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const TLS = ['tls_server_config:', '  cert_file: server.pem', '  key_file: server-key.pem'];

describe('loadWebConfig: what maps onto the server', () => {
  it.each<[string, string[], (d: string) => Omit<WebConfig, 'file'>]>([
    ['an empty file is plain HTTP without auth', [''], () => ({})],
    ['an empty tls_server_config is plain HTTP, as exporter-toolkit reads it', ['tls_server_config: {}'], () => ({})],
    ['so is one with neither files nor a client auth type', ['tls_server_config: { cert_file: "", min_version: TLS13 }'], () => ({})],
    ['relative paths resolve against the file\'s directory', TLS, (d) => ({ tls: { cert_file: join(d, 'server.pem'), key_file: join(d, 'server-key.pem'), client_auth: 'none' } })],
    ['absolute paths stay', ['tls_server_config:', `  cert_file: ${'DIR'}/server.pem`, `  key_file: ${'DIR'}/server-key.pem`, '  client_auth_type: NoClientCert'],
      (d) => ({ tls: { cert_file: join(d, 'server.pem'), key_file: join(d, 'server-key.pem'), client_auth: 'none' } })],
    ['RequestClientCert is request', [...TLS, '  client_auth_type: RequestClientCert'],
      (d) => ({ tls: { cert_file: join(d, 'server.pem'), key_file: join(d, 'server-key.pem'), client_auth: 'request' } })],
    ['RequireAndVerifyClientCert with its CA is require_and_verify', [...TLS, '  client_auth_type: RequireAndVerifyClientCert', '  client_ca_file: certs/ca.pem'],
      (d) => ({ tls: { cert_file: join(d, 'server.pem'), key_file: join(d, 'server-key.pem'), client_ca_file: join(d, 'certs', 'ca.pem'), client_auth: 'require_and_verify' } })],
    ['min_version and max_version become Node\'s names', [...TLS, '  min_version: TLS13', '  max_version: TLS13', '  prefer_server_cipher_suites: true'],
      (d) => ({ tls: { cert_file: join(d, 'server.pem'), key_file: join(d, 'server-key.pem'), client_auth: 'none', min_version: 'TLSv1.3', max_version: 'TLSv1.3' } })],
    ['basic_auth_users without TLS, and http2 accepted (this server speaks HTTP/1.1)', ['http_server_config: { http2: false }', 'basic_auth_users:', `  prom: "${HASH}"`, `  other: "${HASH.replace('$2y$', '$2b$')}"`],
      () => ({ users: { prom: HASH, other: HASH.replace('$2y$', '$2b$') } })],
  ])('%s', (_, lines, expected) => {
    const config = load(...lines.map((l) => l.replace('DIR', dir)));
    expect(config).toEqual({ file: join(dir, `web-${n}.yml`), ...expected(dir) });
  });
});

describe('loadWebConfig: what is refused, by key', () => {
  it.each<[string, string[], string, RegExp]>([
    ['inline cert', [...TLS, '  cert: "-----BEGIN CERTIFICATE-----"'], 'tls_server_config.cert', /^not supported by edge-exporter: an inline certificate; use cert_file$/],
    ['cipher_suites', [...TLS, '  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]'], 'tls_server_config.cipher_suites', /^not supported by edge-exporter: Go's cipher suite names are not mapped onto OpenSSL's here; remove the list to use Node's defaults/],
    ['curve_preferences', [...TLS, '  curve_preferences: [X25519]'], 'tls_server_config.curve_preferences', /^not supported by edge-exporter/],
    ['client_allowed_sans', [...TLS, '  client_allowed_sans: [prometheus]'], 'tls_server_config.client_allowed_sans', /^not supported by edge-exporter: checking client certificate SANs/],
    ['headers', ['http_server_config: { headers: { X-Frame-Options: deny } }'], 'http_server_config.headers', /^not supported by edge-exporter: extra response headers$/],
    ['rate_limit', ['rate_limit: { interval: 1s, burst: 5 }'], 'rate_limit', /^not supported by edge-exporter: a request rate limit/],
    ['RequireAnyClientCert', [...TLS, '  client_auth_type: RequireAnyClientCert'], 'tls_server_config.client_auth_type', /^RequireAnyClientCert is not supported by edge-exporter: Node's TLS server cannot enforce a policy that requires a certificate without verifying it; use RequireAndVerifyClientCert with client_ca_file$/],
    ['VerifyClientCertIfGiven', [...TLS, '  client_auth_type: VerifyClientCertIfGiven'], 'tls_server_config.client_auth_type', /verifies a certificate only when one is given/],
    ['an unknown client_auth_type', [...TLS, '  client_auth_type: Always'], 'tls_server_config.client_auth_type', /^expected one of: NoClientCert, RequestClientCert, RequireAndVerifyClientCert$/],
    ['a client CA without a policy', [...TLS, '  client_ca_file: certs/ca.pem'], 'tls_server_config.client_ca_file', /client_auth_type is NoClientCert \(exporter-toolkit refuses this too\)/],
    ['RequireAndVerifyClientCert without a CA', [...TLS, '  client_auth_type: RequireAndVerifyClientCert'], 'tls_server_config.client_ca_file', /any certificate a public CA signed would pass/],
    ['a missing key_file', ['tls_server_config:', '  cert_file: server.pem'], 'tls_server_config.key_file', /^required when tls_server_config is set$/],
    ['a cert_file that does not exist', ['tls_server_config:', '  cert_file: gone.pem', '  key_file: server-key.pem'], 'tls_server_config.cert_file', /^cannot read \S*gone\.pem: no such file or directory \(ENOENT\)$/],
    ['a key that does not match', ['tls_server_config:', '  cert_file: server.pem', '  key_file: other-key.pem'], 'tls_server_config.key_file', /^does not match the certificate in tls_server_config\.cert_file$/],
    ['a client CA file that is no certificate', [...TLS, '  client_auth_type: RequireAndVerifyClientCert', '  client_ca_file: server-key.pem'], 'tls_server_config.client_ca_file', /^is not a PEM file of CA certificates$/],
    ['an unknown TLS version', [...TLS, '  min_version: TLS14'], 'tls_server_config.min_version', /^expected one of: TLS10, TLS11, TLS12, TLS13$/],
    ['max_version below min_version', [...TLS, '  min_version: TLS13', '  max_version: TLS12'], 'tls_server_config.max_version', /^must not be below min_version$/],
    ['a plain-text password in basic_auth_users', ['basic_auth_users: { prom: hunter2-plain }'], 'basic_auth_users.prom', /^expected a bcrypt hash like/],
    ['a misspelt top-level key', ['basic_auth_user: {}'], 'basic_auth_user', /^unknown key \(did you mean "basic_auth_users"\?\); expected one of: tls_server_config, http_server_config, basic_auth_users, rate_limit$/],
  ])('%s', (_, lines, path, message) => {
    const err = problems(...lines);
    expect(err.source).toBe(join(dir, `web-${n}.yml`));
    const problem = problemAt(err, path);
    expect(problem.message).toMatch(message);
    expect(problem.line).toBeGreaterThan(0);
    expect(err.message).not.toContain('hunter2-plain');
  });

  it('names the file when it cannot be read, and a YAML syntax error\'s line', () => {
    expect(() => loadWebConfig(join(dir, 'absent.yml'))).toThrow(/absent\.yml: cannot read the web config file: no such file or directory \(ENOENT\)/);
    expect(() => load('tls_server_config: [')).toThrow(/web-\d+\.yml:2:1: YAML syntax error/);
  });
});

describe('loadConfig with a web config file', () => {
  const base = ['simulator: { enabled: true }'];
  const webFile = (...lines: string[]): string => {
    const file = join(dir, `web-${++n}.yml`);
    writeFileSync(file, yaml(...lines));
    return file;
  };

  it('keeps the web config beside a server section that sets neither TLS nor basic auth', () => {
    const file = webFile(...TLS, 'basic_auth_users:', `  prom: "${HASH}"`);
    const config = loadConfig({ env: {}, text: yaml(...base, 'server: { listen: "127.0.0.1:0" }'), webConfigFile: file });
    expect(config.web_config).toEqual({ file, tls: { cert_file: join(dir, 'server.pem'), key_file: join(dir, 'server-key.pem'), client_auth: 'none' }, users: { prom: HASH } });
  });

  it.each<[string, string[], string]>([
    ['TLS', ['server: { tls: { cert_file: /x/c.pem, key_file: /x/k.pem } }'], 'server.tls'],
    ['basic auth', ['server: { basic_auth: { username: prom, password: a12345 } }'], 'server.basic_auth'],
  ])('refuses %s set in both places, at the server key', (_, lines, path) => {
    const file = webFile(...TLS, 'basic_auth_users:', `  prom: "${HASH}"`);
    try {
      loadConfig({ env: {}, text: yaml(...base, ...lines), webConfigFile: file });
      expect.unreachable('expected a ConfigError');
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      expect(problemAt(err, path).message).toBe(`${path === 'server.tls' ? 'tls_server_config' : 'basic_auth_users'} in ${file} (--web.config.file) sets this too; keep one of them`);
    }
  });
});
