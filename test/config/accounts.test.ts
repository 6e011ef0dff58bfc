// `account:` / `accounts:` and resolveAccounts: one Config per account, each
// with its own upstream, targets, overrides, files, proxy and state
// directory, and nothing of another account in it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAccounts, type ResolvedAccount } from '../../src/config/index.js';
import { loadConfig } from '../../src/config/load.js';
import { loadError, problemAt, yaml } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'edge-accounts-'));
function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const SINGLE = yaml('upstream:', '  api_url: https://api.example.com', '  token: single-token-4410');

/** Two accounts over a shared top level: a timeout, a collector key and a target list to inherit or override. */
const TWO = yaml(
  'upstream:',
  '  timeout: 30s',
  'targets:',
  '  domains:',
  '    static: [shared.example.com]',
  'collectors:',
  '  topn:',
  '    top: 20',
  'state_dir: /var/lib/edge',
  'accounts:',
  '  - name: eu-shop',
  '    upstream:',
  '      api_url: https://eu.api.example.com',
  '      token: eu-token-5021',
  '    targets:',
  '      domains:',
  '        static: [shop.example.eu]',
  '    collectors:',
  '      topn:',
  '        enabled: false',
  '  - name: us-blog',
  '    upstream:',
  '      api_url: https://us.api.example.com',
  '      token: us-token-7733',
  '      timeout: 5s',
);

describe('resolveAccounts without accounts:', () => {
  it('is one account named default, the config unchanged', () => {
    const config = loadConfig({ text: SINGLE, env: {} });
    expect(resolveAccounts(config)).toEqual([{ name: 'default', config }]);
    expect(resolveAccounts(config)[0]?.config).toBe(config);
    expect(config.state_dir).toBe('./state');
  });

  it('is named by account.name', () => {
    const config = loadConfig({ text: yaml(SINGLE, 'account:', '  name: main-1'), env: {} });
    expect(resolveAccounts(config).map((a) => a.name)).toEqual(['main-1']);
  });

  it('takes EDGE_API_TOKEN as before', () => {
    const config = loadConfig({ text: SINGLE, env: { EDGE_API_TOKEN: 'env-token-1203' } });
    expect(resolveAccounts(config)[0]?.config.upstream.token).toBe('env-token-1203');
  });
});

describe('resolveAccounts with accounts:', () => {
  const accounts: ResolvedAccount[] = resolveAccounts(loadConfig({ text: TWO, env: {} }));
  const [eu, us] = accounts.map((a) => a.config);

  it('gives one config per account, in the order listed, named by the entry', () => {
    expect(accounts.map((a) => a.name)).toEqual(['eu-shop', 'us-blog']);
    expect([eu?.account.name, us?.account.name]).toEqual(['eu-shop', 'us-blog']);
    expect(eu?.accounts).toBeUndefined();
  });

  it("gives each its own upstream, merged over the top level's", () => {
    expect(eu?.upstream).toMatchObject({ api_url: 'https://eu.api.example.com', login_url: 'https://eu.api.example.com', token: 'eu-token-5021', timeout: 30_000 });
    expect(us?.upstream).toMatchObject({ api_url: 'https://us.api.example.com', token: 'us-token-7733', timeout: 5_000 });
    // Keys neither sets keep their defaults.
    expect(us?.upstream.retry).toEqual({ attempts: 4, min_delay: 250, max_delay: 10_000 });
  });

  it('gives each its own targets, or the top-level ones; a list replaces the inherited one', () => {
    expect(eu?.targets.domains.static).toEqual(['shop.example.eu']);
    expect(us?.targets.domains.static).toEqual(['shared.example.com']);
  });

  it("merges a collector override key by key over the top level's", () => {
    expect(eu?.collectors.topn).toMatchObject({ enabled: false, top: 20, interval: '5m' });
    expect(us?.collectors.topn).toMatchObject({ enabled: true, top: 20 });
    expect(eu?.collectors.access).toEqual(us?.collectors.access);
  });

  it('keeps each account\'s state in <state_dir>/accounts/<name>', () => {
    expect([eu?.state_dir, us?.state_dir]).toEqual([join('/var/lib/edge', 'accounts', 'eu-shop'), join('/var/lib/edge', 'accounts', 'us-blog')]);
  });

  it('shares what is not per account', () => {
    expect(eu?.server).toEqual(us?.server);
    expect(eu?.otlp).toEqual(us?.otlp);
  });
});

