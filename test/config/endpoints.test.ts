// Each outbound section resolved into its client's endpoint, and proxy
// resolution: the environment read as curl and undici read it, a section's
// proxy_url (or its file) over it, NO_PROXY matched per URL, and proxy
// credentials never in a load error.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { insecureTlsKeys, outboundEndpoint, proxyEnvironment, proxyRoute } from '../../src/config/endpoints.js';
import { proxyFor } from '../../src/outbound/proxy-route.js';
import { loadError, problemAt, yaml } from './helpers.js';
import { makeTestPki } from '../support/test-pki.js';

const SIM = yaml('simulator: { enabled: true }');
const dir = mkdtempSync(join(tmpdir(), 'edge-proxy-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the environment', () => {
  it.each([
    ['lower-case over upper-case', { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:1' }, { httpsProxy: 'http://lower:1' }],
    ['upper-case alone', { HTTPS_PROXY: 'http://upper:1' }, { httpsProxy: 'http://upper:1' }],
    ['upper-case HTTP_PROXY honoured (unlike curl)', { HTTP_PROXY: 'http://upper:2' }, { httpProxy: 'http://upper:2' }],
    ['an empty lower-case one counts as unset', { http_proxy: '', HTTP_PROXY: 'http://upper:2' }, { httpProxy: 'http://upper:2' }],
    ['no_proxy over NO_PROXY', { HTTPS_PROXY: 'http://p:1', no_proxy: 'a.example', NO_PROXY: 'b.example' }, { noProxy: 'a.example' }],
  ])('%s', (_name, env, expected) => {
    expect(proxyEnvironment(env)).toMatchObject(expected);
  });

  it('no variable: no proxy', () => {
    expect(proxyEnvironment({})).toEqual({ httpProxy: '', httpsProxy: '', noProxy: '', source: 'none' });
  });

  it('proxy_url replaces the environment, NO_PROXY included', () => {
    const env = proxyEnvironment({ HTTPS_PROXY: 'http://env:1', NO_PROXY: '*' });
    expect(proxyRoute('http://cfg:3128', env)).toEqual({ httpProxy: 'http://cfg:3128', httpsProxy: 'http://cfg:3128', noProxy: '', source: 'config' });
    expect(proxyRoute(undefined, env)).toBe(env);
  });
});

describe('proxyFor: which proxy a target goes through (undici EnvHttpProxyAgent\'s rules)', () => {
  const route = (noProxy: string) => ({ httpProxy: 'http://hp:1', httpsProxy: 'http://hsp:1', noProxy, source: 'environment' as const });
  it.each([
    ['https target uses the https proxy', '', 'https://api.example.com', 'http://hsp:1'],
    ['http target uses the http proxy', '', 'http://api.example.com', 'http://hp:1'],
    ['exact host', 'api.example.com', 'https://api.example.com', undefined],
    ['subdomain of an entry', 'example.com', 'https://api.example.com', undefined],
    ['leading dot', '.example.com', 'https://api.example.com', undefined],
    ['leading *.', '*.example.com', 'https://api.example.com', undefined],
    ['not a suffix on a label boundary', 'ample.com', 'https://api.example.com', 'http://hsp:1'],
    ['case-insensitive', 'API.Example.COM', 'https://api.example.com', undefined],
    ['port must match', 'api.example.com:8443', 'https://api.example.com', 'http://hsp:1'],
    ['default port matches', 'api.example.com:443', 'https://api.example.com', undefined],
    ['explicit port matches', '127.0.0.1:4318', 'http://127.0.0.1:4318/v1/logs', undefined],
    ['* alone: never a proxy', '*', 'https://api.example.com', undefined],
    ['list split on commas and spaces', 'a.test, b.test  api.example.com', 'https://api.example.com', undefined],
  ])('%s', (_name, noProxy, target, expected) => {
    expect(proxyFor(route(noProxy), target)).toBe(expected);
  });

  it('an https target without an https proxy uses the http one (as undici does)', () => {
    expect(proxyFor({ httpProxy: 'http://hp:1', httpsProxy: '', noProxy: '', source: 'environment' }, 'https://x.test')).toBe('http://hp:1');
  });
});

describe('loadConfig', () => {
  it('resolves each section\'s route from its proxy_url and the environment', () => {
    const config = loadConfig({
      text: yaml('simulator: { enabled: true }', 'otlp: { proxy_url: "http://otlp-proxy:3128" }'),
      env: { HTTPS_PROXY: 'http://corp:8080', NO_PROXY: 'internal' },
    });
    expect(config.proxies.upstream).toEqual({ httpProxy: '', httpsProxy: 'http://corp:8080', noProxy: 'internal', source: 'environment' });
    expect(config.proxies.remote_write).toEqual(config.proxies.upstream);
    expect(config.proxies.otlp_metrics).toEqual(config.proxies.upstream);
    expect(config.proxies.otlp).toEqual({ httpProxy: 'http://otlp-proxy:3128', httpsProxy: 'http://otlp-proxy:3128', noProxy: '', source: 'config' });
  });

  it('reads proxy_url_file (trimmed) into proxy_url', () => {
    const file = join(dir, 'proxy');
    writeFileSync(file, 'http://user:pw-in-file@proxy:3128\n');
    const config = loadConfig({ text: yaml('simulator: { enabled: true }', `remote_write: { proxy_url_file: ${JSON.stringify(file)} }`), env: {} });
    expect(config.remote_write.proxy_url).toBe('http://user:pw-in-file@proxy:3128');
    expect(config.proxies.remote_write.httpsProxy).toBe('http://user:pw-in-file@proxy:3128');
  });

  it('refuses proxy_url next to proxy_url_file', () => {
    const err = loadError({ text: yaml('simulator: { enabled: true }', 'upstream: { proxy_url: "http://p:1", proxy_url_file: /x }') });
    expect(problemAt(err, 'upstream.proxy_url_file').message).toContain('mutually exclusive');
  });

  it('refuses a proxy URL that is not http(s), without quoting it', () => {
    const err = loadError({ text: yaml('simulator: { enabled: true }', 'upstream: { proxy_url: "socks5://user:s3cret-pw@p:1" }') });
    expect(problemAt(err, 'upstream.proxy_url').message).toContain('http:// or https:// proxy URL');
    expect(err.message).not.toContain('s3cret-pw');
  });

  it('names an unreadable or unusable proxy_url_file, never its content', () => {
    const bad = join(dir, 'bad-proxy');
    writeFileSync(bad, 'ftp://user:leaked-pw@proxy:21\n');
    const err = loadError({ text: yaml(
      'simulator: { enabled: true }',
      `otlp: { proxy_url_file: ${JSON.stringify(bad)} }`,
      `upstream: { proxy_url_file: ${JSON.stringify(join(dir, 'missing'))} }`,
    ) });
    expect(problemAt(err, 'otlp.proxy_url_file').message).toBe('the proxy URL file must hold one http:// or https:// URL');
    expect(problemAt(err, 'upstream.proxy_url_file').message).toBe(`cannot read the proxy URL file ${join(dir, 'missing')}: no such file or directory (ENOENT)`);
    expect(err.message).not.toContain('leaked-pw');
  });

  describe('proxy credentials never appear in a problem', () => {
    const PW = 'pr0xy-pw-7788';
    const proxyFile = join(dir, 'proxy-with-pw');
    writeFileSync(proxyFile, `http://u:${PW}@proxy:3128`);
    // An unknown key's problem quotes the key, so a password put there would show unless masked.
    const level = `log: { ${PW}: 1 }`;
    it('(control: an unknown key\'s problem quotes it)', () => {
      expect(loadError({ text: yaml('simulator: { enabled: true }', level) }).message).toContain(PW);
    });
    it.each([
      ['from HTTPS_PROXY', { text: yaml('simulator: { enabled: true }', level), env: { HTTPS_PROXY: `http://u:${PW}@p:1` } }],
      ['from https_proxy, percent-encoded', { text: yaml('simulator: { enabled: true }', level), env: { https_proxy: `http://u:${encodeURIComponent(PW)}@p:1` } }],
      ['from upstream.proxy_url', { text: yaml('simulator: { enabled: true }', level, `upstream: { proxy_url: "http://u:${PW}@p:1" }`) }],
      ['from otlp.proxy_url_file', { text: yaml('simulator: { enabled: true }', level, `otlp: { proxy_url_file: ${JSON.stringify(proxyFile)} }`) }],
    ])('%s', (_name, opts) => {
      const err = loadError(opts);
      expect(err.message).not.toContain(PW);
      expect(JSON.stringify(err.problems)).not.toContain(PW);
    });
  });
});

describe('the shared TLS block', () => {
  it.each(['upstream', 'otlp', 'otlp_metrics', 'remote_write'])('%s.tls takes ca_file, cert_file + key_file, server_name, insecure_skip_verify', (section) => {
    const text = yaml(SIM.trim(), `${section}: { tls: { ca_file: ca.pem, cert_file: c.pem, key_file: k.pem, server_name: api.test, insecure_skip_verify: true } }`);
    const config = loadConfig({ text, env: {} });
    expect(config[section as 'upstream'].tls).toEqual({ ca_file: 'ca.pem', cert_file: 'c.pem', key_file: 'k.pem', server_name: 'api.test', insecure_skip_verify: true });
  });

  it.each(['"true"', 'yes', '1'])('refuses insecure_skip_verify: %s (only the boolean true turns checks off)', (value) => {
    const err = loadError({ text: yaml(SIM.trim(), `upstream: { tls: { insecure_skip_verify: ${value} } }`) });
    expect(problemAt(err, 'upstream.tls.insecure_skip_verify')).toBeDefined();
  });

  it('defaults insecure_skip_verify to false', () => {
    expect(loadConfig({ text: yaml(SIM.trim(), 'otlp: { tls: { ca_file: ca.pem } }'), env: {} }).otlp.tls?.insecure_skip_verify).toBe(false);
  });

  it.each(['upstream', 'otlp', 'otlp_metrics', 'remote_write'])('%s.tls: cert_file without key_file is refused', (section) => {
    const err = loadError({ text: yaml(SIM.trim(), `${section}: { tls: { cert_file: c.pem } }`) });
    expect(problemAt(err, `${section}.tls.cert_file`).message).toBe(`set both ${section}.tls.cert_file and ${section}.tls.key_file, or neither`);
  });
});

describe('outboundEndpoint: one resolver for every client section', () => {
  const config = loadConfig({
    env: { HTTPS_PROXY: 'http://corp:8080' },
    text: yaml(
      'upstream: { api_url: "https://api.example.com", token: t, tls: { ca_file: ca.pem, server_name: api.internal } }',
      'otlp: { endpoint: "https://otel.example.com/v1/logs", proxy_url: "http://otel-proxy:3128" }',
      'remote_write: { url: "https://rw.example.com/api/v1/write", tls: { insecure_skip_verify: true } }',
      'otlp_metrics: { enabled: true, tls: { server_name: otel.internal } }',
    ),
  });

  it.each([
    ['upstream', 'https://api.example.com', 'http://corp:8080', { caFile: 'ca.pem', serverName: 'api.internal', insecureSkipVerify: false }],
    ['otlp', 'https://otel.example.com/v1/logs', 'http://otel-proxy:3128', undefined],
    ['remote_write', 'https://rw.example.com/api/v1/write', 'http://corp:8080', { insecureSkipVerify: true }],
    ['otlp_metrics', 'https://otel.example.com/v1/metrics', 'http://corp:8080', { serverName: 'otel.internal', insecureSkipVerify: false }],
  ] as const)('%s: its URL, its route and its tls block', (name, url, httpsProxy, tls) => {
    const endpoint = outboundEndpoint(config, name);
    expect(endpoint).toMatchObject({ name, url, local: false, route: { httpsProxy } });
    expect(endpoint?.tls).toEqual(tls);
  });

  it('a stand-in is used only where the section sets no URL, reached directly without the tls block', () => {
    const sim = loadConfig({ text: yaml(SIM.trim(), 'upstream: { tls: { ca_file: ca.pem } }'), env: { HTTPS_PROXY: 'http://corp:8080' } });
    expect(outboundEndpoint(sim, 'upstream', 'http://127.0.0.1:9')).toEqual({
      name: 'upstream', url: 'http://127.0.0.1:9', route: { httpProxy: '', httpsProxy: '', noProxy: '', source: 'none' }, local: true,
    });
    expect(outboundEndpoint(config, 'upstream', 'http://127.0.0.1:9')?.url).toBe('https://api.example.com');
  });

  it('no client where the section has no URL and no default', () => {
    const sim = loadConfig({ text: SIM, env: {} });
    expect(outboundEndpoint(sim, 'upstream')).toBeUndefined();
    expect(outboundEndpoint(sim, 'remote_write')).toBeUndefined();
    expect(outboundEndpoint(sim, 'otlp_metrics')).toBeUndefined();
    expect(outboundEndpoint(sim, 'otlp').url).toBe('http://127.0.0.1:4318/v1/logs');
  });
});

describe('insecureTlsKeys', () => {
  it('names each TLS block in use with insecure_skip_verify: true, and only those in use', () => {
    const on = '{ insecure_skip_verify: true }';
    const load = (...lines: string[]) => loadConfig({ text: yaml(SIM.trim(), ...lines), env: {} });
    expect(insecureTlsKeys(load(
      `upstream: { tls: ${on} }`, `otlp: { tls: ${on} }`, `otlp_metrics: { tls: ${on} }`, `remote_write: { tls: ${on} }`,
    ))).toEqual(['upstream.tls.insecure_skip_verify']);
    expect(insecureTlsKeys(load(
      `otlp: { tls: ${on} }`, 'waf_events: { enabled: true }', `otlp_metrics: { enabled: true, tls: ${on} }`,
      `remote_write: { url: "https://rw.test/api/v1/write", tls: ${on} }`,
    ))).toEqual(['otlp.tls.insecure_skip_verify', 'otlp_metrics.tls.insecure_skip_verify', 'remote_write.tls.insecure_skip_verify']);
    expect(insecureTlsKeys(load('upstream: { tls: { ca_file: ca.pem } }'))).toEqual([]);
  });
});

describe('the TLS files, checked at load when the daemon\'s files are (run, check-config)', () => {
  const pki = makeTestPki(mkdtempSync(join(dir, 'pki-')));
  const garbage = join(dir, 'garbage.pem');
  writeFileSync(garbage, 'not a certificate, and not to be quoted\n');

  it('accepts readable PEM files', () => {
    const text = yaml(SIM.trim(), `upstream: { tls: { ca_file: ${JSON.stringify(pki.caFile)}, cert_file: ${JSON.stringify(pki.clientCertFile)}, key_file: ${JSON.stringify(pki.clientKeyFile)} } }`);
    expect(loadConfig({ text, env: {}, serverFiles: true }).upstream.tls?.ca_file).toBe(pki.caFile);
  });

  it('names each file that cannot be read or holds no PEM, never its content', () => {
    const err = loadError({ serverFiles: true, text: yaml(
      SIM.trim(),
      `otlp: { tls: { ca_file: ${JSON.stringify(join(dir, 'absent.pem'))} } }`,
      `remote_write: { tls: { cert_file: ${JSON.stringify(garbage)}, key_file: ${JSON.stringify(garbage)} } }`,
    ) });
    expect(problemAt(err, 'otlp.tls.ca_file').message).toBe(`cannot read ${join(dir, 'absent.pem')}: no such file or directory (ENOENT)`);
    expect(problemAt(err, 'remote_write.tls.cert_file').message).toBe('does not hold a PEM certificate');
    expect(problemAt(err, 'remote_write.tls.key_file').message).toBe('does not hold an unencrypted PEM private key');
    expect(err.message).not.toContain('not to be quoted');
  });

  it('leaves them to the clients when the server\'s files are not checked (call, doctor)', () => {
    expect(loadConfig({ text: yaml(SIM.trim(), 'otlp: { tls: { ca_file: /absent.pem } }'), env: {} }).otlp.tls?.ca_file).toBe('/absent.pem');
  });
});
