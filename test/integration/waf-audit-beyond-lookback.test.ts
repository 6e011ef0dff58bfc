// Records ingested later than the delivery audit's look-back, through the
// whole daemon (in-process, on the simulator's fixed clock, to a real OTLP
// receiver, scraped over HTTP): a third of the deny records reach the upstream
// 75 minutes to 2 hours late, audited with the default 1h look-back. Those
// past the look-back are not read again, and not dropped in silence:
// edge_exporter_waf_events_missing shows them while their buckets' counts
// still move, each bucket then ends `unreconciled` with one warning whose
// numbers add up to exactly the events the receiver never got (the
// simulator's truth), and EdgeExporterWafEventsMissing, evaluated by promtool
// on the series this run scraped minute by minute, fires.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { labelsOf, readExposition } from '../support/exposition-reader.js';
import { testRules } from '../support/promtool.js';
import { startWafDaemon, stopWafDaemon, type WafDaemon } from '../support/waf-daemon.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 2, 2, 4, 0, 10);
const RUN_MINUTES = 200;
const RULES = fileURLToPath(new URL('../../prometheus/', import.meta.url));

let running: WafDaemon | undefined;
let dir: string | undefined;
afterEach(async () => {
  await stopWafDaemon(running);
  running = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function scrape(d: WafDaemon): Promise<{ missing: number; unreconciled: number }> {
  const samples = readExposition(await (await fetch(`${d.base}/metrics`)).text(), 'text').flatMap((f) => f.samples);
  const value = (name: string, outcome?: string): number =>
    samples.filter((s) => s.name === name && (outcome === undefined || labelsOf(s).outcome === outcome)).reduce((n, s) => n + Number(s.value), 0);
  return { missing: value('edge_exporter_waf_events_missing'), unreconciled: value('edge_exporter_waf_audit_buckets_total', 'unreconciled') };
}

/** promtool over the scraped series, one sample a minute: the alert quiet at each of `at` up to 60 minutes into the run, firing after. */
async function alertFiring(missing: readonly number[], unreconciled: readonly number[], at: readonly number[]): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), 'edge-audit-alert-'));
  const series = (name: string, values: readonly number[]): string => `      - series: '${name}'\n        values: '${values.join(' ')}'`;
  const firing = (minute: number, fires: boolean): string => [
    `      - eval_time: ${minute}m`,
    '        expr: ALERTS{alertname="EdgeExporterWafEventsMissing",alertstate="firing"}',
    fires ? '        exp_samples:\n          - labels: \'ALERTS{alertname="EdgeExporterWafEventsMissing",alertstate="firing",instance="d:9810",job="edge-exporter",severity="warning"}\'\n            value: 1' : '        exp_samples: []',
  ].join('\n');
  const file = join(dir, 'observed.yml');
  writeFileSync(file, [
    'rule_files:',
    ...['settings', 'rules', 'alerts'].map((f) => `  - ${join(RULES, `edge-exporter.${f}.yml`)}`),
    'evaluation_interval: 1m',
    'tests:',
    '  - interval: 1m',
    '    input_series:',
    series('edge_exporter_waf_events_missing{job="edge-exporter",instance="d:9810"}', missing),
    series('edge_exporter_waf_audit_buckets_total{job="edge-exporter",instance="d:9810",outcome="unreconciled"}', unreconciled),
    '    promql_expr_test:',
    ...at.map((m) => firing(m, m > 60)),
  ].join('\n'));
  const result = await testRules([file]);
  expect(result.output).toContain('SUCCESS');
  expect(result.ok).toBe(true);
}

it('records later than the look-back: shown missing, each lost event in its bucket\'s warning, and the alert fires', async () => {
  const log: string[] = [];
  running = await startWafDaemon({
    seed: 17, start: T0, wafEvents: 'interval: 30s, start_from: 10m, page_size: 100', log,
    readings: { wafLateIngest: { fraction: 1 / 3, minMs: 75 * MIN, maxMs: 120 * MIN } },
  });
  const { sim, receiver, daemon, clock } = running;
  const missing: number[] = [];
  const unreconciled: number[] = [];
  for (let minute = 0; minute < RUN_MINUTES; minute++) {
    for (let half = 0; half < 2; half++) {
      expect(await daemon.forwardOnce()).toMatchObject({ ok: true });
      clock.advance(MIN / 2);
    }
    const seen = await scrape(running);
    missing.push(seen.missing);
    unreconciled.push(seen.unreconciled);
  }
  // Inside the look-back nothing is missing for long; past it, from 75 minutes on, records keep arriving for buckets no
  // longer read again: the gauge stays above 0.
  expect(missing.slice(0, 60).every((n) => n === 0)).toBe(true);
  expect(missing.slice(90, RUN_MINUTES).every((n) => n > 0)).toBe(true);
  expect(unreconciled.at(-1)).toBeGreaterThan(10);
  // Each bucket's last warning: its counted minus delivered. Over the buckets out of the audit's range (older than twice
  // the look-back, so final), they add up to the events the simulator holds and the receiver never got.
  const warnings = new Map<number, number>();
  for (const line of log) {
    const entry = JSON.parse(line) as { outcome?: string; from?: string; counted?: number; delivered?: number };
    if (entry.outcome === 'unreconciled') warnings.set(Date.parse(String(entry.from)), Number(entry.counted) - Number(entry.delivered));
  }
  const left = Math.floor((clock.now() - 2 * 60 * MIN) / MIN) * MIN - MIN;
  const first = Math.ceil((T0 - 10 * MIN) / MIN) * MIN;
  const got = new Set(receiver.uids());
  const lost = sim.truth.wafEvents(first, left).filter((e) => e.record.response.httpCode === 417 && !got.has(e.record.requestId));
  expect(lost.length).toBeGreaterThan(20);
  expect([...warnings].filter(([from]) => from < left).reduce((n, [, d]) => n + d, 0)).toBe(lost.length);
  // Every lost one was ingested past the look-back (75 minutes or more late): none that the audit could read is lost.
  expect(lost.every((e) => sim.truth.wafVisibility(e).late)).toBe(true);
  expect(receiver.uids().length).toBe(got.size);
  // Quiet while records are late within the look-back (the first hour); firing once they are later, to the end.
  expect(unreconciled[60]).toBe(0);
  await alertFiring(missing, unreconciled, [30, 60, 120, 150, 180, RUN_MINUTES - 1]);
}, 120_000);
