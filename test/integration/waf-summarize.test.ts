// waf_events.over_rate: summarize through the whole daemon (in-process, on the
// simulator's fixed clock, scraped over HTTP) to a real OTLP receiver, as a
// person running it meets it: the receiver gets max_rate events per second of
// each window one by one and summary records (edge.waf.deny_summary) for the
// rest; every deny event of the range is one record or counted in exactly one
// summary's edge.waf.count; edge_waf_denied_requests_total counts them all and
// edge_exporter_waf_events_summarized_total the folded ones.
import { afterEach, expect, it } from 'vitest';
import { startWafDaemon, stopWafDaemon, type WafDaemon } from '../support/waf-daemon.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);

let running: WafDaemon | undefined;

afterEach(async () => {
  await stopWafDaemon(running);
  running = undefined;
});

it('summarize: every deny event of the range is one record or in one summary; the counters count them all', async () => {
  running = await startWafDaemon({ seed: 5, start: T0, wafEvents: 'interval: 30s, delay: 2m, overlap: 5m, max_window: 15m, start_from: 30m, page_size: 50, max_rate: 0.05, over_rate: summarize' });
  const { sim, receiver, daemon, base, clock } = running;
  for (let i = 0; i < 3; i++) {
    expect(await daemon.forwardOnce()).toMatchObject({ ok: true });
    clock.advance(MIN);
  }
  // From start_from before the first poll to `delay` (2m) before the last one, at T0 + 2m.
  const from = T0 - 30 * MIN;
  const to = T0;
  const truth = new Map<string, number>();
  for (const { record, time } of sim.truth.wafEvents(from, to)) {
    if (record.response.httpCode !== 417) continue;
    const key = `${Math.floor(time / MIN)}|${record.request.headers['host']}|${record.rules[0]?.ruleId}|${record.clientIp}`;
    truth.set(key, (truth.get(key) ?? 0) + 1);
  }
  const deny = [...truth.values()].reduce((a, b) => a + b, 0);

  const records = receiver.records();
  const summaries = records.filter((r) => r.eventName === 'edge.waf.deny_summary');
  const single = records.filter((r) => r.eventName === 'edge.waf.deny');
  expect(summaries.length + single.length).toBe(records.length);
  const got = new Map<string, number>();
  for (const r of records) {
    const a = r.attributes;
    const ms = Number(r.timeUnixNano / 1_000_000n);
    const key = `${Math.floor(ms / MIN)}|${String(a['server.address'])}|${String(a['security_rule.uuid'])}|${String(a['client.address'])}`;
    const count = r.eventName === 'edge.waf.deny_summary' ? Number(a['edge.waf.count']) : 1;
    got.set(key, (got.get(key) ?? 0) + count);
  }
  expect(got).toEqual(truth);
  expect(new Set(receiver.uids()).size).toBe(records.length);
  const folded = summaries.reduce((n, r) => n + Number(r.attributes['edge.waf.count']), 0);
  expect(folded + single.length).toBe(deny);
  // 0.05/s over the 30 minutes read: at most 90 one by one; the simulator denies more.
  expect(single.length).toBeLessThanOrEqual(90);
  expect(folded).toBeGreaterThan(0);
  for (const r of summaries) {
    expect(Date.parse(String(r.attributes['edge.waf.first_time']))).toBe(Number(r.timeUnixNano / 1_000_000n));
    expect(Date.parse(String(r.attributes['edge.waf.last_time']))).toBeGreaterThanOrEqual(Date.parse(String(r.attributes['edge.waf.first_time'])));
  }

  const metrics = await (await fetch(`${base}/metrics`)).text();
  const value = (re: RegExp): number => [...metrics.matchAll(re)].reduce((sum, m) => sum + Number(m[1]), 0);
  expect(value(/^edge_waf_denied_requests_total\{[^}]*\} (\d+)$/gm)).toBe(deny);
  expect(value(/^edge_exporter_waf_events_summarized_total (\d+)$/gm)).toBe(folded);
  expect(value(/^edge_exporter_waf_events_forwarded_total (\d+)$/gm)).toBe(single.length);
}, 60_000);
