// The real daemon against an upstream that reads the document another way:
// /metrics counts the mismatch under its check (every check present, at 0,
// from the first scrape), the log says it once with the key to change, the
// exposition passes promtool, and every counter still equals the truth.
import { describe, expect, it } from 'vitest';
import { seriesKey } from '../../src/collectors/series/keys.js';
import { CONTRACT_CHECKS } from '../../src/collectors/contract/checks.js';
import { checkMetrics } from '../support/promtool.js';
import { MIN, expectClean, expectTruth, useRigs } from './fault-rig.js';

const rigs = useRigs();
const mismatches = (check: string) => seriesKey('edge_exporter_contract_mismatches_total', { check });
const audit = (collector: string, outcome: string) => seriesKey('edge_exporter_audit_buckets_total', { collector, outcome });

describe('the daemon on another reading of the document', () => {
  it('every reading off: every check at 0, the audit matches', async () => {
    const rig = await rigs({ audit: '{ every: 5m, lookback: 30m }' });
    for (let k = 0; k < 8; k++) expectClean(await rig.cycle(k === 0 ? 0 : MIN));
    const m = await rig.scrape();
    for (const check of CONTRACT_CHECKS) expect(m[mismatches(check)], check).toBe(0);
    expect(m[audit('access', 'match')]).toBeGreaterThan(0);
    expect(m[audit('access', 'revised')]).toBe(0);
    expectTruth(m, rig);
  });

  it('totals that disagree: counted under totals, one warning for it per collector, counters exact, promtool clean', async () => {
    const rig = await rigs({ readings: { totalsSkew: 1.2 } });
    for (let k = 0; k < 4; k++) expectClean(await rig.cycle(k === 0 ? 0 : MIN));
    const m = await rig.scrape();
    expect(m[mismatches('totals')]).toBeGreaterThan(0);
    const others = CONTRACT_CHECKS.filter((c) => c !== 'totals');
    expect(others.map((c) => m[mismatches(c)])).toEqual(others.map(() => 0));
    expectTruth(m, rig);
    const warned = rig.log.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.check === 'totals');
    expect(warned.map((l) => l.collector).sort()).toEqual(['access', 'usage']);
    expect(warned.every((l) => typeof l.seen === 'string' && typeof l.assumed === 'string' && l.operation !== undefined)).toBe(true);
    const res = await fetch(`${rig.url}/metrics`);
    const lint = await checkMetrics(await res.text());
    expect(lint.ok, lint.output).toBe(true);
  });
});
