// The otlp_metrics section: off by default, defaults, values as written, the
// endpoint derived from otlp.endpoint, problems at their YAML path, its
// outbound keys (proxy, TLS), and the OTEL_* variables with their precedence.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config/env.js';
import { insecureTlsKeys, otlpMetricsUrl, outboundEndpoint, type Config } from '../../src/config/index.js';
import { loadConfig } from '../../src/config/load.js';
import { loadError, problemAt, yaml } from './helpers.js';

const SIM = 'simulator: { enabled: true }';
const load = (lines: readonly string[], env: Env = {}): Config => loadConfig({ text: yaml(SIM, ...lines), env });
const dir = mkdtempSync(join(tmpdir(), 'edge-otlp-metrics-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('otlp_metrics: defaults', () => {
  it('off; the OTel SDK\'s timeout and interval; remote-write\'s batching and backoff', () => {
    expect(load([]).otlp_metrics).toEqual({
      enabled: false,
      protocol: 'http/protobuf',
      compression: 'none',
      headers: {},
      timeout: 10_000,
      temporality: 'cumulative',
      interval: 60_000,
      max_points_per_send: 2_000,
      batch_send_deadline: 5_000,
      min_backoff: 30,
      max_backoff: 5_000,
      max_pending_points: 1_000_000,
    });
  });

  it('no client while off, whatever the URL', () => {
    const config = load(['otlp_metrics: { endpoint: "http://m.example:4318/v1/metrics" }']);
    expect(outboundEndpoint(config, 'otlp_metrics')).toBeUndefined();
    expect(otlpMetricsUrl(config)).toBe('http://m.example:4318/v1/metrics');
  });
});

describe('otlp_metrics: values as written', () => {
  it.each<[string[], unknown]>([
    [['otlp_metrics: { enabled: true, endpoint: "https://m.example/otlp/v1/metrics/", protocol: http/json }'],
      { enabled: true, endpoint: 'https://m.example/otlp/v1/metrics', protocol: 'http/json' }],
    [['otlp_metrics: { headers: { X-Scope-OrgID: tenant-1, Authorization: "Bearer t" } }'], { headers: { 'X-Scope-OrgID': 'tenant-1', Authorization: 'Bearer t' } }],
    [['otlp_metrics: { temporality: delta, interval: 15s, timeout: 2s }'], { temporality: 'delta', interval: 15_000, timeout: 2_000 }],
    [['otlp_metrics: { max_points_per_send: 500, batch_send_deadline: 1s, min_backoff: 100ms, max_backoff: 1m, max_pending_points: 5000 }'],
      { max_points_per_send: 500, batch_send_deadline: 1_000, min_backoff: 100, max_backoff: 60_000, max_pending_points: 5_000 }],
    [['otlp_metrics: { proxy_url: "http://proxy:3128", tls: { ca_file: /ca.pem, server_name: m.internal } }'],
      { proxy_url: 'http://proxy:3128', tls: { ca_file: '/ca.pem', server_name: 'm.internal', insecure_skip_verify: false } }],
  ])('%j', (lines, expected) => {
    expect(load(lines).otlp_metrics).toMatchObject(expected as object);
  });
});

describe('otlpMetricsUrl: its own endpoint, else what otlp.endpoint implies, else the OTel default', () => {
  const ON = 'otlp_metrics: { enabled: true }';
  it.each<[string, string[], string]>([
    ['its own, used as is', ['otlp: { endpoint: "http://logs.example:4318/v1/logs" }', 'otlp_metrics: { enabled: true, endpoint: "http://m.example/custom" }'], 'http://m.example/custom'],
    ['otlp.endpoint ending in /v1/logs', ['otlp: { endpoint: "https://c.example:4318/v1/logs" }', ON], 'https://c.example:4318/v1/metrics'],
    ['... under a path, with a trailing slash', ['otlp: { endpoint: "https://c.example/otlp/v1/logs/" }', ON], 'https://c.example/otlp/v1/metrics'],
    ['otlp.endpoint ending otherwise', ['otlp: { endpoint: "https://c.example/ingest/logs" }', ON], 'http://localhost:4318/v1/metrics'],
    ['/v1/logs not at the end', ['otlp: { endpoint: "https://c.example/v1/logs/x" }', ON], 'http://localhost:4318/v1/metrics'],
    ['otlp.endpoint unset', [ON], 'http://localhost:4318/v1/metrics'],
  ])('%s', (_name, lines, url) => {
    const config = load(lines);
    expect(otlpMetricsUrl(config)).toBe(url);
    expect(outboundEndpoint(config, 'otlp_metrics')?.url).toBe(url);
  });

  it('is the enabled client\'s URL, with its own route and tls block', () => {
    const config = load([
      'otlp: { endpoint: "https://c.example/v1/logs", proxy_url: "http://logs-proxy:3128" }',
      'otlp_metrics: { enabled: true, tls: { insecure_skip_verify: true } }',
    ], { HTTPS_PROXY: 'http://corp:8080' });
    expect(outboundEndpoint(config, 'otlp_metrics')).toEqual({
      name: 'otlp_metrics',
      url: 'https://c.example/v1/metrics',
      route: { httpProxy: '', httpsProxy: 'http://corp:8080', noProxy: '', source: 'environment' },
      tls: { insecureSkipVerify: true },
      local: false,
    });
  });
});

