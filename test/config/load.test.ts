import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { loadError, problemAt, yaml } from './helpers.js';

const SIM = 'simulator: { enabled: true }';
const REAL = yaml('upstream:', '  api_url: https://api.example.com', '  token: t0ken-value');
const TOKEN = 'tok-SECRET-7f3a9c';

const dir = mkdtempSync(join(tmpdir(), 'edge-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const tmpFile = (name: string, content: string): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

describe('loadConfig: valid configs', () => {
  it.each([
    ['simulator only', SIM],
    ['real account with token', REAL],
    ['real account with trailing slash', yaml('upstream:', '  api_url: http://10.0.0.1:8080/', '  token: abcd')],
    ['empty document with env', ''],
  ])('%s', (_name, text) => {
    const config = loadConfig({ text, env: { EDGE_API_URL: 'https://env.example.com', EDGE_API_TOKEN: 'abcd' } });
    expect(config.log.level).toBe('info');
  });

  it('fills every default', () => {
    const config = loadConfig({ text: SIM, env: {} });
    expect(config).toEqual({
      account: { name: 'default' },
      upstream: {
        api_url: undefined,
        login_url: undefined,
        auth_scheme: 'bearer',
        timezone: '+08:00',
        timeout: 15_000,
        max_body_bytes: 33_554_432,
        concurrency: 8,
        connections: 16,
        order_rate_limit: 10,
        rate_limits: {},
        retry: { attempts: 4, min_delay: 250, max_delay: 10_000 },
        paths: {},
        units: { bandwidth: 'bits_per_second', request_time: 'milliseconds' },
      },
      simulator: { enabled: true, listen: '127.0.0.1:0', seed: 1, domains: 20, token: 'sim-token' },
      log: { level: 'info' },
      // Key by key in collectors.test.ts.
      collectors: expect.any(Object),
      targets: expect.any(Object),
      shard: { index: 0, count: 1 },
      metrics: { allow: [], deny: [] },
      limits: { label_value_length: 128, series_per_family: 10_000 },
      server: { listen: '0.0.0.0:9810', enable_reload: false },
      // Key by key in waf-events.test.ts.
      waf_events: expect.any(Object),
      otlp: expect.any(Object),
      // Key by key in otlp-metrics.test.ts.
      otlp_metrics: expect.any(Object),
      // Key by key in remote-write.test.ts.
      remote_write: expect.any(Object),
      state_dir: './state',
      state_recovery: 'fail',
      // No proxy_url and no proxy variable in the environment: every client connects directly.
      proxies: Object.fromEntries(['upstream', 'otlp', 'otlp_metrics', 'remote_write'].map((s) => [s, { httpProxy: '', httpsProxy: '', noProxy: '', source: 'none' }])),
    });
  });

  it('defaults login_url to api_url and drops a trailing slash', () => {
    const config = loadConfig({ text: yaml('upstream:', '  api_url: https://api.example.com/', '  token: abcd'), env: {} });
    expect(config.upstream.api_url).toBe('https://api.example.com');
    expect(config.upstream.login_url).toBe('https://api.example.com');
  });

  it('keeps per-operation path overrides', () => {
    const config = loadConfig({ text: yaml(SIM, 'upstream:', '  paths:', '    listDomains: /cdn/domain/list'), env: {} });
    expect(config.upstream.paths).toEqual({ listDomains: '/cdn/domain/list' });
  });
});

describe('loadConfig: durations', () => {
  it.each([
    ['500ms', 500],
    ['15s', 15_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['0.04d', 3_456_000], // the d unit within the timeout's 1h bound
    ['1m30s', 90_000],
    ['1.5s', 1_500],
    ['2500', 2_500],
    [2500, 2_500],
  ])('timeout %j -> %i ms', (value, ms) => {
    const config = loadConfig({ text: yaml(SIM, 'upstream:', `  timeout: ${JSON.stringify(value)}`), env: {} });
    expect(config.upstream.timeout).toBe(ms);
  });

  it.each(['5x', '15 s', '-1s', 's', '1.5', 'true'])('rejects timeout %j', (value) => {
    const err = loadError({ text: yaml(SIM, 'upstream:', `  timeout: ${value}`) });
    expect(problemAt(err, 'upstream.timeout').message).toBe('expected a duration like 500ms, 15s, 5m, 1h');
  });
});

describe('loadConfig: each mistake is reported at its YAML path', () => {
  it.each([
    ['wrong type', yaml(SIM, 'upstream:', '  concurrency: eight'), 'upstream.concurrency', 3, 3, /expected a number, got a string/],
    ['fraction for an integer', yaml(SIM, 'upstream:', '  connections: 1.5'), 'upstream.connections', 3, 3, /expected an integer/],
    ['below minimum', yaml(SIM, 'upstream:', '  retry:', '    attempts: 0'), 'upstream.retry.attempts', 4, 5, /expected a number >= 1/],
    ['unknown key (typo)', yaml(SIM, 'upstream:', '  tiemout: 5s'), 'upstream.tiemout', 3, 3, /unknown key \(did you mean "timeout"\?\)/],
    // A plural is a typo of its singular ('retries' is three edits from 'retry', too far for the distance alone).
    ['unknown key (plural)', yaml(SIM, 'upstream:', '  retries: 3'), 'upstream.retries', 3, 3, /unknown key \(did you mean "retry"\?\)/],
    ['unknown key (nothing near)', yaml(SIM, 'upstream:', '  zzz: 3'), 'upstream.zzz', 3, 3, /^unknown key; expected one of: api_url/],
    ['unknown top-level key', yaml(SIM, 'loggging: {}'), 'loggging', 2, 1, /unknown key.*expected one of: upstream, simulator, log, .*state_dir, state_recovery, account, accounts/],
    ['bad URL', yaml('upstream:', '  api_url: not a url', '  token: abcd'), 'upstream.api_url', 2, 3, /http:\/\/ or https:\/\/ URL/],
    ['non-http URL', yaml('upstream:', '  api_url: ftp://x.example', '  token: abcd'), 'upstream.api_url', 2, 3, /http:\/\/ or https:\/\/ URL/],
    ['bad timezone', yaml(SIM, 'upstream:', '  timezone: Asia/Shanghai'), 'upstream.timezone', 3, 3, /UTC offset like \+08:00/],
    ['bad duration', yaml(SIM, 'upstream:', '  retry:', '    max_delay: soon'), 'upstream.retry.max_delay', 4, 5, /duration like 500ms/],
    ['min_delay > max_delay', yaml(SIM, 'upstream:', '  retry: { min_delay: 20s, max_delay: 1s }'), 'upstream.retry.min_delay', 3, 12, /max_delay/],
    ['unknown operation', yaml(SIM, 'upstream:', '  paths:', '    listDomain: /x'), 'upstream.paths.listDomain', 4, 5, /did you mean "listDomains".*describeLogV2, batchUpdateDomainCertInfo/],
    ['path without slash', yaml(SIM, 'upstream:', '  paths:', '    listDomains: cdn/list'), 'upstream.paths.listDomains', 4, 5, /starting with \//],
    ['bad enum', yaml(SIM, 'log:', '  level: verbose'), 'log.level', 3, 3, /expected one of: fatal, error, warn, info, debug, trace/],
    ['bad log format', yaml(SIM, 'log:', '  format: text'), 'log.format', 3, 3, /expected one of: json, pretty/],
    ['bad auth scheme', yaml(SIM, 'upstream: { auth_scheme: basic }'), 'upstream.auth_scheme', 2, 13, /bearer, raw/],
    ['bad listen', yaml('simulator:', '  enabled: true', '  listen: localhost'), 'simulator.listen', 3, 3, /HOST:PORT/],
    ['domains out of range', yaml('simulator:', '  enabled: true', '  domains: 100001'), 'simulator.domains', 3, 3, /<= 100000/],
    ['section of wrong shape', yaml(SIM, 'log: [info]'), 'log', 2, 1, /expected a mapping, got a list/],
    // Left empty, a section is null: its cross-field rules run on it anyway and must not throw.
    ['empty upstream', yaml(SIM, 'upstream:'), 'upstream', 2, 1, /expected a mapping, got null/],
    ['empty upstream.retry', yaml(SIM, 'upstream:', '  retry:'), 'upstream.retry', 3, 3, /expected a mapping, got null/],
    ['token and token_file', yaml('upstream:', '  api_url: https://a.example', '  token: abcd', '  token_file: /x'), 'upstream.token_file', 4, 3, /upstream\.token and upstream\.token_file are mutually exclusive/],
    ['no token for a real account', yaml('upstream:', '  api_url: https://a.example'), 'upstream.token', 1, 1, /set upstream\.token, upstream\.token_file or EDGE_API_TOKEN/],
    ['neither api_url nor simulator', yaml('log: { level: info }'), 'upstream.api_url', undefined, undefined, /set upstream\.api_url \(or EDGE_API_URL\), or enable the bundled simulator/],
    ['unset ${VAR}', yaml(SIM, 'state_dir: ${EDGE_TEST_UNSET}'), 'state_dir', 2, 1, /environment variable EDGE_TEST_UNSET is not set/],
    ['malformed ${', yaml(SIM, 'state_dir: ${not valid}'), 'state_dir', 2, 1, /malformed \$\{\.\.\.\} reference/],
    ['list item', yaml(SIM, 'upstream: { paths: { listDomains: [/a] } }'), 'upstream.paths.listDomains', 2, 22, /expected a string, got a list/],
  ])('%s', (_name, text, path, line, col, message) => {
    const problem = problemAt(loadError({ text }), path);
    expect(problem.message).toMatch(message);
    expect([problem.line, problem.col]).toEqual([line, col]);
  });

  it('reports every problem at once, in file order, one per line of the message', () => {
    const err = loadError({
      file: 'config.yaml',
      text: yaml('upstream:', '  concurrency: 0', '  retry:', '    attempts: 0', '  timeout: 5x', 'simulator: { enabled: nope }'),
    });
    expect(err.code).toBe('EDGE_CONFIG');
    expect(err.problems.map((p) => p.path)).toEqual([
      'upstream.api_url',
      'upstream.concurrency',
      'upstream.retry.attempts',
      'upstream.timeout',
      'simulator.enabled',
    ]);
    expect(err.message.split('\n')).toEqual([
      'invalid configuration (5 problems):',
      '  config.yaml:1:1 upstream.api_url: set upstream.api_url (or EDGE_API_URL), or enable the bundled simulator (simulator.enabled: true)',
      '  config.yaml:2:3 upstream.concurrency: expected a number > 0',
      '  config.yaml:4:5 upstream.retry.attempts: expected a number >= 1',
      '  config.yaml:5:3 upstream.timeout: expected a duration like 500ms, 15s, 5m, 1h',
      '  config.yaml:6:14 simulator.enabled: expected true or false, got a string',
    ]);
  });

  it('reports cross-field rules even next to a fractional integer', () => {
    const err = loadError({ text: yaml('upstream:', '  api_url: https://a.example', '  concurrency: 1.5') });
    expect(err.problems.map((p) => p.path)).toEqual(['upstream.token', 'upstream.concurrency']);
  });

  it('reports a YAML syntax error with line:col and nothing else', () => {
    const err = loadError({ file: 'bad.yaml', text: yaml(SIM, 'upstream:', '  retry: [1, 2', 'log: {}') });
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toMatchObject({ path: '', line: 4, col: 1 });
    expect(err.message).toMatch(/^ {2}bad\.yaml:4:1: YAML syntax error: /m);
  });

  it.each([
    ['duplicate key', yaml(SIM, 'log: {}', 'log: {}'), 3],
    ['bad indentation', yaml('simulator:', '  enabled: true', ' seed: 1'), 3],
  ])('reports a YAML syntax error: %s', (_name, text, line) => {
    expect(loadError({ text }).problems[0]).toMatchObject({ path: '', line });
  });

  it('names a missing config file', () => {
    const file = join(dir, 'missing.yaml');
    const err = loadError({ file });
    expect(err.problems).toEqual([{ path: '', message: 'cannot read the config file: no such file or directory (ENOENT)' }]);
    expect(err.message).toContain(`${file}: cannot read the config file: no such file or directory (ENOENT)`);
  });

  it('reads a config file and points into it', () => {
    const file = tmpFile('config.yaml', yaml(SIM, 'upstream:', '  timeout: never'));
    const err = loadError({ file });
    expect(err.message).toContain(`${file}:3:3 upstream.timeout: expected a duration`);
    expect(loadConfig({ file: tmpFile('ok.yaml', SIM), env: {} }).simulator.enabled).toBe(true);
  });
});

describe('loadConfig: environment', () => {
  it('overrides win over the file', () => {
    const config = loadConfig({
      text: yaml('upstream:', '  api_url: https://file.example', '  login_url: https://login-file.example', '  token_file: /does/not/exist'),
      env: { EDGE_API_URL: 'https://env.example', EDGE_LOGIN_URL: 'https://login-env.example', EDGE_API_TOKEN: 'env-token' },
    });
    expect(config.upstream).toMatchObject({
      api_url: 'https://env.example',
      login_url: 'https://login-env.example',
      token: 'env-token',
    });
    // EDGE_API_TOKEN replaces a token_file from the file instead of conflicting with it.
    expect(config.upstream.token_file).toBeUndefined();
  });

  it('an empty override counts as unset', () => {
    const config = loadConfig({ text: REAL, env: { EDGE_API_URL: '', EDGE_API_TOKEN: '' } });
    expect(config.upstream).toMatchObject({ api_url: 'https://api.example.com', token: 't0ken-value' });
  });

  it('blames a bad override on the variable, not the file', () => {
    const err = loadError({ text: REAL, env: { EDGE_API_URL: 'nope' } });
    expect(problemAt(err, 'upstream.api_url')).toEqual({
      path: 'upstream.api_url',
      message: 'expected an http:// or https:// URL',
      env: 'EDGE_API_URL',
    });
    expect(err.message).toContain('$EDGE_API_URL upstream.api_url: expected an http:// or https:// URL');
  });

  it.each([
    ['${EDGE_TEST_URL}', { EDGE_TEST_URL: 'https://x.example' }, 'https://x.example'],
    ['${EDGE_TEST_URL:-https://fallback.example}', {}, 'https://fallback.example'],
    ['${EDGE_TEST_URL:-https://fallback.example}', { EDGE_TEST_URL: '' }, 'https://fallback.example'],
    ['${EDGE_TEST_URL:-https://fallback.example}', { EDGE_TEST_URL: 'https://set.example' }, 'https://set.example'],
    ['https://${EDGE_TEST_HOST}:${EDGE_TEST_PORT:-8443}/api', { EDGE_TEST_HOST: 'h.example' }, 'https://h.example:8443/api'],
  ])('interpolates %s', (expr, env, expected) => {
    const config = loadConfig({ text: yaml('upstream:', `  api_url: "${expr}"`, '  token: abcd'), env });
    expect(config.upstream.api_url).toBe(expected);
  });

  it('interpolates string values only, never keys or numbers, and honours $${', () => {
    const config = loadConfig({
      text: yaml('state_dir: "$${HOME}/state"', 'simulator:', '  enabled: true', '  token: "${EDGE_TEST_SIM:-x}y"'),
      env: { HOME: '/home/u' },
    });
    expect(config.state_dir).toBe('${HOME}/state');
    expect(config.simulator.token).toBe('xy');
  });

  it('reads the token from token_file, trimmed', () => {
    const tokenFile = tmpFile('token', '  file-token-123\n');
    const config = loadConfig({ text: yaml('upstream:', '  api_url: https://a.example', `  token_file: ${tokenFile}`), env: {} });
    expect(config.upstream.token).toBe('file-token-123');
  });

  it.each([
    ['missing', () => join(dir, 'no-such-token'), /cannot read the token file \S*no-such-token: no such file or directory \(ENOENT\)/],
    ['a directory', () => (mkdirSync(join(dir, 'token-dir'), { recursive: true }), join(dir, 'token-dir')), /cannot read the token file \S*token-dir: illegal operation on a directory \(EISDIR\)/],
    ['empty', () => tmpFile('empty-token', '\n'), /the token file is empty/],
  ])('reports a token_file that is %s at upstream.token_file', (_name, makePath, message) => {
    const err = loadError({ text: yaml('upstream:', '  api_url: https://a.example', `  token_file: ${makePath()}`) });
    const problem = problemAt(err, 'upstream.token_file');
    expect(problem.message).toMatch(message);
    expect([problem.line, problem.col]).toEqual([3, 3]);
  });
});

describe('loadConfig: the token never appears in a problem', () => {
  const url = 'https://a.example';
  it.each([
    ['bad value (line break)', { text: yaml('upstream:', `  api_url: ${url}`, `  token: "${TOKEN}\\nx"`) }],
    ['token and token_file', { text: yaml('upstream:', `  api_url: ${url}`, `  token: ${TOKEN}`, '  token_file: /x') }],
    ['token where a URL belongs', { text: yaml('upstream:', `  api_url: ${TOKEN}`, `  token: ${TOKEN}`) }],
    ['token as a log level', { text: yaml(SIM, `log: { level: ${TOKEN} }`) }],
    ['token inside a YAML syntax error', { text: yaml('upstream:', `  token: "${TOKEN}`, '  x: [') }],
    ['token from the environment', { text: yaml('upstream:', '  api_url: bad'), env: { EDGE_API_TOKEN: TOKEN } }],
    ['token interpolated into a bad URL', { text: yaml('upstream:', '  api_url: "x${T}"', '  token: ${T}'), env: { T: TOKEN } }],
    ['token file content', { text: yaml('upstream:', `  api_url: ${url}`, `  token_file: ${tmpFile('ctl', `${TOKEN}\u0007`)}`) }],
  ])('%s', (_name, opts) => {
    const err = loadError(opts);
    expect(err.problems.length).toBeGreaterThan(0);
    expect(err.message).not.toContain(TOKEN);
    expect(JSON.stringify(err.problems)).not.toContain(TOKEN);
  });
});
