// The WAF trend collector against the simulator: each action/severity
// counter equals the simulator's WAF events in exactly the buckets counted,
// one request per series and cycle, none when nothing settled.
import { describe, expect, it } from 'vitest';
import { createWafTrendCollector, type WafTrendOptions } from '../../../src/collectors/waf-trend/index.js';
import { SEVERITY_LABEL, WAF_EVENTS } from '../../../src/collectors/waf-trend/metrics.js';
import { Driver, HOUR, MIN, T0, useSim } from '../series/sim-driver.js';

const rig = useSim({ domains: 4 });
// delay 3 min covers the simulator's WAF ingest lag (up to 90 s).
const OPTIONS: WafTrendOptions = { interval: '1m', delayMs: 3 * MIN, maxBackfillMs: 12 * HOUR, timestamps: false };
const DENY_STATUS = 417;

function driver(options: Partial<WafTrendOptions> = {}, enabled?: (f: string) => boolean): Driver {
  return new Driver(rig, createWafTrendCollector({ ...OPTIONS, ...options }), { domains: rig.sim.truth.domains(), packages: [] }, enabled ? { enabled } : {});
}

function expectEvents(d: Driver, from: number, to: number): void {
  const events = rig.sim.truth.wafEvents(from, to, { domains: rig.sim.truth.domains() });
  expect(events.length).toBeGreaterThan(0);
  let sum = 0;
  for (const action of ['deny', 'pass'] as const) {
    for (const [level, severity] of Object.entries(SEVERITY_LABEL)) {
      const want = events.filter((e) => (e.record.response.httpCode === DENY_STATUS) === (action === 'deny') && e.record.severityLevel === level).length;
      expect(d.counter(WAF_EVENTS.name, { action, severity }), `${action}/${severity}`).toBe(want);
      sum += want;
    }
  }
  expect(sum).toBe(events.length);
}

describe('waf-trend collector against the simulator', () => {
  it('counts the events of each settled minute once; six requests a cycle, none on first sight', async () => {
    const d = driver();
    await d.cycles(6, MIN);
    expectEvents(d, T0 - 3 * MIN, T0 + 2 * MIN);
    expect(d.requests).toEqual([{}, ...Array.from({ length: 5 }, () => ({ describeLogV2: 6 }))]);
  });

  it('back-fills a downtime gap exactly, in ranges the upstream answers with 1-minute buckets', async () => {
    const d = driver();
    await d.cycles(2, 8 * HOUR);
    // 480 buckets after the watermark: chunks of at most 360 (6 h) -> 2 requests per series.
    expectEvents(d, T0 - 3 * MIN, T0 + 8 * HOUR - 3 * MIN);
    expect(d.requests[1]).toEqual({ describeLogV2: 12 });
    expect(d.logs.filter((l) => l.level === 'info' && l.msg === 'back-filled')).toHaveLength(12);
  });

  it.each<[WafTrendOptions['interval'], number]>([['5m', 5 * MIN], ['1h', HOUR]])('%s buckets: the finer upstream buckets add up exactly', async (interval, size) => {
    const d = driver({ interval });
    await d.cycles(3, size);
    // Three cycles, size apart, from T0: the first bucket counted starts right after the first last-settled one.
    const first = interval === '5m' ? T0 - 5 * MIN : T0 - HOUR;
    expectEvents(d, first, first + 2 * size);
    expect(d.requests).toEqual([{}, { describeLogV2: 6 }, { describeLogV2: 6 }]);
  });

  it('continues exactly after a restart; denied or no domains costs no request', async () => {
    const before = driver();
    await before.cycles(2, MIN);
    const after = before.restart(createWafTrendCollector(OPTIONS));
    await after.cycles(2, MIN);
    expectEvents(after, T0 - 3 * MIN, T0);
    const denied = driver({}, () => false);
    await denied.cycles(2, MIN);
    expect(denied.requests).toEqual([{}, {}]);
  });
});
