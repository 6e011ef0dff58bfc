// The doctor's pure judgements, table-driven: which zone a shifted answer
// means (the sign is easy to get backwards), how far behind a newest bucket
// is, and the duration and offset texts.
import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/api/errors.js';
import { loadConfig } from '../../src/config/index.js';
import { judgeClock, type ClockProbe } from '../../src/doctor/clock.js';
import { humanDuration } from '../../src/doctor/format.js';
import { setupFrom, type DoctorSetup } from '../../src/doctor/setup.js';
import type { Trend } from '../../src/doctor/trends.js';
import { formatOffset, judgeZone } from '../../src/doctor/zone.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
/** 2026-03-01 12:00:00 +08:00 */
const T = Date.UTC(2026, 2, 1, 4, 0, 0);

function setup(yaml = ''): DoctorSetup {
  return setupFrom(loadConfig({ text: `simulator:\n  enabled: true\n${yaml}`, env: {} }));
}

function trend(starts: readonly number[]): Trend {
  return { operation: 'describeL7DataV2', series: [{ field: 'requestTrend.requestCounter', points: starts.map((t) => [t, 1] as const) }], totals: [], bandwidth: [] };
}

const halfHour = (from: number): number[] => [0, 1, 2, 3, 4, 5].map((i) => from + i * 5 * MIN);

describe('judgeZone', () => {
  it.each([
    ['+08:00', 0, 'ok', undefined],
    ['+08:00', -1 * HOUR, 'differs', '+09:00'],
    ['+08:00', 8 * HOUR, 'differs', '+00:00'],
    ['+08:00', 13 * HOUR, 'differs', '-05:00'],
    ['+08:00', -1.5 * HOUR, 'differs', '+09:30'],
    ['+00:00', -5.75 * HOUR, 'differs', '+05:45'],
    ['+08:00', 7 * MIN, 'unknown', undefined],
    ['+08:00', -7 * HOUR, 'unknown', undefined],
  ] as const)('configured %s, points shifted by %d ms: %s %s', (zone, shift, verdict, value) => {
    const p = setup(`upstream:\n  timezone: "${zone}"\n`);
    const found = judgeZone({ span: { begin: T, end: T + 30 * MIN }, answer: { kind: 'answer', value: trend(halfHour(T + shift)), sentAt: T + 24 * HOUR } }, p);
    expect(found.result.verdict).toBe(verdict);
    expect(found.result.set).toEqual(value === undefined ? [] : [{ key: 'upstream.timezone', value }]);
    expect(found.readZone === undefined ? undefined : formatOffset(found.readZone)).toBe(value);
  });

  it('does not guess a zone from an answer that ignores the range', () => {
    const starts = Array.from({ length: 60 }, (_, i) => T + i * 5 * MIN);
    const found = judgeZone({ span: { begin: T, end: T + 30 * MIN }, answer: { kind: 'answer', value: trend(starts), sentAt: T } }, setup());
    expect(found.result.verdict).toBe('unknown');
    expect(found.result.observed[0]).toContain('not confined to the half hour asked');
    expect(found.readZone).toBeUndefined();
  });
});

