import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { loadError, problemAt, yaml } from './helpers.js';

const base = ['simulator: { enabled: true }'];

describe('server section', () => {
  it('defaults to plain HTTP on 0.0.0.0:9810 without auth', () => {
    expect(loadConfig({ env: {}, text: yaml(...base) }).server).toEqual({ listen: '0.0.0.0:9810', enable_reload: false });
  });

  it('accepts basic auth with a password from the environment, and TLS files', () => {
    const config = loadConfig({
      env: { PROM_PASSWORD: 'pw-123456' },
      text: yaml(...base, 'server:', '  listen: 127.0.0.1:9999', '  basic_auth: { username: prom, password: "${PROM_PASSWORD}" }',
        '  tls: { cert_file: /etc/x/cert.pem, key_file: /etc/x/key.pem }'),
    });
    expect(config.server).toEqual({
      listen: '127.0.0.1:9999',
      enable_reload: false,
      basic_auth: { username: 'prom', password: 'pw-123456' },
      tls: { cert_file: '/etc/x/cert.pem', key_file: '/etc/x/key.pem', client_auth: 'none' },
    });
  });

  it('accepts client certificates verified against a CA, and a bcrypt password hash as htpasswd writes it', () => {
    const hash = '$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi';
    const config = loadConfig({
      env: {},
      text: yaml(...base, 'server:', `  basic_auth: { username: prom, password_hash: "${hash}" }`,
        '  tls: { cert_file: /x/c.pem, key_file: /x/k.pem, client_ca_file: /x/ca.pem, client_auth: require_and_verify }'),
    });
    expect(config.server.basic_auth).toEqual({ username: 'prom', password_hash: hash });
    expect(config.server.tls).toEqual({ cert_file: '/x/c.pem', key_file: '/x/k.pem', client_ca_file: '/x/ca.pem', client_auth: 'require_and_verify' });
  });

  it.each<[string[], string, RegExp]>([
    [['server: { listen: "9810" }'], 'server.listen', /HOST:PORT/],
    [['server: { basic_auth: { username: prom } }'], 'server.basic_auth.password', /exactly one of/],
    [['server: { basic_auth: { username: prom, password: a1234, password_file: /x } }'], 'server.basic_auth.password', /exactly one of/],
    [['server: { tls: { cert_file: /x } }'], 'server.tls.key_file', /./],
    [['server: { port: 1 }'], 'server.port', /unknown key; expected one of: listen, basic_auth, tls/],
    [['server: { basic_auth: { username: prom, password: a1234, password_hash: "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi" } }'], 'server.basic_auth.password', /exactly one of server\.basic_auth\.password, server\.basic_auth\.password_file and server\.basic_auth\.password_hash/],
    [['server: { basic_auth: { username: prom, password_hash: "$1$abc$def" } }'], 'server.basic_auth.password_hash', /expected a bcrypt hash like \$2y\$10\$/],
    [['server: { basic_auth: { username: prom, password_hash: "plain-text-password" } }'], 'server.basic_auth.password_hash', /expected a bcrypt hash/],
    [['server: { tls: { cert_file: /x, key_file: /y, client_ca_file: /ca } }'], 'server.tls.client_auth', /client_ca_file is set but client_auth is none: set client_auth: require_and_verify/],
    [['server: { tls: { cert_file: /x, key_file: /y, client_auth: require_and_verify } }'], 'server.tls.client_ca_file', /require_and_verify needs server\.tls\.client_ca_file/],
    [['server: { tls: { cert_file: /x, key_file: /y, client_auth: RequireAndVerifyClientCert } }'], 'server.tls.client_auth', /expected one of: none, request, require_and_verify/],
  ])('%j is reported at %s', (lines, path, message) => {
    const err = loadError({ text: yaml(...base, ...lines) });
    expect(problemAt(err, path).message).toMatch(message);
  });
});
