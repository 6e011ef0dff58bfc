// The WAF delivery audit through the whole daemon (in-process, on the
// simulator's fixed clock, to a real OTLP receiver, scraped over HTTP), with
// the defaults but for the upstream: a third of its deny records are ingested
// 15 minutes late (the wafLateIngest reading, logs and logTread alike), past
// delay + overlap (7 minutes). Every deny event whose time falls in the run
// reaches the receiver exactly once, the late ones through the audit's
// recoveries: edge_exporter_waf_events_recovered_total counts exactly them,
// the lateness histogram times them, and edge_exporter_waf_events_missing
// comes back to 0. The same holds for an account split over two shards.
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { labelsOf, readExposition } from '../support/exposition-reader.js';
import { startWafDaemon, stopWafDaemon, type WafDaemon } from '../support/waf-daemon.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
const LATE = 15 * MIN;
const WAF = 'interval: 30s, start_from: 20m, page_size: 100';
const READINGS = { wafLateIngest: { fraction: 1 / 3, minMs: LATE, maxMs: LATE } };

let running: WafDaemon[] = [];
afterEach(async () => {
  // Shards share the first one's simulator and receiver: it closes them, last.
  for (const d of running.reverse()) await stopWafDaemon(d);
  running = [];
});

/** A daemon's self-metric, summed over its series. */
async function metric(d: WafDaemon, name: string, where: (labels: Record<string, string>) => boolean = () => true): Promise<number> {
  const families = readExposition(await (await fetch(`${d.base}/metrics`)).text(), 'text');
  return families.flatMap((f) => f.samples).filter((s) => s.name === name && where(labelsOf(s))).reduce((n, s) => n + Number(s.value), 0);
}

function denyEvents(sim: Simulator, from: number, to: number): Array<{ uid: string; late: boolean; visibleFrom: number }> {
  return sim.truth.wafEvents(from, to).filter((e) => e.record.response.httpCode === 417)
    .map((e) => ({ uid: e.record.requestId, ...sim.truth.wafVisibility(e) }));
}

/** Polls every daemon each 30 s of simulated time for `minutes`. */
async function runFor(daemons: readonly WafDaemon[], minutes: number): Promise<void> {
  const clock = daemons[0]?.clock;
  if (!clock) throw new Error('no daemon');
  for (let i = 0; i < minutes * 2; i++) {
    for (const d of daemons) expect(await d.daemon.forwardOnce()).toMatchObject({ ok: true });
    clock.advance(MIN / 2);
  }
}

/** Every deny event of the run, late ones included, reached the receiver once; returns what it received. */
function everyEventOnce(d: WafDaemon): Set<string> {
  const { sim, receiver, clock } = d;
  // From start_from before the first poll; up to where every late record was ingested, its bucket settled and checked.
  const events = denyEvents(sim, T0 - 20 * MIN, clock.now() - LATE - 10 * MIN);
  expect(events.length).toBeGreaterThan(300);
  expect(events.filter((e) => e.late).length).toBeGreaterThan(80);
  const received = receiver.uids();
  const unique = new Set(received);
  expect(received.length).toBe(unique.size);
  expect(events.filter((e) => !unique.has(e.uid))).toEqual([]);
  return unique;
}

