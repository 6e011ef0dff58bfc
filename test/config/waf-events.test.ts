// The waf_events and otlp sections: defaults, values as written, problems at
// their YAML path, and the OTEL_EXPORTER_OTLP_* variables with their precedence.
import { describe, expect, it } from 'vitest';
import type { Env } from '../../src/config/env.js';
import { loadConfig } from '../../src/config/load.js';
import { loadError, problemAt, yaml } from './helpers.js';

const SIM = 'simulator: { enabled: true }';
const load = (lines: readonly string[], env: Env = {}) => loadConfig({ text: yaml(SIM, ...lines), env });

function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined), value);
}

describe('waf_events and otlp: defaults', () => {
  const config = load([]);
  it.each<[string, unknown]>([
    ['waf_events.enabled', false],
    ['waf_events.interval', 30_000],
    ['waf_events.delay', 120_000],
    ['waf_events.overlap', 300_000],
    ['waf_events.max_window', 900_000],
    ['waf_events.start_from', 3_600_000],
    ['waf_events.page_size', 500],
    ['waf_events.severity', undefined],
    ['waf_events.domains', undefined],
    ['waf_events.other_filter', []],
    ['waf_events.max_rate', undefined],
    ['waf_events.over_rate', 'delay'],
    ['waf_events.upstream_retention', 3 * 86_400_000],
    ['waf_events.headers', ['host', 'user-agent', 'referer', 'x-forwarded-for', 'content-type']],
    // Unset: the wiring picks the demo's receiver or DEFAULT_OTLP_ENDPOINT (otlp-endpoint.test.ts).
    ['otlp.endpoint', undefined],
    ['otlp.protocol', 'http/protobuf'],
    ['otlp.headers', {}],
    ['otlp.timeout', 10_000],
    ['otlp.max_batch', 512],
  ])('%s = %j', (path, expected) => {
    expect(at(config, path)).toEqual(expected);
  });
});

describe('waf_events and otlp: values as written', () => {
  it.each<[string[], string, unknown]>([
    [['waf_events: { severity: high }'], 'waf_events.severity', '高风险'],
    [['waf_events: { severity: 中风险 }'], 'waf_events.severity', '中风险'],
    [['waf_events: { headers: [Host, X-Real-IP] }'], 'waf_events.headers', ['host', 'x-real-ip']],
    [['waf_events: { headers: [] }'], 'waf_events.headers', []],
    [['waf_events: { domains: [a.example.com] }'], 'waf_events.domains', ['a.example.com']],
    [['waf_events:', '  other_filter: [{ one_val: rule_id, two_val: ne, three_val: ["920300", "920320"] }]'],
      'waf_events.other_filter', [{ oneVal: 'rule_id', twoVal: 'ne', threeVal: ['920300', '920320'] }]],
    [['waf_events: { interval: 1m, max_window: 1m, delay: 0 }'], 'waf_events.delay', 0],
    [['waf_events: { max_rate: 2.5, over_rate: summarize }'], 'waf_events.max_rate', 2.5],
    [['waf_events: { max_rate: 500, over_rate: summarize }'], 'waf_events.over_rate', 'summarize'],
    [['waf_events: { upstream_retention: 30d }'], 'waf_events.upstream_retention', 30 * 86_400_000],
    [['otlp: { endpoint: "https://otel.example.com:4318/v1/logs/", protocol: http/json }'], 'otlp.endpoint', 'https://otel.example.com:4318/v1/logs'],
    [['otlp: { headers: { x-api-key: "${KEY}" } }'], 'otlp.headers', { 'x-api-key': 'k-123' }],
  ])('%j', (lines, path, expected) => {
    expect(at(load(lines, { KEY: 'k-123' }), path)).toEqual(expected);
  });
});