describe('otlp_metrics: problems at their YAML path', () => {
  it.each<[string[], string, RegExp]>([
    [['otlp_metrics: { endpoint: "collector:4318" }'], 'otlp_metrics.endpoint', /http:\/\/ or https:\/\//],
    [['otlp_metrics: { enabled: true, endpoint: "http://u:secret@m.example/v1/metrics" }'], 'otlp_metrics.endpoint', /must not carry credentials/],
    [['otlp: { endpoint: "http://u:secret@c.example/v1/logs" }', 'otlp_metrics: { enabled: true }'], 'otlp_metrics.endpoint', /derived from otlp.endpoint, which carries credentials/],
    [['otlp_metrics: { protocol: grpc }'], 'otlp_metrics.protocol', /expected one of: http\/protobuf, http\/json/],
    [['otlp_metrics: { temporality: lowmemory }'], 'otlp_metrics.temporality', /expected one of: cumulative, delta/],
    [['otlp_metrics: { headers: { Content-Type: text/plain } }'], 'otlp_metrics.headers.Content-Type', /set by the exporter/],
    [['otlp_metrics: { headers: { host: h } }'], 'otlp_metrics.headers.host', /set by the exporter/],
    [['otlp_metrics: { headers: { "x key": v } }'], 'otlp_metrics.headers.x key', /expected an HTTP header name/],
    [['otlp_metrics: { timeout: 2h }'], 'otlp_metrics.timeout', /at most 1h/],
    [['otlp_metrics: { interval: 500ms }'], 'otlp_metrics.interval', /at least 1000ms/],
    [['otlp_metrics: { min_backoff: 2s, max_backoff: 1s }'], 'otlp_metrics.max_backoff', /at least min_backoff/],
    [['otlp_metrics: { max_points_per_send: 0 }'], 'otlp_metrics.max_points_per_send', />= 1/],
    [['otlp_metrics: { max_points_per_send: 100001 }'], 'otlp_metrics.max_points_per_send', /<= 100000/],
    [['otlp_metrics: { max_pending_points: 10 }'], 'otlp_metrics.max_pending_points', />= 1000/],
    // One ledger file is one JSON string: beyond 4,000,000 a backlog could no longer be saved (MAX_PENDING_PER_PIPE).
    [['otlp_metrics: { max_pending_points: 4000001 }'], 'otlp_metrics.max_pending_points', /<= 4000000/],
    [['otlp_metrics: { enabled: "yes" }'], 'otlp_metrics.enabled', /expected true or false/],
    [['otlp_metrics: { proxy_url: "socks5://p:1" }'], 'otlp_metrics.proxy_url', /http:\/\/ or https:\/\/ proxy URL/],
    [['otlp_metrics: { proxy_url: "http://p:1", proxy_url_file: /x }'], 'otlp_metrics.proxy_url_file', /otlp_metrics.proxy_url and otlp_metrics.proxy_url_file are mutually exclusive/],
    [['otlp_metrics: { tls: { cert_file: c.pem } }'], 'otlp_metrics.tls.cert_file', /set both otlp_metrics.tls.cert_file and otlp_metrics.tls.key_file/],
    [['otlp_metrics: { tls: { insecure_skip_verify: "true" } }'], 'otlp_metrics.tls.insecure_skip_verify', /expected true or false/],
    [['otlp_metrics: { queue: {} }'], 'otlp_metrics.queue', /unknown key/],
  ])('%j', (lines, path, message) => {
    expect(problemAt(loadError({ text: yaml(SIM, ...lines) }), path).message).toMatch(message);
  });

  it('credentials in the URL, its own or derived, stop nothing while off', () => {
    const config = load(['otlp: { endpoint: "http://u:pw@c.example/v1/logs" }', 'otlp_metrics: { endpoint: "http://u:pw@m.example/v1/metrics" }']);
    expect(config.otlp_metrics.endpoint).toBe('http://u:pw@m.example/v1/metrics');
    expect(load(['otlp: { endpoint: "http://u:pw@c.example/v1/logs" }']).otlp_metrics.enabled).toBe(false);
  });
});

describe('otlp_metrics: proxy_url_file and the TLS files', () => {
  it('reads proxy_url_file into proxy_url and its route', () => {
    const file = join(dir, 'proxy');
    writeFileSync(file, 'http://metrics-proxy:3128\n');
    const config = load([`otlp_metrics: { enabled: true, proxy_url_file: ${JSON.stringify(file)} }`], { HTTPS_PROXY: 'http://corp:8080' });
    expect(config.otlp_metrics.proxy_url).toBe('http://metrics-proxy:3128');
    expect(config.proxies.otlp_metrics).toEqual({ httpProxy: 'http://metrics-proxy:3128', httpsProxy: 'http://metrics-proxy:3128', noProxy: '', source: 'config' });
    expect(config.proxies.otlp.httpsProxy).toBe('http://corp:8080');
  });

  it('names an unusable proxy_url_file and an unreadable TLS file at otlp_metrics.<key>', () => {
    const bad = join(dir, 'bad-proxy');
    writeFileSync(bad, 'ftp://proxy:21\n');
    const err = loadError({ serverFiles: true, text: yaml(SIM,
      `otlp_metrics: { proxy_url_file: ${JSON.stringify(bad)}, tls: { ca_file: ${JSON.stringify(join(dir, 'absent.pem'))} } }`) });
    expect(problemAt(err, 'otlp_metrics.proxy_url_file').message).toBe('the proxy URL file must hold one http:// or https:// URL');
    expect(problemAt(err, 'otlp_metrics.tls.ca_file').message).toBe(`cannot read ${join(dir, 'absent.pem')}: no such file or directory (ENOENT)`);
  });

  it('insecure_skip_verify is warned about only while enabled', () => {
    const tls = 'tls: { insecure_skip_verify: true }';
    expect(insecureTlsKeys(load([`otlp_metrics: { ${tls} }`]))).toEqual([]);
    expect(insecureTlsKeys(load([`otlp_metrics: { enabled: true, ${tls} }`]))).toEqual(['otlp_metrics.tls.insecure_skip_verify']);
  });
});

describe('OTEL_* variables win over the file; the METRICS_ variant over the generic one', () => {
  const FILE = [
    'otlp_metrics:',
    '  endpoint: http://file.example:4318/v1/metrics',
    '  headers: { x-file: f, x-both: file }',
    '  protocol: http/json',
    '  timeout: 3s',
    '  temporality: delta',
    '  interval: 30s',
  ];
  it.each<[string, Env, string, unknown]>([
    ['file alone', {}, 'endpoint', 'http://file.example:4318/v1/metrics'],
    ['generic endpoint gets /v1/metrics', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c.example:4318' }, 'endpoint', 'http://c.example:4318/v1/metrics'],
    ['generic endpoint with a path and a trailing slash', { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example/otlp/' }, 'endpoint', 'https://c.example/otlp/v1/metrics'],
    ['metrics endpoint used as is', { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://m.example:9999/custom' }, 'endpoint', 'http://m.example:9999/custom'],
    ['metrics endpoint wins over the generic one',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c.example:4318', OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://m.example/v1/metrics' }, 'endpoint', 'http://m.example/v1/metrics'],
    ['the logs endpoint is not the metrics one', { OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://l.example/v1/logs' }, 'endpoint', 'http://file.example:4318/v1/metrics'],
    ['empty means unset', { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: '' }, 'endpoint', 'http://file.example:4318/v1/metrics'],
    ['generic headers merged key by key, percent-decoded',
      { OTEL_EXPORTER_OTLP_HEADERS: 'x-both=env, api-key=a%20b%3Dc' }, 'headers', { 'x-file': 'f', 'x-both': 'env', 'api-key': 'a b=c' }],
    ['metrics headers win key by key',
      { OTEL_EXPORTER_OTLP_HEADERS: 'x-both=generic,x-g=1', OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'x-both=metrics' }, 'headers', { 'x-file': 'f', 'x-both': 'metrics', 'x-g': '1' }],
    ['the logs headers are not the metrics ones', { OTEL_EXPORTER_OTLP_LOGS_HEADERS: 'x-both=logs' }, 'headers', { 'x-file': 'f', 'x-both': 'file' }],
    ['protocol', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }, 'protocol', 'http/protobuf'],
    ['metrics protocol wins', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json' }, 'protocol', 'http/json'],
    ['timeout in milliseconds', { OTEL_EXPORTER_OTLP_TIMEOUT: '2500' }, 'timeout', 2500],
    ['metrics timeout wins', { OTEL_EXPORTER_OTLP_TIMEOUT: '2500', OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: '700' }, 'timeout', 700],
    ['temporality cumulative', { OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'cumulative' }, 'temporality', 'cumulative'],
    ['temporality in any case', { OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'Cumulative' }, 'temporality', 'cumulative'],
    ['temporality lowmemory is delta for these counters', { OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'LowMemory' }, 'temporality', 'delta'],
    ['export interval in milliseconds', { OTEL_METRIC_EXPORT_INTERVAL: '15000' }, 'interval', 15_000],
    ['compression', { OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip' }, 'compression', 'gzip'],
    ['metrics compression wins', { OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip', OTEL_EXPORTER_OTLP_METRICS_COMPRESSION: 'none' }, 'compression', 'none'],
  ])('%s', (_name, env, key, expected) => {
    expect(load(FILE, env).otlp_metrics[key as keyof Config['otlp_metrics']]).toEqual(expected);
  });

  it('temporality lowmemory over a cumulative file', () => {
    expect(load(['otlp_metrics: { temporality: cumulative }'], { OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'lowmemory' }).otlp_metrics.temporality).toBe('delta');
  });

  it('a generic endpoint with credentials stops nothing while otlp_metrics is off (it sets otlp.endpoint too)', () => {
    const config = load([], { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://u:pw@c.example:4318' });
    expect(config.otlp_metrics.endpoint).toBe('http://u:pw@c.example:4318/v1/metrics');
    expect(config.otlp.endpoint).toBe('http://u:pw@c.example:4318/v1/logs');
    expect(problemAt(loadError({ text: yaml(SIM, 'otlp_metrics: { enabled: true }'), env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://u:pw@c.example:4318' } }), 'otlp_metrics.endpoint'))
      .toMatchObject({ env: 'OTEL_EXPORTER_OTLP_ENDPOINT', message: expect.stringMatching(/must not carry credentials/) });
  });

  it('the generic variables set otlp and otlp_metrics alike', () => {
    const config = load([], { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c.example:4318', OTEL_EXPORTER_OTLP_HEADERS: 'k=v', OTEL_EXPORTER_OTLP_TIMEOUT: '1234' });
    expect(config.otlp).toMatchObject({ endpoint: 'http://c.example:4318/v1/logs', headers: { k: 'v' }, timeout: 1234 });
    expect(config.otlp_metrics).toMatchObject({ endpoint: 'http://c.example:4318/v1/metrics', headers: { k: 'v' }, timeout: 1234 });
  });

  it.each<[Env, string, string, RegExp]>([
    [{ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'collector:4318' }, 'otlp_metrics.endpoint', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', /http:\/\/ or https:\/\//],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'otlp_metrics.endpoint', 'OTEL_EXPORTER_OTLP_ENDPOINT', /http:\/\/ or https:\/\//],
    [{ OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'no-equals-sign' }, 'otlp_metrics.headers', 'OTEL_EXPORTER_OTLP_METRICS_HEADERS', /expected a mapping, got a string/],
    [{ OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'content-type=text/plain' }, 'otlp_metrics.headers.content-type', 'OTEL_EXPORTER_OTLP_METRICS_HEADERS', /set by the exporter/],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc' }, 'otlp_metrics.protocol', 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL', /expected one of/],
    [{ OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: 'soon' }, 'otlp_metrics.timeout', 'OTEL_EXPORTER_OTLP_METRICS_TIMEOUT', /expected a duration/],
    [{ OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'sometimes' }, 'otlp_metrics.temporality', 'OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE', /expected one of: cumulative, delta/],
    [{ OTEL_METRIC_EXPORT_INTERVAL: 'often' }, 'otlp_metrics.interval', 'OTEL_METRIC_EXPORT_INTERVAL', /expected a duration/],
    [{ OTEL_EXPORTER_OTLP_METRICS_COMPRESSION: 'zstd' }, 'otlp_metrics.compression', 'OTEL_EXPORTER_OTLP_METRICS_COMPRESSION', /expected one of/],
    [{ OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'content-encoding=br' }, 'otlp_metrics.headers.content-encoding', 'OTEL_EXPORTER_OTLP_METRICS_HEADERS', /set by the exporter/],
    [{ OTEL_METRIC_EXPORT_INTERVAL: '500' }, 'otlp_metrics.interval', 'OTEL_METRIC_EXPORT_INTERVAL', /at least 1000ms/],
  ])('%j: named in the problem', (env, path, variable, message) => {
    const problem = problemAt(loadError({ text: yaml(SIM), env }), path);
    expect(problem.env).toBe(variable);
    expect(problem.message).toMatch(message);
  });

  it('a header from the environment never appears in a problem', () => {
    const err = loadError({ text: yaml(SIM, 'otlp_metrics: { headers: { "x key": v } }'), env: { OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'x-api-key=SECRET-42' } });
    expect(problemAt(err, 'otlp_metrics.headers.x key').env).toBe('OTEL_EXPORTER_OTLP_METRICS_HEADERS');
    expect(err.message).not.toContain('SECRET-42');
  });
});
