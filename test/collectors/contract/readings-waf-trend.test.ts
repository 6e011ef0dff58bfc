// waf-trend against an upstream whose logTread buckets are coarser than the
// interval: it used to fail every cycle for good; now each coarse bucket is
// counted whole once settled, the mismatch is reported, and the counters equal
// the events of exactly the buckets counted, whether a range lists the coarse
// bucket holding its start or only those beginning inside it, and whether it
// lists the bucket in progress or only complete ones.
import { beforeEach, describe, expect, it } from 'vitest';
import { lastSettledStart } from '../../../src/collectors/buckets.js';
import { createWafTrendCollector, type WafTrendOptions } from '../../../src/collectors/waf-trend/index.js';
import { SEVERITY_LABEL, WAF_EVENTS } from '../../../src/collectors/waf-trend/metrics.js';
import { Driver, HOUR, MIN, T0, useSim } from '../series/sim-driver.js';

const rig = useSim({ domains: 4 });
beforeEach(() => rig.sim.readings.reset());
const DELAY = 3 * MIN;
const OPTIONS: WafTrendOptions = { interval: '5m', delayMs: DELAY, maxBackfillMs: 12 * HOUR, timestamps: false };
const DENY = 417;

function driver(options = OPTIONS): Driver {
  return new Driver(rig, createWafTrendCollector(options), { domains: rig.sim.truth.domains(), packages: [] });
}

function expectEvents(d: Driver, from: number, to: number, when = ''): void {
  const events = rig.sim.truth.wafEvents(from, to, { domains: rig.sim.truth.domains() });
  if (to > from) expect(events.length).toBeGreaterThan(0);
  for (const action of ['deny', 'pass'] as const) {
    for (const [level, severity] of Object.entries(SEVERITY_LABEL)) {
      const want = events.filter((e) => (e.record.response.httpCode === DENY) === (action === 'deny') && e.record.severityLevel === level).length;
      expect(d.counter(WAF_EVENTS.name, { action, severity }), `${when} ${action}/${severity}`).toBe(want);
    }
  }
}

