// The CC-attack collector against the simulator: the attack counter equals
// the settled truth, the gauges equal what the simulator answers for the
// summary window, and the request count is the minimum.
import { describe, expect, it } from 'vitest';
import { alignDown } from '../../../src/collectors/buckets.js';
import { createCcAttackCollector, type CcAttackOptions } from '../../../src/collectors/cc-attack/index.js';
import {
  CC_ATTACK_PEAK_REQUESTS, CC_ATTACK_REQUESTS, CC_ATTACKED_DOMAINS, CC_TOP_DOMAIN_ATTACK_REQUESTS, CC_TOP_USER_AGENT_ATTACK_REQUESTS,
} from '../../../src/collectors/cc-attack/metrics.js';
import { seriesKey } from '../../../src/collectors/series/index.js';
import type { ReadClient } from '../../../src/api/index.js';
import { Driver, HOUR, MIN, T0, useSim } from '../series/sim-driver.js';

const rig = useSim();
const OPTIONS: CcAttackOptions = { interval: '1m', delayMs: 3 * MIN, maxBackfillMs: 12 * HOUR, timestamps: false, perDomain: false, summaryWindowMs: 6 * HOUR };

function driver(options: Partial<CcAttackOptions> = {}, enabled?: (f: string) => boolean): Driver {
  return new Driver(rig, createCcAttackCollector({ ...OPTIONS, ...options }), { domains: rig.sim.truth.domains(), packages: [] }, enabled ? { enabled } : {});
}

