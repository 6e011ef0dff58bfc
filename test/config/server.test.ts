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
      tls: { cert_file: '/etc/x/cert.pem', key_file: '/etc/x/key.pem' },
    });
  });

  it.each<[string[], string, RegExp]>([
    [['server: { listen: "9810" }'], 'server.listen', /HOST:PORT/],
    [['server: { basic_auth: { username: prom } }'], 'server.basic_auth.password', /exactly one of/],
    [['server: { basic_auth: { username: prom, password: a1234, password_file: /x } }'], 'server.basic_auth.password', /exactly one of/],
    [['server: { tls: { cert_file: /x } }'], 'server.tls.key_file', /./],
    [['server: { port: 1 }'], 'server.port', /unknown key; expected one of: listen, basic_auth, tls/],
  ])('%j is reported at %s', (lines, path, message) => {
    const err = loadError({ text: yaml(...base, ...lines) });
    expect(problemAt(err, path).message).toMatch(message);
  });
});