async function checkRun(daemons: readonly WafDaemon[]): Promise<void> {
  const first = daemons[0];
  if (!first) throw new Error('no daemon');
  const { sim, clock } = first;
  const now = clock.now();
  const unique = everyEventOnce(first);
  const received = [...unique];
  // Late records reach the receiver through the audit alone (windows read them before they were ingested), all of them and
  // no other; but for those ingested by the first poll, when the backlog's windows read them.
  const everyLate = new Set(denyEvents(sim, T0 - 20 * MIN, now).filter((e) => e.late && e.visibleFrom > T0).map((e) => e.uid));
  const lateDelivered = received.filter((uid) => everyLate.has(uid)).length;
  let recovered = 0;
  let timed = 0;
  let forwarded = 0;
  let denied = 0;
  for (const d of daemons) {
    recovered += await metric(d, 'edge_exporter_waf_events_recovered_total');
    timed += await metric(d, 'edge_exporter_waf_ingest_lateness_seconds_count');
    forwarded += await metric(d, 'edge_exporter_waf_events_forwarded_total');
    denied += await metric(d, 'edge_waf_denied_requests_total');
    expect(await metric(d, 'edge_exporter_waf_events_missing')).toBe(0);
    expect(await metric(d, 'edge_exporter_waf_audit_buckets_total', (l) => l.outcome === 'short')).toBeGreaterThan(0);
    expect(await metric(d, 'edge_exporter_waf_audit_buckets_total', (l) => l.outcome === 'unreconciled')).toBe(0);
  }
  expect(recovered).toBe(lateDelivered);
  expect(timed).toBe(recovered);
  expect(forwarded).toBe(unique.size);
  expect(denied).toBe(unique.size);
}

describe('the WAF delivery audit in the daemon', () => {
  it('a third of the deny records ingested 15 minutes late: every deny event once, the late ones recovered and counted', async () => {
    const d = await startWafDaemon({ seed: 11, start: T0, wafEvents: WAF, readings: READINGS });
    running.push(d);
    await runFor([d], 50);
    await checkRun([d]);
    // Their lateness: about 15 minutes, the reading's, up to a check and a minute's bucket later.
    const sum = await metric(d, 'edge_exporter_waf_ingest_lateness_seconds_sum');
    const count = await metric(d, 'edge_exporter_waf_ingest_lateness_seconds_count');
    expect(sum / count).toBeGreaterThanOrEqual(LATE / 1000);
    expect(sum / count).toBeLessThanOrEqual(LATE / 1000 + 180);
  }, 120_000);

  it('the same over two shards: each audits its own domains, together every deny event once', async () => {
    const a = await startWafDaemon({ seed: 12, start: T0, wafEvents: WAF, readings: READINGS, extra: ['shard: { index: 0, count: 2 }'] });
    running.push(a);
    const b = await startWafDaemon({ seed: 12, start: T0, wafEvents: WAF, extra: ['shard: { index: 1, count: 2 }'], beside: a });
    running.push(b);
    await runFor([a, b], 50);
    await checkRun([a, b]);
    for (const d of [a, b]) expect(await metric(d, 'edge_exporter_waf_events_recovered_total')).toBeGreaterThan(0);
  }, 120_000);
});

describe('waf_events.overlap: auto', () => {
  it('settles near the upstream\'s lateness, and then the final pass reads the late records: recoveries stop', async () => {
    const d = await startWafDaemon({ seed: 13, start: T0, wafEvents: `${WAF}, overlap: auto`, readings: READINGS });
    running.push(d);
    await runFor([d], 40);
    const suggested = await metric(d, 'edge_exporter_waf_suggested_overlap_seconds');
    // Found 15 minutes late at the least, up to a check and a bucket later; less the delay (2m).
    expect(suggested).toBeGreaterThanOrEqual((LATE - 2 * MIN) / 1000);
    expect(suggested).toBeLessThanOrEqual((LATE - 2 * MIN + 3 * MIN) / 1000);
    const recoveredThen = await metric(d, 'edge_exporter_waf_events_recovered_total');
    expect(recoveredThen).toBeGreaterThan(0);
    const received = d.receiver.uids().length;
    await runFor([d], 40);
    // Late records still come (every deny event of the run is delivered), read by the final pass now, none recovered.
    expect(await metric(d, 'edge_exporter_waf_events_recovered_total')).toBe(recoveredThen);
    expect(d.receiver.uids().length).toBeGreaterThan(received + 100);
    everyEventOnce(d);
    expect(await metric(d, 'edge_exporter_waf_events_missing')).toBe(0);
  }, 120_000);
});
