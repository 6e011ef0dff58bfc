import { describe, expect, it } from 'vitest';
import { platformClock } from '../../src/api/time.js';
import { createWorld } from '../../src/simulator/world.js';
import { DAY, T0 } from './helpers.js';

const tz = platformClock('+08:00');
const build = (seed: number, domains = 20) => createWorld({ seed, domains, now: T0, tz });

describe('world', () => {
  it('is identical for the same seed and differs for another', () => {
    expect(JSON.stringify(build(7))).toBe(JSON.stringify(build(7)));
    expect(JSON.stringify(build(7))).not.toBe(JSON.stringify(build(8)));
  });

  it.each([1, 5, 20, 60])('builds %d domains with unique ids and names', (n) => {
    const w = build(3, n);
    expect(w.domains).toHaveLength(n);
    expect(new Set(w.domains.map((d) => d.id)).size).toBe(n);
    expect(new Set(w.domains.map((d) => d.domainName)).size).toBe(n);
    for (const d of w.domains) {
      expect(d.domainName).toMatch(/^[a-z]+\.site-\d{3}\.example\.com$/);
      expect(w.l7Packages.map((p) => p.alias)).toContain(d.doid);
    }
  });

  it('covers every domain state and both SSL states', () => {
    const w = build(1);
    expect(new Set(w.domains.map((d) => d.isActive))).toEqual(new Set(['0', '1', '2']));
    expect(new Set(w.domains.map((d) => d.sslsupport))).toEqual(new Set(['0', '1']));
    for (const d of w.domains) expect(d.certEndTime === null).toBe(d.sslsupport === '0');
  });

  it('covers every layer-4 activate code, with consistent rules', () => {
    const w = build(1);
    expect(new Set(w.l4Packages.map((p) => p.activate))).toEqual(new Set([0, -1, 1, 3, 4]));
    expect(new Set(w.l4Packages.map((p) => p.isTest))).toEqual(new Set([0, 1]));
    expect(w.l4Packages.some((p) => p.mday === null)).toBe(true);
    for (const p of w.l4Packages) {
      expect(p.rules.length).toBeLessThanOrEqual(p.totalPort);
      expect(new Set(p.rules.map((r) => r.hyPort)).size).toBe(p.rules.length);
      for (const r of p.rules) expect(p.nodes.map(([, id]) => id)).toContain(r.node);
    }
    const ruleIds = w.l4Packages.flatMap((p) => p.rules.map((r) => r.ruleId));
    expect(new Set(ruleIds).size).toBe(ruleIds.length);
    expect(w.nextRuleId).toBeGreaterThan(Math.max(...ruleIds));
  });

  it('spreads certificate expiry over expired, 7 days, 30 days and later, with every status', () => {
    const w = build(1);
    const left = w.certificates.map((c) => c.endTime - T0);
    expect(left.some((ms) => ms < 0)).toBe(true);
    expect(left.some((ms) => ms > 0 && ms <= 7 * DAY)).toBe(true);
    expect(left.some((ms) => ms > 7 * DAY && ms <= 30 * DAY)).toBe(true);
    expect(left.some((ms) => ms > 30 * DAY)).toBe(true);
    expect(new Set(w.certificates.map((c) => c.status))).toEqual(new Set([0, 1, 2, 3, 4]));
    for (const c of w.certificates) expect(c.createTime).toBeLessThan(T0);
  });

  it('holds cache records of all three types in the last week', () => {
    const w = build(1);
    expect(new Set(w.cacheRecords.map((r) => r.type))).toEqual(new Set([1, 2, 3]));
    for (const r of w.cacheRecords) {
      expect(r.ctime * 1000).toBeLessThanOrEqual(T0);
      expect(r.ctime * 1000).toBeGreaterThan(T0 - 8 * DAY);
      expect(r.success).toBeLessThanOrEqual(r.total);
    }
    expect(new Set(w.cacheRecords.map((r) => r.id)).size).toBe(w.cacheRecords.length);
  });
});