describe('waf_events and otlp: problems at their YAML path', () => {
  it.each<[string[], string, RegExp]>([
    [['waf_events: { headers: [host, Authorization] }'], 'waf_events.headers.1', /authorization is never forwarded/],
    [['waf_events: { headers: [cookie] }'], 'waf_events.headers.0', /cookie is never forwarded/],
    [['waf_events: { headers: [Set-Cookie] }'], 'waf_events.headers.0', /set-cookie is never forwarded/],
    [['waf_events: { headers: ["bad header"] }'], 'waf_events.headers.0', /expected an HTTP header name/],
    [['waf_events: { other_filter: [{ one_val: referer, two_val: eq, three_val: [x] }] }'], 'waf_events.other_filter.0.one_val', /expected one of: client_ip/],
    [['waf_events: { other_filter: [{ one_val: url, two_val: like, three_val: [x] }] }'], 'waf_events.other_filter.0.two_val', /expected one of: eq, ne, contain/],
    [['waf_events: { other_filter: [{ one_val: url, two_val: contain, three_val: [a, b] }] }'], 'waf_events.other_filter.0.three_val', /exactly one/],
    [['waf_events: { other_filter: [{ one_val: url, two_val: eq, three_val: [] }] }'], 'waf_events.other_filter.0.three_val', />= 1/],
    [['waf_events: { severity: critical }'], 'waf_events.severity', /expected one of: 高风险/],
    [['waf_events: { interval: 1m, max_window: 30s }'], 'waf_events.max_window', /at least `interval`/],
    [['waf_events: { page_size: 0 }'], 'waf_events.page_size', />= 1/],
    [['waf_events: { max_rate: 0 }'], 'waf_events.max_rate', /> 0/],
    [['waf_events: { max_rate: 10, over_rate: drop }'], 'waf_events.over_rate', /expected one of: delay, summarize/],
    [['waf_events: { over_rate: summarize }'], 'waf_events.over_rate', /set max_rate/],
    [['waf_events: { upstream_retention: 30s }'], 'waf_events.upstream_retention', /at least/],
    [['waf_events: { upstream_retention: 32d }'], 'waf_events.upstream_retention', /at most 31d/],
    [['waf_events: { overlap: soon }'], 'waf_events.overlap', /expected a duration/],
    [['waf_events: { windw: 5m }'], 'waf_events.windw', /unknown key/],
    [['otlp: { protocol: grpc }'], 'otlp.protocol', /expected one of: http\/protobuf, http\/json/],
    [['otlp: { endpoint: "collector:4318" }'], 'otlp.endpoint', /http:\/\/ or https:\/\//],
    [['otlp: { headers: { "x key": v } }'], 'otlp.headers.x key', /expected an HTTP header name/],
    [['otlp: { max_batch: 0 }'], 'otlp.max_batch', />= 1/],
  ])('%j', (lines, path, message) => {
    expect(problemAt(loadError({ text: yaml(SIM, ...lines) }), path).message).toMatch(message);
  });
});

describe('OTEL_EXPORTER_OTLP_* variables win over the file; the LOGS_ variant over the generic one', () => {
  const FILE = ['otlp:', '  endpoint: http://file.example:4318/v1/logs', '  headers: { x-file: f, x-both: file }', '  protocol: http/json', '  timeout: 3s'];
  it.each<[string, Env, string, unknown]>([
    ['file alone', {}, 'otlp.endpoint', 'http://file.example:4318/v1/logs'],
    ['generic endpoint gets /v1/logs', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c.example:4318' }, 'otlp.endpoint', 'http://c.example:4318/v1/logs'],
    ['generic endpoint with a trailing slash', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c.example:4318/' }, 'otlp.endpoint', 'http://c.example:4318/v1/logs'],
    ['generic endpoint with a path', { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example/otlp' }, 'otlp.endpoint', 'https://c.example/otlp/v1/logs'],
    ['logs endpoint used as is', { OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://l.example:9999/custom' }, 'otlp.endpoint', 'http://l.example:9999/custom'],
    ['logs endpoint wins over generic',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c.example:4318', OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://l.example/v1/logs' }, 'otlp.endpoint', 'http://l.example/v1/logs'],
    ['empty means unset', { OTEL_EXPORTER_OTLP_ENDPOINT: '' }, 'otlp.endpoint', 'http://file.example:4318/v1/logs'],
    ['headers merged key by key over the file, percent-decoded',
      { OTEL_EXPORTER_OTLP_HEADERS: 'x-both=env, api-key=a%20b%3Dc' }, 'otlp.headers', { 'x-file': 'f', 'x-both': 'env', 'api-key': 'a b=c' }],
    ['logs headers win over generic ones',
      { OTEL_EXPORTER_OTLP_HEADERS: 'x-both=generic,x-g=1', OTEL_EXPORTER_OTLP_LOGS_HEADERS: 'x-both=logs' }, 'otlp.headers', { 'x-file': 'f', 'x-both': 'logs', 'x-g': '1' }],
    ['protocol', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }, 'otlp.protocol', 'http/protobuf'],
    ['logs protocol wins', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'http/json' }, 'otlp.protocol', 'http/json'],
    ['timeout in milliseconds', { OTEL_EXPORTER_OTLP_TIMEOUT: '2500' }, 'otlp.timeout', 2500],
    ['logs timeout wins', { OTEL_EXPORTER_OTLP_TIMEOUT: '2500', OTEL_EXPORTER_OTLP_LOGS_TIMEOUT: '700' }, 'otlp.timeout', 700],
  ])('%s', (_name, env, path, expected) => {
    expect(at(load(FILE, env), path)).toEqual(expected);
  });

  it.each<[Env, string, string, RegExp]>([
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'otlp.protocol', 'OTEL_EXPORTER_OTLP_PROTOCOL', /expected one of/],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'grpc' }, 'otlp.protocol', 'OTEL_EXPORTER_OTLP_LOGS_PROTOCOL', /expected one of/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'otlp.endpoint', 'OTEL_EXPORTER_OTLP_ENDPOINT', /http:\/\/ or https:\/\//],
    [{ OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' }, 'otlp.headers', 'OTEL_EXPORTER_OTLP_HEADERS', /expected a mapping, got a string/],
    [{ OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' }, 'otlp.timeout', 'OTEL_EXPORTER_OTLP_TIMEOUT', /expected a duration/],
  ])('a bad %j is blamed on the variable', (env, path, variable, message) => {
    const problem = problemAt(loadError({ text: yaml(SIM), env }), path);
    expect(problem.env).toBe(variable);
    expect(problem.message).toMatch(message);
  });

  it('never echoes a header value from the environment in a problem', () => {
    const err = loadError({ text: yaml(SIM, 'otlp: { headers: { "x key": v } }'), env: { OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=SECRET-42' } });
    expect(err.message).not.toContain('SECRET-42');
  });
});