describe('one account\'s files and proxy are its own', () => {
  const tokenFile = file('eu-token', 'eu-file-token-9182\n');
  const proxyFile = file('eu-proxy', 'http://eu-user:eu-proxy-pw-6620@proxy.eu.example.com:3128\n');
  const text = yaml(
    'accounts:',
    '  - name: eu-shop',
    '    upstream:',
    '      api_url: https://eu.api.example.com',
    `      token_file: ${tokenFile}`,
    `      proxy_url_file: ${proxyFile}`,
    '  - name: us-blog',
    '    upstream:',
    '      api_url: https://us.api.example.com',
    '      token: us-token-7733',
  );
  const [eu, us] = resolveAccounts(loadConfig({ text, env: { HTTPS_PROXY: 'http://corp:8080' } })).map((a) => a.config);

  it('reads the token file and the proxy URL file for that account', () => {
    expect(eu?.upstream.token).toBe('eu-file-token-9182');
    expect(eu?.proxies.upstream).toEqual({
      httpProxy: 'http://eu-user:eu-proxy-pw-6620@proxy.eu.example.com:3128',
      httpsProxy: 'http://eu-user:eu-proxy-pw-6620@proxy.eu.example.com:3128',
      noProxy: '',
      source: 'config',
    });
  });

  it('leaves the other account on its own token and the environment\'s proxy', () => {
    expect(us?.upstream.token).toBe('us-token-7733');
    expect(us?.proxies.upstream).toEqual({ httpProxy: '', httpsProxy: 'http://corp:8080', noProxy: '', source: 'environment' });
  });

  it('never puts one account\'s secrets in the other\'s config', () => {
    const other = JSON.stringify(us);
    for (const secret of ['eu-file-token-9182', 'eu-proxy-pw-6620', tokenFile, proxyFile]) expect(other).not.toContain(secret);
    expect(JSON.stringify(eu)).not.toContain('us-token-7733');
  });

  it('checks the entry\'s TLS files at the entry\'s key', () => {
    const err = loadError({
      serverFiles: true,
      text: yaml('accounts:', '  - name: eu-shop', '    upstream:', '      api_url: https://eu.api.example.com', '      token: t-1', '      tls:', `        ca_file: ${join(dir, 'no-ca.pem')}`),
    });
    expect(problemAt(err, 'accounts.0.upstream.tls.ca_file').message).toMatch(/cannot read/);
  });

  it('reports a bad account file at the entry\'s key', () => {
    const err = loadError({
      text: yaml('accounts:', '  - name: eu-shop', '    upstream:', '      api_url: https://eu.api.example.com', `      token_file: ${join(dir, 'missing')}`),
    });
    expect(problemAt(err, 'accounts.0.upstream.token_file').message).toMatch(/cannot read the token file/);
  });
});

