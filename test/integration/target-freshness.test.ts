// One quiet domain against the real daemon: the simulator stops one domain's
// data (its answers say data: null) while the others' goes on. Its
// edge_exporter_target_data_age_seconds grows by exactly the time elapsed, the
// other domains' stays at the delay, the collector stays up; then the ages
// scraped minute by minute, fed to promtool with the shipped alert rules, fire
// EdgeExporterTargetDataStale for that domain only, and only once it has been
// 15 minutes behind for 15 minutes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { seriesKey } from '../../src/collectors/series/keys.js';
import { testRules } from '../support/promtool.js';
import { RULES_DIR } from '../rules/rule-files.js';
import { DELAY_MS, MIN, self, useRigs } from './fault-rig.js';

const rigs = useRigs();
const CYCLES = 40;
const age = (target: string): string => seriesKey('edge_exporter_target_data_age_seconds', { collector: 'access', target });

describe('one domain whose data stops', () => {
  it('grows in its freshness gauge alone and fires EdgeExporterTargetDataStale', async () => {
    const rig = await rigs();
    const domains = rig.sim.truth.domains();
    const [quiet, ...others] = domains;
    if (quiet === undefined || others.length === 0) throw new Error('the rig needs at least two domains');
    await rig.cycle();
    rig.fault({ dataNull: true, domains: [quiet] });
    // One row a minute, from the first cycle on: every domain's age as scraped.
    const rows: Array<Record<string, number>> = [];
    const packageAges: number[][] = [];
    for (let k = 0; k <= CYCLES; k++) {
      if (k > 0) await rig.cycle(MIN);
      const m = await rig.scrape();
      expect(m[self.up('access')], `cycle ${k}`).toBe(1);
      rows.push(Object.fromEntries(domains.map((d) => [d, m[age(d)] ?? NaN])));
      packageAges.push(Object.entries(m).filter(([key]) => key.startsWith('edge_exporter_target_data_age_seconds{collector="usage"')).map(([, v]) => v));
    }
    // The packages (usage) are untouched by the fault: one age each, at the delay, every cycle.
    for (const ages of packageAges) expect(ages).toEqual(packageAges[0]?.map(() => DELAY_MS / 1000));
    expect(packageAges[0]?.length).toBeGreaterThan(0);
    // The newest settled bucket ends `delay` before the cycle; the fixed clock makes the ages exact.
    const start = DELAY_MS / 1000;
    rows.forEach((row, k) => {
      expect(row[quiet], `${quiet} at cycle ${k}`).toBe(start + 60 * k);
      for (const d of others) expect(row[d], `${d} at cycle ${k}`).toBe(start);
    });

    const dir = await mkdtemp(join(tmpdir(), 'edge-freshness-'));
    try {
      const labels = (target: string) => `{job="edge-exporter",instance="a:9810",collector="access",target="${target}"}`;
      const firing = (at: string, targets: readonly string[]) => ({
        expr: 'ALERTS{alertname="EdgeExporterTargetDataStale",alertstate="firing"}',
        eval_time: at,
        exp_samples: targets.map((t) => ({ labels: `ALERTS{alertname="EdgeExporterTargetDataStale",alertstate="firing",severity="warning",job="edge-exporter",instance="a:9810",collector="access",target="${t}"}`, value: 1 })),
      });
      const file = join(dir, 'freshness.yml');
      await writeFile(file, stringify({
        rule_files: [join(RULES_DIR, 'edge-exporter.alerts.yml')],
        evaluation_interval: '1m',
        tests: [{
          interval: '1m',
          input_series: domains.map((d) => ({ series: `edge_exporter_target_data_age_seconds${labels(d)}`, values: rows.map((r) => String(r[d])).join(' ') })),
          // 15 minutes behind from cycle 16 on (60 × 16 > 900), firing 15 minutes later.
          promql_expr_test: [firing('30m', []), firing('31m', [quiet]), firing(`${CYCLES}m`, [quiet])],
        }],
      }));
      const result = await testRules([file]);
      expect(result.output).toContain('SUCCESS');
      expect(result.ok).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
