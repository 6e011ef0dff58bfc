// `doctor`'s waf_audit against the simulator: the upstream's logTread deny
// counts and the deny records `logs` returns, bucket by bucket over the half
// hour before the forwarder's final pass, asked with the forwarder's query.
// Each verdict's numbers are the simulator's truth: equal by default (also
// when records are ingested late: both hide them alike), off by exactly the
// delta under logTreadCountDelta, and unknown with no deny record, a refused
// WAF query, or no forwarder.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { doctorJson, doctorText, startDoctorSim, type DoctorSim } from './doctor-helpers.js';

const MIN = 60_000;
/** The doctor's now (12:07:30 +08:00) less delay + overlap (2m + 5m), down to the minute: 12:00; half an hour before it. */
const END = Date.UTC(2026, 2, 2, 4, 0, 0);
const START = END - 30 * MIN;
const RANGE = '[2026-03-02 11:30:00, 2026-03-02 12:00:00)';

let d: DoctorSim;
let dir: string;

function config(name: string, yaml: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `waf_events:\n  enabled: true\n${yaml}`);
  return file;
}

beforeAll(async () => {
  d = await startDoctorSim();
  dir = mkdtempSync(join(tmpdir(), 'edge-doctor-waf-'));
});
afterAll(async () => {
  await d.sim.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  d.sim.readings.reset();
  d.sim.faults.set([]);
  d.sim.reset();
});

/** The deny records the upstream shows now, per minute of the range: the truth both metrics should give. */
function denyPerMinute(opts: { domains?: string[]; severity?: string } = {}): number[] {
  const events = d.sim.truth.wafEvents(START, END, { ...(opts.domains ? { domains: opts.domains } : {}), visibleAt: d.sim.clock.now() })
    .filter((e) => e.record.response.httpCode === 417 && (opts.severity === undefined || e.record.severityLevel === opts.severity));
  return Array.from({ length: 30 }, (_, i) => events.filter((e) => Math.floor((e.time - START) / MIN) === i).length);
}

const sum = (ns: readonly number[]): number => ns.reduce((a, b) => a + b, 0);

