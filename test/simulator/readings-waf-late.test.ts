// The wafLateIngest reading: a fixed share of the deny records reaches the
// log late. Both metrics of the log query come from one pass, so the late
// records must be missing from logs and logTread alike until their time, and
// the ground truth (truth.wafVisibility, wafEvents' visibleAt) must say so.
import { describe, expect, it } from 'vitest';
import type { WafEvent, WafRecord } from '../../src/simulator/waf.js';
import { HOUR, items, MIN, params, type Point, sumPoints, T0, useReadingsSim } from './helpers.js';

const rig = useReadingsSim({ domains: 6 });
const DENY = { searchHeader: { action: 'deny' } };
const isDeny = (e: WafEvent) => e.record.response.httpCode === 417;

async function query(from: number, to: number) {
  const res = await rig.h.call('describeLogV2', {
    action: [{ metricName: 'logs', pageSize: 10_000 }, { metricName: 'logTread' }], otherFilter: [], params: params(from, to), ...DENY,
  });
  const [logs, trend] = items(res);
  return { ids: ((logs?.list ?? []) as WafRecord[]).map((r) => r.requestId).sort(), points: trend?.objectArrayList as Point[] };
}

const lateOf = (from: number, to: number) => rig.h.sim.truth.wafEvents(from, to).filter((e) => rig.h.sim.truth.wafVisibility(e).late);

describe('reading wafLateIngest', () => {
  it('hides a late record from logs and logTread alike until time + lateness, then shows it in both', async () => {
    rig.h.sim.readings.merge({ wafLateIngest: { fraction: 0.5, minMs: 25 * MIN, maxMs: 25 * MIN } });
    const from = T0 - 30 * MIN;
    const to = T0 - 20 * MIN;
    const late = lateOf(from, to);
    const hidden = late.filter((e) => e.time + 25 * MIN > T0);
    const shown = late.filter((e) => e.time + 25 * MIN <= T0);
    expect(hidden.length).toBeGreaterThan(0);
    expect(shown.length).toBeGreaterThan(0);
    for (const e of late) expect(rig.h.sim.truth.wafVisibility(e)).toEqual({ visibleFrom: e.time + 25 * MIN, late: true });

    const at = async (now: number) => {
      rig.h.sim.clock.set(now);
      const truth = rig.h.sim.truth.wafEvents(from, to, { visibleAt: now }).filter(isDeny).map((e) => e.record.requestId).sort();
      return { truth, served: await query(from, to) };
    };
    const before = await at(T0);
    expect(before.served.ids).toEqual(before.truth);
    expect(sumPoints(before.served.points)).toBe(before.truth.length);
    for (const e of hidden) expect(before.served.ids).not.toContain(e.record.requestId);
    for (const e of shown) expect(before.served.ids).toContain(e.record.requestId);
    // The usual lag still applies to the others: every one of them is in (they are over 90 s old).
    expect(before.truth.length).toBe(rig.h.sim.truth.wafEvents(from, to).filter(isDeny).length - hidden.length);

    const after = await at(T0 + 5 * MIN);
    const allDeny = rig.h.sim.truth.wafEvents(from, to).filter(isDeny).map((e) => e.record.requestId).sort();
    expect(after.served.ids).toEqual(allDeny);
    expect(after.truth).toEqual(allDeny);
    expect(sumPoints(after.served.points)).toBe(allDeny.length);
  });

  it('chooses about the fraction asked of the deny records only, the same ones whatever the query, a larger fraction adding to them', () => {
    const from = T0 - 24 * HOUR;
    rig.h.sim.readings.merge({ wafLateIngest: { fraction: 0.3, minMs: 0, maxMs: 10 * MIN } });
    const events = rig.h.sim.truth.wafEvents(from, T0);
    const denies = events.filter(isDeny);
    const late = lateOf(from, T0);
    expect(denies.length).toBeGreaterThan(3000);
    expect(late.every(isDeny)).toBe(true);
    expect(late.length / denies.length).toBeGreaterThan(0.28);
    expect(late.length / denies.length).toBeLessThan(0.32);
    const ids = (list: readonly WafEvent[]) => list.map((e) => e.record.requestId);
    // Asked in two halves, the same records are late.
    expect([...ids(lateOf(from, T0 - 12 * HOUR)), ...ids(lateOf(T0 - 12 * HOUR, T0))].sort()).toEqual(ids(late).sort());
    // Lateness is spread over [minMs, maxMs], both ends included.
    const lateness = () => lateOf(from, T0).map((e) => rig.h.sim.truth.wafVisibility(e).visibleFrom - e.time);
    expect(Math.min(...lateness())).toBeGreaterThanOrEqual(0);
    expect(Math.min(...lateness())).toBeLessThan(6_000);
    expect(Math.max(...lateness())).toBeLessThanOrEqual(10 * MIN);
    expect(Math.max(...lateness())).toBeGreaterThan(10 * MIN - 6_000);
    rig.h.sim.readings.merge({ wafLateIngest: { fraction: 0.3, minMs: 1000, maxMs: 1002 } });
    expect(new Set(lateness())).toEqual(new Set([1000, 1001, 1002]));
    expect(ids(lateOf(from, T0))).toEqual(ids(late));
    rig.h.sim.readings.merge({ wafLateIngest: { fraction: 0.6, minMs: 0, maxMs: 10 * MIN } });
    const more = new Set(ids(lateOf(from, T0)));
    expect(ids(late).every((id) => more.has(id))).toBe(true);
    expect(more.size / denies.length).toBeGreaterThan(0.58);
    expect(more.size / denies.length).toBeLessThan(0.62);
  });

  it('leaves every record to its usual lag when off', () => {
    const events = rig.h.sim.truth.wafEvents(T0 - HOUR, T0);
    expect(events.map((e) => rig.h.sim.truth.wafVisibility(e))).toEqual(events.map((e) => ({ visibleFrom: e.time + e.lagMs, late: false })));
  });
});