describe('judgeClock', () => {
  const now = T + 2 * MIN + 17_000;
  const probe = (newest: number, interval = '5m'): ClockProbe => ({
    source: { collector: 'access', operation: 'describeL7DataV2', interval: interval as '5m', delayMs: 5 * MIN },
    back: [{ span: { begin: T - HOUR, end: now + 1000 }, answer: { kind: 'answer', value: trend([newest - 5 * MIN, newest]), sentAt: now } }],
  });

  it.each([
    ['the current bucket', T, 'ok', []],
    ['one bucket behind', T - 5 * MIN, 'ok', []],
    ['a bucket ahead', T + 5 * MIN, 'ok', []],
    ['two buckets behind', T - 10 * MIN, 'differs', [{ key: 'collectors.defaults.delay', value: '15m' }]],
    ['an hour behind', T - HOUR, 'differs', [{ key: 'collectors.defaults.delay', value: '65m' }]],
  ] as const)('newest point at %s: %s', (_name, newest, verdict, set) => {
    const result = judgeClock(probe(newest), setup(), undefined, now);
    expect(result.verdict).toBe(verdict);
    expect(result.set).toEqual(set);
  });

  it('a point after the range asked is not the upstream\'s clock', () => {
    const result = judgeClock(probe(T + HOUR), setup(), undefined, now);
    expect(result.verdict).toBe('unknown');
  });

  it('found only in the widest range: differs, and the offset is the day', () => {
    const empty = (begin: number, end: number) => ({ span: { begin, end }, answer: { kind: 'answer' as const, value: trend([]), sentAt: now } });
    const back = [empty(T - 25 * MIN, now + 1000), empty(T - HOUR, T - 25 * MIN),
      { span: { begin: T - 24 * HOUR, end: T - HOUR }, answer: { kind: 'answer' as const, value: trend([T - 24 * HOUR]), sentAt: now } }];
    const result = judgeClock({ ...probe(T), back }, setup(), undefined, now);
    expect(result.verdict).toBe('differs');
    expect(result.observed[0]).toContain('the newest point starts 1d (288 bucket(s)) before our current bucket');
    // delay is at most 1d: it cannot cover a day on top of the configured 5m, and the line says so.
    expect(result.observed[0]).toContain('more than the longest delay (1d) covers with the configured one on top');
    expect(result.set).toEqual([{ key: 'collectors.defaults.delay', value: '1d' }]);
  });

  it('no point in the last day: unknown, and it says so', () => {
    const back = [{ span: { begin: T - 24 * HOUR, end: T - HOUR }, answer: { kind: 'answer' as const, value: trend([]), sentAt: now } }];
    const result = judgeClock({ ...probe(T), back }, setup(), undefined, now);
    expect(result.verdict).toBe('unknown');
    expect(result.observed[0]).toMatch(/no point at all since 2026-02-28 12:00:00 \(the last day, asked in 1 ranges\): the account has no data in the last day/);
  });

  it.each([
    ['values ten minutes on', [T + 5 * MIN, T + 10 * MIN], [1, 1], 'differs', /up to 10m \(2 bucket\(s\)\) after our current bucket/],
    ['only zeros listed ahead', [T + 5 * MIN, T + 10 * MIN], [0, 0], 'ok', /is our current bucket/],
    ['one bucket on', [T + 5 * MIN], [1], 'ok', /1 bucket\(s\) after our current bucket: within one bucket/],
  ] as const)('ahead: %s -> %s', (_name, starts, values, verdict, text) => {
    const value: Trend = { ...trend([]), series: [{ field: 'requestTrend.requestCounter', points: starts.map((t, i) => [t, values[i] ?? 0] as const) }] };
    const ahead = { span: { begin: T + 5 * MIN, end: T + 5 * MIN + 24 * HOUR }, answer: { kind: 'answer' as const, value, sentAt: now } };
    const result = judgeClock({ ...probe(T), ahead }, setup(), undefined, now);
    expect(result.verdict).toBe(verdict);
    expect(result.set).toEqual([]);
    expect(result.observed[0]).toMatch(text);
  });

  it('an upstream that refuses a range in our future: ahead unknown, the rest of the verdict stands', () => {
    const error = new UpstreamError('查询失败', { operation: 'describeL7DataV2', status: 200, upstreamCode: 500, upstreamMsg: '查询失败' });
    const ahead = { span: { begin: T + 5 * MIN, end: T + 5 * MIN + 24 * HOUR }, answer: { kind: 'failed' as const, error } };
    const result = judgeClock({ ...probe(T), ahead }, setup(), undefined, now);
    expect(result.verdict).toBe('ok');
    expect(result.observed).toEqual([
      'access (describeL7DataV2, 5m): the newest point is our current bucket',
      'access (describeL7DataV2, 5m): the day ahead of our now could not be asked: EDGE_UPSTREAM: 查询失败',
    ]);
  });

  it('names the collector\'s own delay when it overrides the default', () => {
    const p = setup('collectors:\n  access:\n    delay: 7m\n');
    const result = judgeClock({ ...probe(T - 10 * MIN), source: { ...probe(T).source, delayMs: 7 * MIN } }, p, undefined, now);
    // 10 minutes behind plus its own 7, rounded up to 5 minutes.
    expect(result.set).toEqual([{ key: 'collectors.access.delay', value: '20m' }]);
  });

  it('a request that crosses a bucket boundary reads one bucket less: the advice is the same', () => {
    const at = (newest: number) => judgeClock({ ...probe(newest, '1m'), source: { ...probe(T).source, interval: '1m' } }, setup(), undefined, now).set;
    const current = T + 2 * MIN;
    expect(at(current - 10 * MIN)).toEqual([{ key: 'collectors.defaults.delay', value: '15m' }]);
    expect(at(current - 9 * MIN)).toEqual(at(current - 10 * MIN));
  });

  it('reports the newest WAF record without judging on it', () => {
    const result = judgeClock(undefined, setup(), now - 95_000, now);
    expect(result).toMatchObject({ verdict: 'unknown', observed: ['newest WAF record: 1m35s ago'] });
  });
});

describe('humanDuration', () => {
  it.each([[0, '0s'], [999, '1s'], [95_000, '1m35s'], [6_051_000, '1h40m51s'], [-HOUR, '-1h'], [90_061_000, '1d1h1m1s']])('%d ms: %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});
