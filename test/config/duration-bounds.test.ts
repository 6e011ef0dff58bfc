// Every duration has an upper bound the runtime honours (issue 13): Node runs a
// timer over 2^31-1 ms after 1 ms, so `interval: 30d` would be a busy loop.
// The walk over the generated JSON schema fails for a future duration key
// declared without a bound, and each bound is checked by loading max + 1 ms.
import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, formatDuration, parseDuration } from '../../src/config/duration.js';
import { configJsonSchema } from '../../src/config/json-schema.js';
import { asSchema, type JsonSchema } from '../../src/config/schema-walk.js';
import { loadConfig } from '../../src/config/load.js';
import { loadError, problemAt, yaml } from './helpers.js';

const SIM = 'simulator: { enabled: true }';
const TIMER_MESSAGE = 'expected a duration of at most 24d20h31m23s647ms (the longest timer Node can run)';

/** Every duration field of the config, by YAML path. */
function durationFields(node: JsonSchema, path: string[] = [], out = new Map<string, JsonSchema>()): Map<string, JsonSchema> {
  if (node['x-type'] === 'duration') return out.set(path.join('.'), node);
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const schema = asSchema(child);
    if (schema) durationFields(schema, [...path, key], out);
  }
  for (const alt of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) {
    const schema = asSchema(alt);
    if (schema) durationFields(schema, path, out);
  }
  return out;
}

/** A config (on the simulator) with `a.b.c: value` as nested YAML. */
function withKey(path: string, value: string | number): string {
  const keys = path.split('.');
  const lines = keys.map((key, depth) => `${'  '.repeat(depth)}${key}:${depth === keys.length - 1 ? ` ${value}` : ''}`);
  // simulator.* keys go into the one simulator block that also enables it.
  return keys[0] === 'simulator' ? yaml(lines[0] ?? '', '  enabled: true', ...lines.slice(1)) : yaml(SIM, ...lines);
}

const FIELDS = [...durationFields(configJsonSchema())];

/** Keys whose value becomes a setTimeout delay or a schedule period; the rest are time ranges and lags. */
const TIMERS = [
  'upstream.timeout', 'upstream.retry.min_delay', 'upstream.retry.max_delay', 'targets.refresh',
  'collectors.defaults.jitter', 'collectors.defaults.audit.every', 'collectors.inventory.interval',
  'waf_events.interval', 'otlp.timeout', 'otlp_metrics.timeout', 'otlp_metrics.interval',
];

describe('duration bounds', () => {
  it('finds the duration keys (the walk reaches nested and optional blocks)', () => {
    const paths = FIELDS.map(([path]) => path);
    for (const key of [...TIMERS, 'collectors.access.audit.lookback', 'simulator.readings.late_revision.after']) expect(paths).toContain(key);
  });

  it.each(FIELDS)('%s has a maximum the runtime honours', (path, schema) => {
    expect(typeof schema.maximum).toBe('number');
    if (TIMERS.includes(path)) expect(schema.maximum).toBeLessThanOrEqual(MAX_TIMER_MS);
    expect(schema.maximum).toBeLessThanOrEqual(31 * 86_400_000);
  });

  it.each(FIELDS)('%s: one millisecond over the maximum is refused naming the key', (path, schema) => {
    const max = schema.maximum ?? Number.NaN;
    const err = loadError({ text: withKey(path, max + 1) });
    expect(problemAt(err, path).message).toMatch(/^expected a duration of at most /);
    expect(problemAt(err, path).line).toBeGreaterThan(1);
  });

  it.each([
    ['collectors.inventory.interval', '30d'],
    ['targets.refresh', '60d'],
    ['waf_events.interval', '30d'],
    ['collectors.defaults.jitter', '25d'],
  ])('%s: %s is refused as longer than any timer', (path, value) => {
    const err = loadError({ text: withKey(path, value) });
    expect(problemAt(err, path).message).toBe(TIMER_MESSAGE);
  });

  it('accepts the longest timer itself, written as the message writes it', () => {
    const config = loadConfig({ text: withKey('targets.refresh', formatDuration(MAX_TIMER_MS)), env: {} });
    expect(config.targets.refresh).toBe(MAX_TIMER_MS);
  });

  it.each([
    ['collectors.defaults.max_backfill', '32d', 'expected a duration of at most 31d'],
    ['collectors.access.audit.lookback', '8d', 'expected a duration of at most 7d'],
    ['waf_events.start_from', '40d', 'expected a duration of at most 31d'],
    ['upstream.timeout', '2h', 'expected a duration of at most 1h'],
  ])('%s: %s is refused with its own bound', (path, value, message) => {
    expect(problemAt(loadError({ text: withKey(path, value) }), path).message).toBe(message);
  });

  it.each([
    [0, '0ms'],
    [MAX_TIMER_MS, '24d20h31m23s647ms'],
    [90_000, '1m30s'],
    [-3_600_000, '-1h'],
  ])('formatDuration(%i) = %s, which parses back', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    if (ms >= 0) expect(parseDuration(text)).toBe(ms);
  });
});
