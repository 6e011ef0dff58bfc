// Points the upstream answers negative are refused, counted by reason in
// edge_exporter_points_rejected_total and logged once per series and hour
// (issue 13: they used to be counted and then discarded). The simulator
// serves every point of one series negative (negativeSeries); the ground
// truth of what was served is one point per bucket the series' watermark
// passed. The hour is the simulator's clock, the one the job is given.
import { describe, expect, it } from 'vitest';
import { platformClock } from '../../../src/api/index.js';
import { DOMAIN_REQUESTS, DOMAIN_TRAFFIC_BYTES } from '../../../src/collectors/access/metrics.js';
import { createAccessCollector } from '../../../src/collectors/access/index.js';
import { MetricFilter } from '../../../src/collectors/filter.js';
import { CounterLedger } from '../../../src/counters/ledger.js';
import { sampleJobs, type CollectorJob } from '../../../src/engine/sample-job/job.js';
import { seriesKey } from '../../../src/collectors/series/index.js';
import type { TargetSource } from '../../../src/collectors/targets/discovery.js';
import { FamilyStore } from '../../../src/exporters/prometheus/family-store.js';
import { SelfMetrics } from '../../../src/exporters/prometheus/self-metrics.js';
import { MemoryStore, RecordingSink, recordingLogger, type LogEntry } from '../../engine/fakes.js';
import { HOUR, MIN, useSim } from './sim-driver.js';

const rig = useSim();

function setup() {
  const domains = rig.sim.truth.domains();
  const targets: TargetSource = { current: () => ({ domains, packages: [] }), refreshIfDue: async () => undefined, unavailable: () => undefined };
  const ledger = new CounterLedger();
  const logs: LogEntry[] = [];
  const collector = createAccessCollector({ interval: '1m', delayMs: 3 * MIN, maxBackfillMs: 6 * HOUR, timestamps: false, api: 'v2', summaryWindowMs: 30 * MIN });
  const [job] = sampleJobs([{ collector, schedule: { kind: 'interval', everyMs: MIN } }], {
    client: rig.client, tz: platformClock('+08:00'), sink: new RecordingSink(), ledger, store: new MemoryStore(), targets,
    filter: new MetricFilter({ deny: [] }), logger: recordingLogger(logs), clock: { now: () => rig.sim.clock.now() },
  }) as [CollectorJob];
  const self = new SelfMetrics({ families: new FamilyStore({ maxSeriesPerFamily: 1000 }), version: 't', processMetrics: false });
  const requestsKey = (domain: string): string => seriesKey(DOMAIN_REQUESTS.name, { domain });
  /** One cycle at the simulator's time, reported to the self-metrics; the points it refused by the watermarks' ground truth. */
  const cycle = async (): Promise<number> => {
    const before = ledger.watermarks('access');
    const report = await job.run(new AbortController().signal);
    expect(report.ok).toBe(true);
    self.onRun(report);
    const after = ledger.watermarks('access');
    return domains.reduce((n, d) => n + ((after[requestsKey(d)] ?? 0) - (before[requestsKey(d)] ?? 0)) / MIN, 0);
  };
  const metric = async (reason: string): Promise<number | undefined> => {
    const line = (await self.render('text')).split('\n').find((l) => l.startsWith(`edge_exporter_points_rejected_total{collector="access",reason="${reason}"} `));
    return line === undefined ? undefined : Number(line.split(' ').at(-1));
  };
  const refusedLines = (): Array<Record<string, unknown>> =>
    logs.filter((e) => e.level === 'warn' && e.msg?.startsWith('points refused')).map((e) => ({ ...e.bindings, ...e.obj }));
  return { domains, ledger, cycle, metric, refusedLines, requestsKey };
}

describe('refused points against the simulator', () => {
  it('counts every negative point served, by reason, and logs each series once an hour', async () => {
    const t = setup();
    await t.cycle(); // first sight: the series start at 0, nothing read yet
    expect(await t.metric('negative')).toBe(0);
    expect(await t.metric('non_finite')).toBe(0);
    rig.sim.faults.set([{ negativeSeries: 'requestCounter', operations: ['describeL7DataV2'] }]);

    rig.sim.clock.set(rig.sim.clock.now() + 5 * MIN);
    const first = await t.cycle();
    expect(first).toBe(5 * t.domains.length); // five buckets per domain, each one point served negative
    expect(await t.metric('negative')).toBe(first);
    expect(await t.metric('non_finite')).toBe(0);
    const lines = t.refusedLines();
    expect(lines.map((l) => l.series).sort()).toEqual(t.domains.map(t.requestsKey).sort());
    for (const l of lines) expect(l).toMatchObject({ collector: 'access', reason: 'negative', count: 5 });

    // Within the hour: counted, not logged again.
    rig.sim.clock.set(rig.sim.clock.now() + 30 * MIN);
    const second = await t.cycle();
    expect(second).toBe(30 * t.domains.length);
    expect(await t.metric('negative')).toBe(first + second);
    expect(t.refusedLines()).toHaveLength(t.domains.length);

    // An hour after the first lines: logged again, once per series.
    rig.sim.clock.set(rig.sim.clock.now() + 30 * MIN);
    const third = await t.cycle();
    expect(await t.metric('negative')).toBe(first + second + third);
    const again = t.refusedLines().slice(t.domains.length);
    expect(again.map((l) => l.series).sort()).toEqual(t.domains.map(t.requestsKey).sort());
    for (const l of again) expect(l).toMatchObject({ reason: 'negative', count: 30 });

    // Nothing refused was counted; the series served as is were.
    for (const s of t.ledger.saved('access')) {
      if (s.name === DOMAIN_REQUESTS.name) expect(s.value).toBe(0);
    }
    const traffic = [...t.ledger.saved('access')].filter((s) => s.name === DOMAIN_TRAFFIC_BYTES.name);
    expect(traffic.reduce((n, s) => n + s.value, 0)).toBeGreaterThan(0);
  });
});
