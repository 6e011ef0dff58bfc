// The short soak: the same driver as bench/soak.ts (bench/lib/soak-driver.ts),
// in process, over a few simulated hours with every fault kind injected at
// seeded random steps. At the end every access, usage, CC attack, WAF trend
// and WAF denied counter equals the simulator's truth exactly, and every deny
// event of the forwarded range reached the OTLP receiver exactly once. The
// memory trend is the benchmark's job (docs/benchmarks.md).
import { beforeAll, describe, expect, it } from 'vitest';
import { runSoak, type SoakResult } from '../../bench/lib/soak-driver.js';
import { inProcessDaemon } from '../../bench/lib/soak-daemon.js';
import { FAULT_KINDS } from '../../bench/lib/soak-faults.js';

/** Two simulated hours: seed 2 deals every fault kind in them, most twice. */
const STEPS = 120;
const DOMAINS = 10;

describe('short soak: random faults over simulated hours', () => {
  let result: SoakResult;

  beforeAll(async () => {
    result = await runSoak({ seed: 2, domains: DOMAINS, steps: STEPS, faultRate: 0.15, open: inProcessDaemon });
  }, 120_000);

  it('injected every fault kind, and they bit', () => {
    for (const kind of FAULT_KINDS) expect({ kind, injected: result.faults[kind] > 0 }).toEqual({ kind, injected: true });
    // The faults bit: runs failed, requests came back partial, the receiver refused exports.
    expect(Object.values(result.runs).some((t) => t.failed > 0)).toBe(true);
    expect(result.refusedExports).toBeGreaterThan(0);
    expect(result.scrapes).toEqual({ ok: STEPS, failed: 0 });
  });

  it('every counter equals the truth of the buckets counted', () => {
    // access (8 per domain) + usage (2 per package) + CC attack + 6 WAF trend series at least.
    expect(result.counters.checked).toBeGreaterThan(DOMAINS * 8 + 7);
    expect(result.counters.mismatches).toEqual([]);
  });

  it('every deny event of the forwarded range arrived exactly once, and nothing else', () => {
    const { waf } = result;
    expect(waf.expected).toBeGreaterThan(100);
    expect(waf.missing).toEqual([]);
    expect(waf.duplicates).toBe(0);
    expect(waf.passEvents).toBe(0);
    expect(waf.unknown).toEqual([]);
    expect(waf.received).toBe(waf.expected);
  });
});