describe('doctor waf_audit', () => {
  it.each([
    ['the default readings', {}],
    ['a third of the deny records 15 minutes late (past delay + overlap): hidden from both alike', { wafLateIngest: { fraction: 1 / 3, minMs: 15 * MIN, maxMs: 15 * MIN } }],
  ])('%s: ok, consistent over every bucket, with the counts of the truth', async (_name, readings) => {
    d.sim.readings.merge(readings);
    const records = sum(denyPerMinute());
    // Fewer than a page (500): the first page short, then the empty one that ends it (fetch.ts).
    expect(records).toBeGreaterThan(100);
    expect(records).toBeLessThan(500);
    const r = await doctorJson(d, d.env, ['--config', config('on', '')]);
    expect(r.check('waf_audit')).toMatchObject({
      verdict: 'ok', set: [],
      observed: [`consistent: 30 bucket(s) of 1m in ${RANGE}, ${records} deny records (deny, every domain; 1 logTread request, 2 logs page(s)): ` +
        'every logTread count equals its records; the delivery audit can be trusted here'],
    });
    expect(r.code).toBe(0);
    // As the table shows it: `waf_audit  consistent`.
    expect((await doctorText(d, ['--config', config('on', '')])).out).toMatch(/^waf_audit {9}consistent assumed {3}logTread/m);
  });

  it('asks with the forwarder\'s severity and domains', async () => {
    const domains = d.sim.truth.domains().slice(0, 6);
    const perMinute = denyPerMinute({ domains, severity: '高风险' });
    expect(sum(perMinute)).toBeGreaterThan(0);
    expect(sum(perMinute)).toBeLessThan(sum(denyPerMinute({ domains })));
    const file = config('scoped', `  severity: high\n  domains: [${domains.join(', ')}]\n  audit:\n    enabled: false\n`);
    const r = await doctorJson(d, d.env, ['--config', file]);
    expect(r.check('waf_audit')).toMatchObject({
      verdict: 'ok',
      observed: [`consistent: 30 bucket(s) of 1m in ${RANGE}, ${sum(perMinute)} deny records (deny, 6 domain(s), severity 高风险; 1 logTread request, 2 logs page(s)): ` +
        'every logTread count equals its records; the delivery audit (off: waf_events.audit.enabled is false) could be trusted here'],
    });
  });

  it('logTreadCountDelta 2: differs, naming the first buckets with both numbers, and the audit to turn off', async () => {
    d.sim.readings.merge({ logTreadCountDelta: 2 });
    const perMinute = denyPerMinute();
    const busy = perMinute.flatMap((n, i) => (n > 0 ? [{ i, n }] : []));
    expect(busy.length).toBeGreaterThan(3);
    const at = (i: number): string => `2026-03-02 11:${String(30 + i).padStart(2, '0')}:00`;
    const r = await doctorJson(d, d.env, ['--config', config('on', '')]);
    const check = r.check('waf_audit');
    expect(check).toMatchObject({ verdict: 'differs', set: [{ key: 'waf_events.audit.enabled', value: 'false' }] });
    expect(check.observed).toEqual([
      `${busy.length} of 30 bucket(s) of 1m in ${RANGE} differ (deny, every domain; 1 logTread request, 2 logs page(s)): ` +
        `logTread counts ${sum(perMinute) + 2 * busy.length} deny records, logs returns ${sum(perMinute)}`,
      ...busy.slice(0, 3).map(({ i, n }) => `${at(i)}: logTread ${n + 2}, logs ${n}`),
      `and ${busy.length - 3} more bucket(s)`,
      // Every busy minute of the half hour is short: that share of the hour's 60 buckets, two requests each.
      `the audit would read about ${Math.round((busy.length / 30) * 60)} bucket(s) an hour again: ` +
        `at least ${2 * Math.round((busy.length / 30) * 60)} logs requests an hour on top of the requests-per-hour estimate`,
    ]);
    expect(check.note).toMatch(/read again once, then reported unreconciled .* counted fewer is reported surplus\. Turn the audit off, or keep it and read its outcomes as a trend only/);
    expect(r.code).toBe(1);
    // Only this check differs: the others do not read logTread's deny counts against records.
    expect(r.report.checks.filter((c) => c.verdict === 'differs').map((c) => c.id)).toEqual(['waf_audit']);
  });

  it('says so in the table too', async () => {
    d.sim.readings.merge({ logTreadCountDelta: 2 });
    const r = await doctorText(d, ['--config', config('on', '')]);
    expect(r.out).toMatch(/^waf_audit +differs +assumed +logTread's deny count of a bucket is the number of deny records logs returns for it/m);
    expect(r.out).toMatch(/^ +set +waf_events\.audit\.enabled: false$/m);
  });

  describe('bounded: one logTread request and at most 10 logs pages', () => {
    /** The newest buckets whose counts fit in 8 pages of 10 (a short first page costs one more, the last short or empty one too). */
    function newestWithin80(perMinute: readonly number[]): { first: number; records: number } {
      let first = perMinute.length;
      let records = 0;
      while (first > 0 && records + (perMinute[first - 1] ?? 0) <= 80) records += perMinute[--first] ?? 0;
      return { first, records };
    }
    const at = (i: number): string => `2026-03-02 11:${String(30 + i).padStart(2, '0')}:00`;

    it('page_size 10: the newest buckets that fit, consistent, and it says which were left out', async () => {
      const { first, records } = newestWithin80(denyPerMinute());
      expect(first).toBeGreaterThan(0);
      expect(records).toBeGreaterThanOrEqual(10);
      const r = await doctorJson(d, d.env, ['--config', config('small-pages', '  page_size: 10\n')]);
      // Full pages of 10, then the short (or empty) one that ends the read.
      const pages = Math.floor(records / 10) + 1;
      expect(r.check('waf_audit')).toMatchObject({
        verdict: 'ok',
        observed: [`consistent: ${30 - first} bucket(s) of 1m in [${at(first)}, 2026-03-02 12:00:00), ${records} deny records ` +
          `(deny, every domain; 1 logTread request, ${pages} logs page(s)): every logTread count equals its records; the delivery audit can be ` +
          `trusted here; the ${first} older bucket(s) of the last 30m left out: with them the records would take more than 10 pages of waf_events.page_size (10)`],
      });
    });

    it('an upstream whose logs keep coming (ranges ignored: the last hour whatever is asked): stops after 10 pages, unknown', async () => {
      d.sim.readings.merge({ ignoreRanges: true });
      const off = await doctorJson(d);
      d.sim.reset();
      const r = await doctorJson(d, d.env, ['--config', config('small-pages', '  page_size: 10\n')]);
      expect(r.report.summary.requests - off.report.summary.requests).toBe(1 + 10);
      // logTread answers the last hour too: its buckets inside the range are the truth's minutes.
      const { first, records: counted } = newestWithin80(denyPerMinute());
      const now = d.sim.clock.now();
      // The 100 newest deny records of the last hour, in the upstream's order; those inside the compared buckets.
      const newest = d.sim.truth.wafEvents(now - 60 * MIN, now, { visibleAt: now }).filter((e) => e.record.response.httpCode === 417)
        .sort((a, b) => b.time - a.time || (a.record.requestId < b.record.requestId ? -1 : 1)).slice(0, 100);
      const inside = newest.filter((e) => e.time >= START + first * MIN && e.time < END).length;
      expect(r.check('waf_audit')).toMatchObject({
        verdict: 'unknown',
        observed: [`logs (deny, every domain, ${RANGE}): 100 records read in 10 pages of waf_events.page_size (10) and more to come, ` +
          `though the ${30 - first} compared bucket(s) count ${counted}: stopped there; ${100 - inside} record(s) outside the compared buckets not compared`],
      });
    });
  });

  it('logTread buckets of an hour: no whole bucket inside the half hour, unknown, and no logs read', async () => {
    d.sim.readings.merge({ logTreadBucketMs: 3_600_000 });
    const r = await doctorJson(d, d.env, ['--config', config('on', '')]);
    expect(r.check('waf_audit')).toMatchObject({
      verdict: 'unknown',
      observed: [`logTread (deny, every domain, ${RANGE}) lists counts but no whole bucket inside the range whose width its points show ` +
        '(a lone point, or buckets coarser than the range): nothing to compare bucket by bucket'],
    });
  });

  it.each([
    ['no deny record in the range (an other_filter nothing matches)', '  other_filter: [{one_val: request_id, two_val: eq, three_val: [no-such-request]}]\n', undefined,
      `no deny record in ${RANGE} (deny, every domain, 1 other_filter(s); 1 logTread request, 1 logs page(s)): nothing to compare`],
    ['the WAF query refused (403)', '', { forbidden: true, operations: ['describeLogV2' as const] },
      /^logTread \(deny, every domain, \[2026-03-02 11:30:00, 2026-03-02 12:00:00\)\): .*HTTP 403/],
  ])('%s: unknown, saying why', async (_name, yaml, fault, observed) => {
    if (fault) d.sim.faults.set([fault]);
    const r = await doctorJson(d, d.env, ['--config', config('unknown', yaml)]);
    const check = r.check('waf_audit');
    expect(check.verdict).toBe('unknown');
    expect(check.observed).toHaveLength(1);
    if (typeof observed === 'string') expect(check.observed[0]).toBe(observed);
    else expect(check.observed[0]).toMatch(observed);
  });

  it('waf_events disabled (the default): unknown, nothing asked; enabled, it costs the logTread request and the logs pages', async () => {
    const off = await doctorJson(d);
    expect(off.check('waf_audit')).toMatchObject({ verdict: 'unknown', observed: ['waf_events is disabled: no forwarder and no audit to check; nothing asked'] });
    expect(off.code).toBe(0);
    d.sim.reset();
    // waf_trend (on by default) already has the other WAF probes asked: the difference is this check's alone.
    const on = await doctorJson(d, d.env, ['--config', config('on', '')]);
    expect(on.report.summary.requests - off.report.summary.requests).toBe(1 + 2);
  });
});
