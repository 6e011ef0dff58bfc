// An upstream whose logTread counts never agree with its records (the
// logTreadCountDelta reading: every non-empty bucket counts one more than the
// records it holds), through the whole daemon (in-process, on the simulator's
// fixed clock, to a real OTLP receiver, scraped over HTTP). The audit finds
// each such bucket short, reads it again once, finds nothing new, and does not
// read it again while its count holds: the simulator's request log shows each
// minute read again once, no more. Once older than the look-back (20 minutes
// here) and held still, each ends unreconciled, reported once with both
// numbers; nothing is delivered twice.
import { afterEach, expect, it } from 'vitest';
import { labelsOf, readExposition } from '../support/exposition-reader.js';
import { startWafDaemon, stopWafDaemon, type WafDaemon } from '../support/waf-daemon.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);

let running: WafDaemon | undefined;
afterEach(async () => {
  await stopWafDaemon(running);
  running = undefined;
});

it('counts that never agree with the records: each short bucket read again once, then unreconciled once, no loop', async () => {
  const log: string[] = [];
  running = await startWafDaemon({
    seed: 19, start: T0, log, readings: { logTreadCountDelta: 1 },
    wafEvents: 'interval: 30s, start_from: 10m, page_size: 100, audit: { lookback: 20m }, upstream_retention: 1h',
  });
  const { sim, receiver, daemon, clock } = running;
  // Polled every 50 s, so no window is one whole minute on the minute: those reads are the audit's.
  for (let i = 0; i < 110; i++) {
    expect(await daemon.forwardOnce()).toMatchObject({ ok: true });
    clock.advance(50_000);
  }
  const tz = sim.tz;
  const reads = new Map<number, number>();
  for (const r of sim.budget.received()) {
    const m = /^logs (\S+ \S+)\.\.(\S+ \S+) page 1$/.exec(r.detail ?? '');
    if (m?.[1] === undefined || m[2] === undefined) continue;
    const begin = tz.parseDateTime(m[1]);
    if (tz.parseDateTime(m[2]) - begin !== MIN || begin % MIN !== 0) continue;
    reads.set(begin, (reads.get(begin) ?? 0) + 1);
  }
  expect(reads.size).toBeGreaterThan(40);
  expect(Math.max(...reads.values())).toBe(1);
  // The unreconciled buckets: each once, one more counted than delivered, and each read again once before.
  const warnings = log.map((l) => JSON.parse(l) as { outcome?: string; from?: string; counted?: number; delivered?: number })
    .filter((l) => l.outcome === 'unreconciled');
  const finals = warnings.map((w) => Date.parse(String(w.from)));
  expect(finals.length).toBeGreaterThan(20);
  expect(new Set(finals).size).toBe(finals.length);
  expect(warnings.every((w) => Number(w.counted) === Number(w.delivered) + 1)).toBe(true);
  for (const from of finals) expect(reads.get(from)).toBe(1);
  // They are the minutes with a deny record, from the audit's first whole minute to the last one final.
  const first = Math.ceil((T0 - 10 * MIN) / MIN) * MIN;
  const last = Math.max(...finals);
  const withDenies: number[] = [];
  for (let m = first; m <= last; m += MIN) {
    if (sim.truth.wafEvents(m, m + MIN).some((e) => e.record.response.httpCode === 417)) withDenies.push(m);
  }
  expect(finals.sort((a, b) => a - b)).toEqual(withDenies);
  const samples = readExposition(await (await fetch(`${running.base}/metrics`)).text(), 'text').flatMap((f) => f.samples);
  const outcome = (o: string): number => Number(samples.find((s) => s.name === 'edge_exporter_waf_audit_buckets_total' && labelsOf(s).outcome === o)?.value);
  expect(outcome('unreconciled')).toBe(finals.length);
  expect(outcome('recovered')).toBe(0);
  expect(receiver.uids().length).toBe(new Set(receiver.uids()).size);
}, 60_000);
