// The WAF checkpoint lag while delivery fails: the daemon (in-process, on the
// simulator's fixed clock, scraped over HTTP) forwards to a real OTLP receiver,
// which then answers 503 to every export. The checkpoint stands still, and
// edge_exporter_waf_checkpoint_lag_seconds must grow by exactly the time that
// passes between two scrapes (it once stood at its last save's value for as
// long as delivery failed); once the receiver is back, it drops again.
import { afterEach, expect, it } from 'vitest';
import { startWafDaemon, stopWafDaemon, type WafDaemon } from '../support/waf-daemon.js';

const MIN = 60_000;
/** 2026-03-02 12:00:00 platform time. */
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);

let running: WafDaemon | undefined;

afterEach(async () => {
  await stopWafDaemon(running);
  running = undefined;
});

it('edge_exporter_waf_checkpoint_lag_seconds grows by the time elapsed between scrapes while the OTLP receiver fails', async () => {
  running = await startWafDaemon({ seed: 3, start: T0, wafEvents: 'interval: 30s, delay: 2m, overlap: 5m, max_window: 15m, start_from: 10m, page_size: 50, upstream_retention: 36h' });
  const { receiver, daemon, base, clock } = running;
  const scrape = async (): Promise<Record<string, number>> => {
    const body = await (await fetch(`${base}/metrics`)).text();
    return Object.fromEntries([...body.matchAll(/^(edge_exporter_waf_\w+)(?:\{code="(\w+)"\})? (\S+)$/gm)].map((m) => [m[2] ? `${m[1]}:${m[2]}` : m[1], Number(m[3])]));
  };

  // Caught up: the checkpoint is `delay` behind the clock.
  expect(await daemon.forwardOnce()).toMatchObject({ ok: true });
  const received = receiver.uids().length;
  expect(received).toBeGreaterThan(0);
  const caughtUp = await scrape();
  expect(caughtUp.edge_exporter_waf_checkpoint_lag_seconds).toBe(120);
  // What EdgeExporterWafBehindRetention divides the lag by: waf_events.upstream_retention as configured.
  expect(caughtUp.edge_exporter_waf_upstream_retention_seconds).toBe(36 * 3600);

  // A minute on, the receiver fails every export: the poll reads the next window and keeps retrying its first batch.
  receiver.setDown(true);
  clock.advance(MIN);
  const polling = daemon.forwardOnce();
  const failures = (m: Record<string, number>): number => Object.entries(m).filter(([k]) => k.startsWith('edge_exporter_waf_export_failures_total')).reduce((sum, [, v]) => sum + v, 0);
  let first: Record<string, number> = {};
  await expect.poll(async () => failures((first = await scrape())), { timeout: 10_000 }).toBeGreaterThan(0);
  expect(receiver.requests().some((r) => r.status === 503)).toBe(true);
  expect(first.edge_exporter_waf_checkpoint_lag_seconds).toBe(180);
  // Ten minutes and 677 ms later, still failing: no save in between, and the gauge grew by exactly that.
  clock.advance(10 * MIN + 677);
  const second = await scrape();
  expect(second.edge_exporter_waf_checkpoint_lag_seconds).toBe(780.677);
  expect(receiver.uids()).toHaveLength(received);

  // The receiver back: the retried batch and the rest are delivered, the checkpoint moves, the lag drops.
  receiver.setDown(false);
  expect(await polling).toMatchObject({ ok: true });
  const after = (await scrape()).edge_exporter_waf_checkpoint_lag_seconds;
  expect(after).toBeLessThan(780.677);
  expect(after).toBeGreaterThanOrEqual(120);
}, 60_000);
