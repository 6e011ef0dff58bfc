// The collectors, targets, metrics and limits sections: defaults, merging of
// collectors.defaults, and every problem reported at its YAML path.
import { describe, expect, it } from 'vitest';
import { resolveCollectorOptions } from '../../src/config/collector-options.js';
import { loadConfig } from '../../src/config/load.js';
import { loadError, problemAt, yaml } from './helpers.js';

const SIM = 'simulator: { enabled: true }';
const MIN = 60_000;
const HOUR = 60 * MIN;

const load = (...lines: string[]) => loadConfig({ text: yaml(SIM, ...lines), env: {} });

/** Reads a dotted path of the loaded config. */
function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined), value);
}

describe('new sections: defaults', () => {
  const config = load();
  it.each<[string, unknown]>([
    ['collectors.defaults.delay', 5 * MIN],
    ['collectors.defaults.max_backfill', 6 * HOUR],
    ['collectors.defaults.timestamps', false],
    ['collectors.defaults.jitter', 5000],
    ['collectors.access.enabled', true],
    ['collectors.access.interval', '5m'],
    ['collectors.access.schedule', undefined],
    ['collectors.access.delay', undefined],
    ['collectors.access.api', 'v2'],
    ['collectors.access.summary_window', HOUR],
    ['collectors.usage.interval', '5m'],
    ['collectors.usage.summary_window', HOUR],
    ['collectors.topn.dimensions', ['url', 'ip', 'referer', 'status', 'country_name']],
    ['collectors.topn.by', ['requestCount', 'trafficSum']],
    ['collectors.topn.top', 10],
    ['collectors.topn.other', true],
    ['collectors.topn.window', HOUR],
    ['collectors.cc_attack.per_domain', false],
    ['collectors.waf_trend.enabled', true],
    ['collectors.inventory.enabled', true],
    ['collectors.inventory.interval', 5 * MIN],
    ['collectors.inventory.cache_window', 24 * HOUR],
    ['collectors.inventory.details', true],
    ['targets.domains.static', undefined],
    ['targets.domains.include', []],
    ['targets.domains.exclude', []],
    ['targets.domains.states', ['0', '1', '2']],
    ['targets.domains.page_size', 100],
    ['targets.packages.static', undefined],
    ['targets.packages.include', []],
    ['targets.refresh', 10 * MIN],
    ['metrics.allow', []],
    ['metrics.deny', []],
    ['limits.label_value_length', 128],
    ['limits.series_per_family', 10_000],
  ])('%s = %j', (path, expected) => {
    expect(at(config, path)).toEqual(expected);
  });
});

describe('new sections: values as written', () => {
  it.each<[string[], string, unknown]>([
    [['collectors:', '  access: { interval: 1m, schedule: "*/2 * * * *" }'], 'collectors.access.schedule', '*/2 * * * *'],
    [['collectors:', '  usage: { schedule: "@hourly" }'], 'collectors.usage.schedule', '@hourly'],
    [['collectors:', '  topn: { dimensions: [ip, http_user_agent], by: [trafficSum], top: 100 }'], 'collectors.topn.by', ['trafficSum']],
    [['collectors:', '  inventory: { interval: 90s }'], 'collectors.inventory.interval', 90_000],
    [['targets:', '  domains: { include: ["\\\\.com$"], states: ["1"] }'], 'targets.domains.include', ['\\.com$']],
    [['metrics:', '  deny: [edge_topn_*, "/edge_cc_.+/"]'], 'metrics.deny', ['edge_topn_*', '/edge_cc_.+/']],
  ])('%j', (lines, path, expected) => {
    expect(at(load(...lines), path)).toEqual(expected);
  });
});

