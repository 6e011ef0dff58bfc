// A mismatch is counted every time, and logged at most once an hour per check
// and collector, with the evidence and the full config key.
import { describe, expect, it } from 'vitest';
import type { Mismatch } from '../../../src/collectors/contract/checks.js';
import { configPath, MismatchReporter } from '../../../src/collectors/contract/reporter.js';
import { logStub, type LogRecord } from '../series/sim-driver.js';

const bucket: Mismatch = { check: 'bucket_width', operation: 'describeLogV2', field: 'logTread', assumed: '5m buckets', seen: '1h buckets', configKey: 'interval', suggest: '1h' };
const totals: Mismatch = { check: 'totals', field: 'count', assumed: 'count = sum', seen: 'count 11, sum 10' };

describe('MismatchReporter', () => {
  it('counts each mismatch; logs one warning per check and collector an hour, naming the key', () => {
    const logs: LogRecord[] = [];
    let now = 0;
    const counted: string[] = [];
    const r = new MismatchReporter({ log: logStub(logs), clock: { now: () => now }, observer: { onMismatch: (check, n) => counted.push(`${check}:${n}`) } });
    r.report('waf-trend', [bucket, totals]);
    now += 59 * 60_000;
    r.report('waf-trend', [bucket]);
    r.report('access', [bucket]);
    now += 60_000;
    r.report('waf-trend', [bucket]);
    expect(counted).toEqual(['bucket_width:1', 'totals:1', 'bucket_width:1', 'bucket_width:1', 'bucket_width:1']);
    expect(logs.map((l) => `${String(l.fields.collector)}/${String(l.fields.check)}`)).toEqual(['waf-trend/bucket_width', 'waf-trend/totals', 'access/bucket_width', 'waf-trend/bucket_width']);
    expect(logs[0]).toMatchObject({
      level: 'warn',
      fields: { operation: 'describeLogV2', field: 'logTread', assumed: '5m buckets', seen: '1h buckets', configKey: 'collectors.waf_trend.interval', suggest: '1h' },
    });
  });

  it('a collector-relative key becomes its full path; a full one stays', () => {
    expect(configPath('cc-attack', 'delay')).toBe('collectors.cc_attack.delay');
    expect(configPath('access', 'upstream.units.bandwidth')).toBe('upstream.units.bandwidth');
  });
});