describe('waf-trend with coarse logTread buckets', () => {
  it('1h buckets for a 5m interval: each hour counted whole once settled, bucket_width reported; none with the reading off', async () => {
    rig.sim.readings.merge({ logTreadBucketMs: HOUR });
    const d = driver();
    // T0 is 12:00; 15 cycles 5 minutes apart reach 13:10, when the 12:00 hour has settled (13:00 + delay).
    await d.cycles(15, 5 * MIN);
    expect(d.checks().bucket_width).toBeGreaterThan(0);
    // The hour the counter began in (11:00-12:00, straddling its start) is not counted: its first part is not ours.
    expect(lastSettledStart(T0, '5m', DELAY, 480)).toBeLessThan(T0);
    expectEvents(d, T0, T0 + HOUR);
    expect(d.newestBucketEndMs).toBe(T0 + HOUR);

    rig.sim.readings.reset();
    rig.sim.clock.set(T0);
    const plain = driver();
    await plain.cycles(4, 5 * MIN);
    expect(plain.checks()).toEqual({});
  });

  it.each([
    ['listed when it holds beginTime', false],
    ['listed only when it begins inside the range', true],
  ])('5m buckets for a 1m interval, a coarse bucket %s: every whole bucket counted exactly, bucket_width on first sight, never no data', async (_name, strict) => {
    rig.sim.readings.merge({ logTreadBucketMs: 5 * MIN, logTreadStrictRange: strict });
    const d = driver({ ...OPTIONS, interval: '1m' });
    const widths: number[] = [];
    // T0 is 12:00; the counters start after 11:56 (the last bucket settled at T0), inside the 11:55 bucket, which is not theirs.
    for (let k = 0; k < 20; k++) {
      const out = await d.cycle();
      widths.push((out.mismatches ?? []).filter((m) => m.check === 'bucket_width').length);
      rig.sim.clock.advance(MIN);
    }
    // First sight is the first cycle with an answer: the second (the first only starts the counters).
    expect(widths.slice(0, 2).map((n) => n > 0)).toEqual([false, true]);
    expect(d.logs.filter((l) => l.level === 'warn')).toEqual([]);
    // The last cycle, at 12:19, has seen 12:15 settle: 12:00, 12:05 and 12:10 counted whole, each once.
    expect(d.newestBucketEndMs).toBe(T0 + 15 * MIN);
    expectEvents(d, T0, T0 + 15 * MIN);
  });

  it.each([false, true])('1m buckets, then 5m ones (strict range reading: %s): no bucket counted twice across the switch', async (strict) => {
    const d = driver({ ...OPTIONS, interval: '1m' });
    // Cycles 12:00 .. 12:11: the upstream's 1-minute buckets, counted up to 12:07.
    await d.cycles(12, MIN);
    expect(d.newestBucketEndMs).toBe(T0 + 8 * MIN);
    rig.sim.readings.merge({ logTreadBucketMs: 5 * MIN, logTreadStrictRange: strict });
    // Cycles 12:12 .. 12:29: 12:10, 12:15 and 12:20 counted whole. The 12:05 bucket straddles the switch: its minutes already
    // counted are not counted again, and the rest of it (12:08, 12:09) is only in that bucket, which is not counted.
    for (let k = 0; k < 18; k++) {
      await d.cycle();
      rig.sim.clock.advance(MIN);
    }
    expect(d.checks().bucket_width).toBeGreaterThan(0);
    expect(d.logs.filter((l) => l.level === 'warn')).toEqual([]);
    expect(d.newestBucketEndMs).toBe(T0 + 25 * MIN);
    const counted = (from: number, to: number) => rig.sim.truth.wafEvents(from, to, { domains: rig.sim.truth.domains() });
    const events = [...counted(T0 - 3 * MIN, T0 + 8 * MIN), ...counted(T0 + 10 * MIN, T0 + 25 * MIN)];
    expect(events.length).toBeGreaterThan(0);
    for (const action of ['deny', 'pass'] as const) {
      for (const [level, severity] of Object.entries(SEVERITY_LABEL)) {
        const want = events.filter((e) => (e.record.response.httpCode === DENY) === (action === 'deny') && e.record.severityLevel === level).length;
        expect(d.counter(WAF_EVENTS.name, { action, severity }), `${action}/${severity}`).toBe(want);
      }
    }
  });

  it.each([false, true])('5m buckets for a 1m interval (strict range reading: %s): the audit re-reads every whole bucket counted, none revised', async (strict) => {
    rig.sim.readings.merge({ logTreadBucketMs: 5 * MIN, logTreadStrictRange: strict });
    const d = driver({ ...OPTIONS, interval: '1m', audit: { everyMs: 5 * MIN, lookbackMs: 30 * MIN, correct: false } });
    await d.cycles(30, MIN);
    // Audits at 12:05 .. 12:25 re-read every minute counted since 11:57 (11:59, 12:04, 12:09, 12:14, 12:19 counted by then): 3 + 8 + 13 + 18 + 23, six series each.
    expect(d.audit).toEqual({ match: (3 + 8 + 13 + 18 + 23) * 6, revised: 0 });
    expect(d.checks().late_revision).toBeUndefined();
  });

  it('5m buckets listed only once complete and only when they begin inside the range, for a 1m interval: up throughout, '
    + 'in step, each bucket counted whole at its end + delay', async () => {
    rig.sim.readings.merge({ logTreadBucketMs: 5 * MIN, logTreadStrictRange: true, logTreadCompleteOnly: true });
    const d = driver({ ...OPTIONS, interval: '1m' });
    // T0 is 12:00; the counters start after 11:56, inside the 11:55 bucket, which is not theirs: 12:00 is the first they own.
    for (let k = 0; k <= 24; k++) {
      const now = rig.sim.clock.now();
      // A cycle that fails (EDGE_NO_DATA: up 0) throws here.
      await d.cycle();
      // Counted by now: every 5-minute bucket from 12:00 whose end + delay has passed (12:00 at 12:08, 12:05 at 12:13, ...).
      const settled = Math.max(T0, Math.floor((now - DELAY) / (5 * MIN)) * 5 * MIN);
      expectEvents(d, T0, settled, `cycle at 12:${String(k).padStart(2, '0')}`);
      rig.sim.clock.advance(MIN);
    }
    // Buckets 12:00 .. 12:15 counted, the last at 12:23.
    expect(d.newestBucketEndMs).toBe(T0 + 20 * MIN);
    expect(d.checks().clock_offset).toBeUndefined();
    expect(d.checks().out_of_range).toBeUndefined();
    expect(d.checks().missing_buckets).toBeUndefined();
    expect(d.logs.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('totals that disagree: logTread count reported under totals, the counters exact', async () => {
    rig.sim.readings.merge({ totalsSkew: 1.5 });
    const d = driver();
    await d.cycles(4, 5 * MIN);
    expect(d.checks().totals).toBeGreaterThan(0);
    expectEvents(d, lastSettledStart(T0, '5m', DELAY, 480) + 5 * MIN, d.newestBucketEndMs ?? 0);
  });
});
