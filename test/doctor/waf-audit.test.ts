// waf_audit's judgement where the simulator does not go on its own: a newest
// bucket too big for the pages the check reads, a read cut short whose lower
// bounds already exceed a count, and a difference found with the audit
// already off (nothing to set).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { setupFrom, type DoctorSetup } from '../../src/doctor/setup.js';
import { judgeWafAudit, type WafAuditProbe } from '../../src/doctor/waf-audit.js';

const MIN = 60_000;
/** 2026-03-02 11:30:00 +08:00 */
const T = Date.UTC(2026, 2, 2, 3, 30, 0);

function setup(waf = ''): DoctorSetup {
  return setupFrom(loadConfig({ text: `simulator:\n  enabled: true\nwaf_events:\n  enabled: true\n  page_size: 100\n${waf}`, env: {} }));
}

/** Minute buckets from T with these counts. */
function buckets(counts: readonly number[]): Array<{ startMs: number; endMs: number; counted: number }> {
  return counts.map((counted, i) => ({ startMs: T + i * MIN, endMs: T + (i + 1) * MIN, counted }));
}

function probe(counts: readonly number[], compared: number, logs?: WafAuditProbe['logs']): WafAuditProbe {
  const all = buckets(counts);
  return {
    range: { startMs: T, endMs: T + counts.length * MIN }, query: { pageSize: 100, otherFilter: [] },
    counts: { kind: 'answer', value: { buckets: all, anyCount: counts.some((n) => n > 0) }, sentAt: T },
    compared: all.slice(all.length - compared), ...(logs === undefined ? {} : { logs }),
  };
}

/** `n` records in the minute starting at `start`. */
const times = (start: number, n: number): number[] => Array.from({ length: n }, (_, i) => start + i * 10);

describe('judgeWafAudit', () => {
  it('a newest bucket counting more than the pages hold: unknown, nothing read', () => {
    const result = judgeWafAudit(probe([5, 900], 0), setup());
    expect(result).toMatchObject({ verdict: 'unknown', set: [] });
    expect(result.observed).toEqual([
      'logTread (deny, every domain, [2026-03-02 11:30:00, 2026-03-02 11:32:00)): the newest settled bucket alone counts 900 deny records, ' +
        'more than 10 pages of waf_events.page_size (100) hold',
    ]);
  });

  it.each([
    ['more records than counted in a bucket: differs, at least', [...times(T, 600), ...times(T + MIN, 400)], 'differs'],
    ['no more than counted so far (the rest after the range): a lower bound says nothing', [...times(T + 2 * MIN, 360), ...times(T + MIN, 90), ...times(T, 550)], 'unknown'],
  ] as const)('a read cut at 10 pages, %s', (_name, read, verdict) => {
    const logs = { kind: 'answer' as const, value: { times: read, pages: 10, complete: false }, sentAt: T };
    const result = judgeWafAudit(probe([600, 100], 2, logs), setup());
    expect(result.verdict).toBe(verdict);
    if (verdict === 'differs') {
      expect(result.observed).toEqual([
        '1 of 2 bucket(s) of 1m in [2026-03-02 11:30:00, 2026-03-02 11:32:00) differ (deny, every domain; 1 logTread request, 10 logs page(s)): ' +
          'logTread counts 700 deny records, logs returns at least 1000',
        '2026-03-02 11:31:00: logTread 100, logs at least 400',
      ]);
    } else {
      expect(result.observed).toEqual([
        'logs (deny, every domain, [2026-03-02 11:30:00, 2026-03-02 11:32:00)): 1000 records read in 10 pages of waf_events.page_size (100) and more to come, ' +
          'though the 2 compared bucket(s) count 700: stopped there; 360 record(s) outside the compared buckets not compared',
      ]);
    }
  });

  it('differs with the audit already off: nothing to set, and the note says to leave it so', () => {
    const logs = { kind: 'answer' as const, value: { times: times(T, 3), pages: 2, complete: true }, sentAt: T };
    const result = judgeWafAudit(probe([5], 1, logs), setup('  audit:\n    enabled: false\n'));
    expect(result).toMatchObject({ verdict: 'differs', set: [] });
    expect(result.observed[1]).toBe('2026-03-02 11:30:00: logTread 5, logs 3');
    expect(result.note).toMatch(/It is off \(waf_events\.audit\.enabled: false\): leave it so/);
  });
});