describe('cc-attack collector against the simulator', () => {
  it('counts attack requests exactly across a back-filled gap, one request per cycle', async () => {
    const d = driver({ maxBucketsPerRequest: 130 });
    await d.cycles(3, 8 * HOUR);
    // Cycles at T0, T0+8h, T0+16h: counted T0-3m .. T0+16h-4m.
    const total = rig.sim.truth.total('ccAttacks', T0 - 3 * MIN, T0 + 16 * HOUR - 3 * MIN);
    expect(total).toBeGreaterThan(0);
    expect(d.counter(CC_ATTACK_REQUESTS.name, {})).toBe(total);
    // Of each 8h gap, the 123 buckets before the 6h window go in one back-fill chunk (at most 130), beside the main request.
    expect(d.requests).toEqual([{ describeL7CCAttack: 1 }, { describeL7CCAttack: 2 }, { describeL7CCAttack: 2 }]);
  });

  it('gauges: attack_detail and the rankings over the summary window', async () => {
    const d = driver({ timestamps: true });
    rig.sim.clock.set(T0 + 7 * HOUR + 30_000);
    await d.cycle();
    const now = rig.sim.clock.now();
    const { truth } = rig.sim;
    const starts: number[] = [];
    for (let s = alignDown('1m', now - 6 * HOUR, 480); s <= now; s += MIN) starts.push(s);
    const reported = (domain: string, s: number) => truth.reported(domain, 'ccAttacks', '1m', s, now) ?? 0;
    const perDomain = truth.domains().map((domain) => [domain, starts.reduce((a, s) => a + reported(domain, s), 0)] as const);
    const perBucket = starts.map((s) => truth.domains().reduce((a, dom) => a + reported(dom, s), 0));
    const attacked = perDomain.filter(([, v]) => v > 0);
    expect(attacked.length).toBeGreaterThan(0);
    const stamp = alignDown('1m', now, 480);
    expect(d.gauge(CC_ATTACKED_DOMAINS.name, {})).toEqual({ name: CC_ATTACKED_DOMAINS.name, labels: {}, value: attacked.length, timestampMs: stamp, bucketStartMs: stamp });
    expect(d.gauge(CC_ATTACK_PEAK_REQUESTS.name, {})?.value).toBe(Math.max(...perBucket));
    const ranking = [...attacked].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)).slice(0, 10);
    expect(d.gauges.get(CC_TOP_DOMAIN_ATTACK_REQUESTS.name)?.map((s) => [s.labels.domain, s.value])).toEqual(ranking);
    // The user-agent split covers every attack request of the window.
    const agents = d.gauges.get(CC_TOP_USER_AGENT_ATTACK_REQUESTS.name) ?? [];
    expect(agents.reduce((a, s) => a + s.value, 0)).toBe(perDomain.reduce((a, [, v]) => a + v, 0));
  });

  it('per domain: one counter per domain, one trend request per domain plus one for the gauges', async () => {
    const d = driver({ perDomain: true });
    await d.cycles(3, 4 * HOUR);
    const n = rig.sim.truth.domains().length;
    for (const domain of rig.sim.truth.domains()) {
      expect(d.counter(CC_ATTACK_REQUESTS.name, { domain })).toBe(rig.sim.truth.domainTotal(domain, 'ccAttacks', T0 - 3 * MIN, T0 + 8 * HOUR - 3 * MIN));
    }
    // First cycle: the counters only start (no trend request), the gauges are asked.
    expect(d.requests).toEqual([{ describeL7CCAttack: 1 }, { describeL7CCAttack: 1 + n }, { describeL7CCAttack: 1 + n }]);
  });

  it.each([true, false])('sharded per domain: counters for its own domains; account gauges over every domain only when accountGauges=%s', async (accountGauges) => {
    const all = rig.sim.truth.domains();
    const own = all.filter((_, i) => i % 2 === 0);
    const asked: string[][] = [];
    const client: ReadClient = {
      ...rig.client,
      describeL7CCAttack: (request, options) => {
        asked.push([...(request.domains ?? [])].sort());
        return rig.client.describeL7CCAttack(request, options);
      },
    };
    const collector = createCcAttackCollector({ ...OPTIONS, perDomain: true, accountGauges });
    const d = new Driver(rig, collector, { domains: own, packages: [], all: { domains: all, packages: [] } }, { client });
    await d.cycles(2, 4 * HOUR);
    for (const domain of own) {
      expect(d.counter(CC_ATTACK_REQUESTS.name, { domain })).toBe(rig.sim.truth.domainTotal(domain, 'ccAttacks', T0 - 3 * MIN, T0 + 4 * HOUR - 3 * MIN));
    }
    expect([...d.counters.keys()].filter((k) => !own.some((domain) => k === seriesKey(CC_ATTACK_REQUESTS.name, { domain })))).toEqual([]);
    // Single-domain trend requests for its own domains; the one account-wide request only with the gauges.
    const accountWide = asked.filter((domains) => domains.length > 1);
    expect(accountWide).toEqual(accountGauges ? [[...all].sort(), [...all].sort()] : []);
    expect(asked.filter((domains) => domains.length === 1).flat().every((domain) => own.includes(domain))).toBe(true);
    expect(d.gauges.has(CC_ATTACKED_DOMAINS.name)).toBe(accountGauges);
    expect(collector.families.some((f) => f.name === CC_ATTACKED_DOMAINS.name)).toBe(accountGauges);
  });

  it('unknown item shapes are logged at debug and skipped, never thrown; the counter waits, and a cycle with nothing readable fails', async () => {
    const client: ReadClient = {
      ...rig.client,
      describeL7CCAttack: () => Promise.resolve({ code: 200, msg: 'ok', data: [{ metricName: 'ccPolicyTrend', data: { weird: 1 } }, 'text', { metricName: 'x' }] }),
    };
    const d = new Driver(rig, createCcAttackCollector(OPTIONS), { domains: rig.sim.truth.domains(), packages: [] }, { client });
    await d.cycle();
    rig.sim.clock.advance(MIN);
    // Buckets were due and no answer carried them: the run fails (collector down) rather than lag silently.
    await expect(d.cycle()).rejects.toMatchObject({ code: 'EDGE_NO_DATA' });
    expect(d.counter(CC_ATTACK_REQUESTS.name, {})).toBe(0);
    expect(d.watermarks).toEqual({ [seriesKey(CC_ATTACK_REQUESTS.name, {})]: T0 - 4 * MIN });
    expect(d.gauges.get(CC_ATTACKED_DOMAINS.name)).toEqual([]);
    const skipped = d.logs.filter((l) => l.msg === 'unrecognised CC attack items skipped');
    expect(skipped).toHaveLength(2);
    expect(skipped[0]).toMatchObject({ level: 'debug', fields: { collector: 'cc-attack', issues: [{ metricName: 'ccPolicyTrend' }, {}, { metricName: 'x' }] } });
  });

  it('denied gauges drop their metricNames; all denied sends nothing', async () => {
    const counterOnly = driver({}, (f) => f === CC_ATTACK_REQUESTS.name);
    await counterOnly.cycles(2, MIN);
    // First sight needs no request without gauges.
    expect(counterOnly.requests).toEqual([{}, { describeL7CCAttack: 1 }]);
    const none = driver({}, () => false);
    await none.cycles(2, MIN);
    expect(none.requests).toEqual([{}, {}]);
  });
});
