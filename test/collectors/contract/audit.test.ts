// The audit against an upstream that revises buckets after `delay` (a late
// revision 10 minutes after a bucket ends, by a quarter): with correct: true
// the counters reach the final totals of every bucket the audit saw revised;
// with correct: false the revisions are counted and the counters left alone.
import { beforeEach, describe, expect, it } from 'vitest';
import { createAccessCollector, type AccessOptions } from '../../../src/collectors/access/index.js';
import { DOMAIN_REQUESTS, DOMAIN_TRAFFIC_BYTES } from '../../../src/collectors/access/metrics.js';
import { lastSettledStart } from '../../../src/collectors/buckets.js';
import type { StatMetric } from '../../../src/simulator/stats.js';
import { Driver, HOUR, MIN, T0, useSim } from '../series/sim-driver.js';

const rig = useSim({ domains: 3 });
beforeEach(() => {
  rig.sim.readings.reset();
  rig.sim.readings.merge({ lateRevision: { afterMs: 10 * MIN, factor: 1.25 } });
});
const DELAY = 3 * MIN;
const COUNTERS: Array<[string, Record<string, string>, StatMetric]> = [
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'edge' }, 'bytesSent'],
  [DOMAIN_REQUESTS.name, {}, 'requests'],
];
const FIRST = lastSettledStart(T0, '1m', DELAY, 480) + MIN;

function driver(correct: boolean): Driver {
  const options: AccessOptions = {
    interval: '1m', delayMs: DELAY, maxBackfillMs: 6 * HOUR, timestamps: false, api: 'v2', summaryWindowMs: 30 * MIN,
    audit: { everyMs: 15 * MIN, lookbackMs: HOUR, correct },
  };
  return new Driver(rig, createAccessCollector(options), { domains: rig.sim.truth.domains(), packages: [] });
}

// 31 cycles a minute apart, T0 to T0+30m: audits at T0+15m and T0+30m (the first cycle starts the audit clock). The
// last audit re-reads what was counted up to T0+29m; the buckets that ended 10 minutes before it (starts up to
// T0+19m) had been revised by then.
const LAST_AUDIT = T0 + 30 * MIN;
const REVISED_TO = LAST_AUDIT - 10 * MIN;
const COUNTED_TO = lastSettledStart(LAST_AUDIT, '1m', DELAY, 480) + MIN;

describe('audit', () => {
  it('correct: true — every bucket seen revised is added, so the counters equal the upstream\'s final values', async () => {
    const d = driver(true);
    await d.cycles(31, MIN);
    expect(d.newestBucketEndMs).toBe(COUNTED_TO);
    const { truth } = rig.sim;
    for (const domain of truth.domains()) {
      for (const [family, labels, metric] of COUNTERS) {
        const want = truth.revisedDomainTotal(domain, metric, '1m', FIRST, REVISED_TO) + truth.domainTotal(domain, metric, REVISED_TO, COUNTED_TO);
        expect(d.counter(family, { domain, ...labels }), `${family} ${domain}`).toBe(want);
        // Not what the first reading gave: the audit made a difference.
        expect(want).toBeGreaterThan(truth.domainTotal(domain, metric, FIRST, COUNTED_TO));
      }
    }
    expect(d.audit.revised).toBeGreaterThan(0);
    expect(d.audit.match).toBeGreaterThan(0);
    expect(d.checks().late_revision).toBe(d.audit.revised);
    // The log's suggestion: a delay that reaches past the age of the revisions seen.
    const suggest = d.mismatches.find((m) => m.check === 'late_revision')?.suggest;
    expect(suggest).toMatch(/^\d+m$/);
    expect(Number(suggest?.slice(0, -1))).toBeGreaterThanOrEqual(10);
    // The suggested delay: the oldest age at which a revision was seen, so at least the 10 minutes of the revisions and
    // at most 10 minutes plus the audit's 15 minutes (an audit sees a revision up to `every` after it happened).
    expect(d.suggestedDelayMs).toBeGreaterThanOrEqual(10 * MIN);
    expect(d.suggestedDelayMs).toBeLessThanOrEqual(25 * MIN);
    expect((d.suggestedDelayMs ?? 0) % MIN).toBe(0);
    // Logged when it first differs from delay (the audit at T0+15m saw the first bucket counted, ended at T0-2m,
    // revised at 17m), and again when it moved by more than a bucket (at T0+30m the oldest revision newly seen was 24m old).
    const logged = d.logs.filter((l) => l.fields.suggested_delay !== undefined);
    expect(logged.map((l) => l.fields.suggested_delay)).toEqual(['17m', '24m']);
    expect(d.suggestedDelayMs).toBe(24 * MIN);
  });

  it('correct: false — the revisions are reported and the counters keep what was first counted', async () => {
    const d = driver(false);
    await d.cycles(31, MIN);
    const { truth } = rig.sim;
    for (const domain of truth.domains()) {
      for (const [family, labels, metric] of COUNTERS) {
        expect(d.counter(family, { domain, ...labels })).toBe(truth.domainTotal(domain, metric, FIRST, COUNTED_TO));
      }
    }
    expect(d.audit.revised).toBeGreaterThan(0);
    expect(d.checks().late_revision).toBe(d.audit.revised);
  });

  it('an upstream that does not revise: every audited bucket matches, nothing reported', async () => {
    rig.sim.readings.reset();
    const d = driver(true);
    await d.cycles(31, MIN);
    expect(d.audit.revised).toBe(0);
    expect(d.audit.match).toBeGreaterThan(0);
    expect(d.checks()).toEqual({});
    // Nothing seen revised: the suggestion is the delay in force, and nothing is logged about it.
    expect(d.suggestedDelayMs).toBe(DELAY);
    expect(d.logs.filter((l) => l.fields.suggested_delay !== undefined)).toEqual([]);
  });
});