describe('new sections: problems at their YAML path', () => {
  it.each<[string[], string, RegExp]>([
    [['collectors:', '  access: { schedule: "61 * * * *" }'], 'collectors.access.schedule', /invalid cron expression \(minute: /],
    [['collectors:', '  inventory: { schedule: "every hour" }'], 'collectors.inventory.schedule', /invalid cron expression/],
    [['collectors:', '  access: { interval: 2m }'], 'collectors.access.interval', /expected one of: 1m, 5m, 1h, 1d/],
    [['collectors:', '  acces: {}'], 'collectors.acces', /unknown key \(did you mean "access"\?\)/],
    [['collectors:', '  access: { summary_windw: 1h }'], 'collectors.access.summary_windw', /unknown key/],
    [['collectors:', '  defaults: { delay: soon }'], 'collectors.defaults.delay', /expected a duration/],
    [['collectors:', '  topn: { top: 101 }'], 'collectors.topn.top', /<= 100/],
    [['collectors:', '  topn: { dimensions: [url, bogus] }'], 'collectors.topn.dimensions.1', /expected one of: ip/],
    [['collectors:', '  topn: { dimensions: [url, url] }'], 'collectors.topn.dimensions', /must not repeat/],
    [['collectors:', '  topn: { by: [] }'], 'collectors.topn.by', />= 1/],
    [['targets:', '  domains: { include: [ok, "(unclosed"] }'], 'targets.domains.include.1', /invalid regular expression: .*Unterminated group/],
    [['targets:', '  packages: { exclude: ["[z-a]"] }'], 'targets.packages.exclude.0', /invalid regular expression/],
    [['targets:', '  domains: { states: ["3"] }'], 'targets.domains.states.0', /expected one of: 0, 1, 2/],
    [['targets:', '  domains: { page_size: 0 }'], 'targets.domains.page_size', />= 1/],
    [['metrics:', '  allow: ["/a)(b/"]'], 'metrics.allow.0', /invalid regular expression/],
    [['metrics:', '  deny: [""]'], 'metrics.deny.0', /must not be empty/],
    [['limits:', '  series_per_family: 0'], 'limits.series_per_family', />= 1/],
    [['collectors:', '  inventory: { interval: 1s }'], 'collectors.inventory.interval', /at least 10000ms/],
    [['targets:', '  refresh: 500ms'], 'targets.refresh', /at least 10000ms/],
  ])('%j', (lines, path, message) => {
    const err = loadError({ text: yaml(SIM, ...lines) });
    expect(problemAt(err, path).message).toMatch(message);
    expect(problemAt(err, path).line).toBeGreaterThan(1);
  });

  it('reports every problem at once', () => {
    const err = loadError({
      text: yaml(SIM, 'collectors:', '  access: { schedule: bad, interval: 3m }', 'metrics:', '  deny: ["/(/"]'),
    });
    expect(err.problems.map((p) => p.path).sort()).toEqual(['collectors.access.interval', 'collectors.access.schedule', 'metrics.deny.0']);
  });
});

describe('resolveCollectorOptions', () => {
  it('fills every bucketed collector from collectors.defaults', () => {
    const resolved = resolveCollectorOptions(load());
    for (const key of ['access', 'usage', 'topn', 'cc_attack', 'waf_trend'] as const) {
      expect(resolved[key]).toMatchObject({ delay: 5 * MIN, max_backfill: 6 * HOUR, timestamps: false });
    }
    expect(resolved.inventory).toEqual({ enabled: true, interval: 5 * MIN, cache_window: 24 * HOUR, details: true });
  });

  it('delay: auto starts at 5m within 5m..1h, in defaults or one block; a fixed delay has no bounds', () => {
    const all = resolveCollectorOptions(load('collectors:', '  defaults: { delay: auto }', '  usage: { delay: 2m }'));
    expect([all.access.delay, all.access.auto_delay]).toEqual([5 * MIN, { floorMs: 5 * MIN, ceilingMs: HOUR }]);
    expect([all.usage.delay, all.usage.auto_delay]).toEqual([2 * MIN, undefined]);
    const one = resolveCollectorOptions(load('collectors:', '  access: { delay: auto }'));
    expect(one.access.auto_delay).toEqual({ floorMs: 5 * MIN, ceilingMs: HOUR });
    expect(one.usage.auto_delay).toBeUndefined();
    const err = loadError({ text: yaml(SIM, 'collectors:', '  defaults: { delay: automatic }') });
    expect(problemAt(err, 'collectors.defaults.delay').message).toMatch(/duration.*\(or auto\)/);
  });

  it('lets a block override the defaults, key by key', () => {
    const config = load(
      'collectors:',
      '  defaults: { delay: 10m, max_backfill: 1h, timestamps: true, audit: { every: 30m } }',
      '  access: { delay: 2m, interval: 1m, api: v1, audit: { correct: false } }',
      '  usage: { timestamps: false, max_backfill: 0, audit: { every: 0, lookback: 2h } }',
    );
    const resolved = resolveCollectorOptions(config);
    expect(resolved.access).toEqual({
      enabled: true, interval: '1m', api: 'v1', summary_window: HOUR, delay: 2 * MIN, max_backfill: HOUR, timestamps: true,
      audit: { every: 30 * MIN, lookback: HOUR, correct: false },
    });
    expect(resolved.usage).toMatchObject({ delay: 10 * MIN, max_backfill: 0, timestamps: false, audit: { every: 0, lookback: 2 * HOUR, correct: true } });
    expect(resolved.waf_trend).toMatchObject({ delay: 10 * MIN, max_backfill: HOUR, timestamps: true, audit: { every: 30 * MIN, lookback: HOUR, correct: true } });
  });

  it('audits every 15m over the last hour and corrects by default; upstream.units are carried along', () => {
    const resolved = resolveCollectorOptions(load('upstream: { units: { bandwidth: bytes_per_second } }'));
    expect(resolved.cc_attack.audit).toEqual({ every: 15 * MIN, lookback: HOUR, correct: true });
    expect(resolved.units).toEqual({ bandwidth: 'bytes_per_second', request_time: 'milliseconds' });
  });

  it('is pure: the config is left as it was', () => {
    const config = load('collectors:', '  access: { delay: 2m }');
    const before = JSON.stringify(config);
    resolveCollectorOptions(config);
    expect(JSON.stringify(config)).toBe(before);
  });
});