describe('accounts: mistakes', () => {
  const entry = (name: string, token = `${name}-token-1`) =>
    ['  - name: ' + name, '    upstream:', `      api_url: https://${name}.example.com`, `      token: ${token}`];

  it('refuses a repeated name, naming the other index', () => {
    const err = loadError({ text: yaml('accounts:', ...entry('a'), ...entry('b'), ...entry('a')) });
    const problem = problemAt(err, 'accounts.2.name');
    expect(problem.message).toBe('accounts[2].name repeats accounts[0].name: names must be unique');
    expect([problem.line, problem.col]).toEqual([10, 5]);
  });

  it.each(['EU-Shop', 'eu_shop', 'eu.shop', ''])('refuses the name %j', (name) => {
    const err = loadError({ text: yaml('accounts:', `  - name: "${name}"`, '    upstream:', '      api_url: https://x.example.com', '      token: t-1') });
    expect(problemAt(err, 'accounts.0.name').message).toMatch(/lower-case letters, digits and -/);
  });

  it('refuses a bad account.name', () => {
    expect(problemAt(loadError({ text: yaml(SINGLE, 'account:', '  name: Main') }), 'account.name').message).toMatch(/lower-case/);
  });

  it('refuses an empty list, saying what to do', () => {
    expect(problemAt(loadError({ text: yaml('accounts: []') }), 'accounts').message).toBe(
      'list at least one account, or leave accounts: out to read the top-level upstream',
    );
  });

  it('names the entry whose upstream has no api_url', () => {
    const err = loadError({ text: yaml('accounts:', ...entry('a'), '  - name: b', '    upstream:', '      token: b-token-1') });
    expect(problemAt(err, 'accounts.1.upstream.api_url').message).toMatch(/^required/);
    expect(err.problems.map((p) => p.path)).toEqual(['accounts.1.upstream.api_url']);
  });

  it('names the entry without an upstream', () => {
    const err = loadError({ text: yaml('accounts:', ...entry('a'), '  - name: b') });
    expect(problemAt(err, 'accounts.1.upstream').message).toBe('required');
  });

  it('names the entry without a token', () => {
    const err = loadError({ text: yaml('accounts:', '  - name: a', '    upstream:', '      api_url: https://a.example.com') });
    expect(problemAt(err, 'accounts.0.upstream.token').message).toMatch(/accounts\[0\]\.upstream\.token or token_file/);
  });

  it('refuses account.name beside accounts:, naming both', () => {
    const err = loadError({ text: yaml('account:', '  name: main', 'accounts:', ...entry('a')) });
    expect(problemAt(err, 'account').message).toMatch(/account\.name and accounts: are mutually exclusive/);
  });

  it.each(['api_url', 'token'])('refuses a top-level upstream.%s beside accounts:', (key) => {
    const err = loadError({ text: yaml('upstream:', `  ${key}: https://shared.example.com`, 'accounts:', ...entry('a')) });
    expect(problemAt(err, `upstream.${key}`).message).toBe(`with accounts: set, each account sets its own: move it to accounts[i].upstream.${key}`);
  });

  it('still names the entry without api_url when the top level sets one', () => {
    const err = loadError({ text: yaml('upstream:', '  api_url: https://shared.example.com', 'accounts:', '  - name: a', '    upstream: { token: a-1 }') });
    expect(err.problems.map((p) => p.path)).toEqual(['upstream.api_url', 'accounts.0.upstream.api_url']);
  });

  it('refuses EDGE_API_TOKEN beside accounts:, naming the variable, and never shows its value', () => {
    const err = loadError({ text: yaml('accounts:', ...entry('a')), env: { EDGE_API_TOKEN: 'env-token-3391' } });
    const problem = problemAt(err, 'upstream.token');
    expect(problem.env).toBe('EDGE_API_TOKEN');
    expect(problem.message).toMatch(/^EDGE_API_TOKEN .*set accounts\[i\]\.upstream\.token per account/);
    expect(err.message).not.toContain('env-token-3391');
  });

  it('still interpolates ${VAR} in each account\'s token', () => {
    const config = loadConfig({ text: yaml('accounts:', ...entry('a', '${A_TOKEN}')), env: { A_TOKEN: 'a-env-token-8' } });
    expect(resolveAccounts(config)[0]?.config.upstream.token).toBe('a-env-token-8');
  });

  it('reports a bad inherited value once, at the top-level key', () => {
    const err = loadError({ text: yaml('upstream:', '  timeout: soon', 'accounts:', ...entry('a'), ...entry('b')) });
    expect(err.problems.map((p) => p.path)).toEqual(['upstream.timeout']);
  });

  it('reports an entry\'s own bad value at the entry\'s key', () => {
    const err = loadError({ text: yaml('accounts:', ...entry('a'), '      timeout: soon') });
    expect(err.problems.map((p) => p.path)).toEqual(['accounts.0.upstream.timeout']);
  });

  it('hints the keys an entry\'s section knows', () => {
    const err = loadError({ text: yaml('accounts:', ...entry('a'), '      timout: 5s') });
    expect(problemAt(err, 'accounts.0.upstream.timout').message).toMatch(/did you mean "timeout"/);
  });

  it('masks an entry\'s token in every message', () => {
    const err = loadError({ text: yaml('accounts:', ...entry('a', 'secret-a-7781'), '      secret-a-7781: 1') });
    expect(err.message).not.toContain('secret-a-7781');
  });
});

describe('an inherited proxy', () => {
  it('gives way to the entry\'s own proxy_url_file', () => {
    const proxyFile = file('b-proxy', 'http://proxy.b.example.com:3128');
    const config = loadConfig({
      text: yaml(
        'upstream:',
        '  proxy_url: http://shared-proxy:3128',
        'accounts:',
        '  - name: a',
        '    upstream: { api_url: https://a.example.com, token: a-1 }',
        '  - name: b',
        `    upstream: { api_url: https://b.example.com, token: b-1, proxy_url_file: ${proxyFile} }`,
      ),
      env: {},
    });
    const [a, b] = resolveAccounts(config).map((r) => r.config);
    expect(a?.proxies.upstream.httpsProxy).toBe('http://shared-proxy:3128');
    expect(b?.proxies.upstream.httpsProxy).toBe('http://proxy.b.example.com:3128');
  });
});
