// Cycle benchmark: the real daemon (config defaults, EdgeClient, poller,
// collectors) against a simulator with 1,000 domains answering every request
// after 50 ms. Runs the access collector alone (two cycles: the first also
// discovers the domains) and then every collector at once, with the default
// concurrency 8 and with 16 (upstream.concurrency), and counts the requests
// the simulator saw against the minimum the API needs (one describeL7DataV2
// per domain). Target: the 1,000-domain access cycle under 15 s.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { loadConfig } from '../src/config/index.js';
import { Daemon } from '../src/daemon/daemon.js';
import { createLogger } from '../src/log/logger.js';
import { startChild } from './lib/child.js';
import { countsSince, simReset, simState } from './lib/sim-admin.js';
import { fmtInt, fmtMs, since, table } from './lib/stats.js';

const DOMAINS = 1_000;
const LATENCY_MS = 50;
const TARGET_MS = 15_000;
const OTHERS = ['usage', 'topn', 'cc_attack', 'waf_trend', 'inventory'] as const;

interface Scenario { readonly name: string; readonly concurrency: number; readonly accessOnly: boolean; readonly cycles: number }
const SCENARIOS: readonly Scenario[] = [
  { name: 'access only', concurrency: 8, accessOnly: true, cycles: 2 },
  { name: 'access only', concurrency: 16, accessOnly: true, cycles: 2 },
  { name: 'every collector', concurrency: 8, accessOnly: false, cycles: 1 },
  { name: 'every collector', concurrency: 16, accessOnly: false, cycles: 1 },
];

interface Row { scenario: Scenario; cycle: number; wallMs: number; collectors: Array<{ name: string; ms: number; ok: boolean; partial: number }>; requests: Record<string, number>; logged: number }

function configYaml(url: string, stateDir: string, s: Scenario): string {
  const disabled = s.accessOnly ? OTHERS.map((c) => `  ${c}: { enabled: false }`).join('\n') : '  {}';
  return `upstream:\n  api_url: ${url}\n  token: sim-token\n  concurrency: ${s.concurrency}\ncollectors:\n${disabled}\nstate_dir: ${stateDir}\n`;
}

async function runScenario(url: string, s: Scenario): Promise<Row[]> {
  await simReset(url, LATENCY_MS);
  const stateDir = await mkdtemp(join(tmpdir(), 'edge-bench-cycle-'));
  // Warnings and errors are counted, not printed: a clean run logs none.
  let logged = 0;
  const logger = createLogger({ level: 'warn', destination: { write: () => void logged++ } });
  const daemon = new Daemon({ config: loadConfig({ text: configYaml(url, stateDir, s), env: {} }), logger, version: 'bench' });
  const rows: Row[] = [];
  try {
    for (let cycle = 1; cycle <= s.cycles; cycle++) {
      const before = (await simState(url)).counts;
      const loggedBefore = logged;
      const start = performance.now();
      const reports = await daemon.runOnce();
      const wallMs = since(start);
      const requests = countsSince(before, (await simState(url)).counts);
      const collectors = reports.map((r) => ({ name: r.collector, ms: r.durationMs, ok: r.ok, partial: r.partialErrors }));
      rows.push({ scenario: s, cycle, wallMs, collectors, requests, logged: logged - loggedBefore });
    }
  } finally {
    await daemon.stop();
    await rm(stateDir, { recursive: true, force: true });
  }
  return rows;
}

function report(rows: readonly Row[], domains: number): string {
  const out = ['## Cycle (`npm run bench -- cycle`)', ''];
  out.push(`${fmtInt(domains)} simulated domains, every simulator answer delayed ${LATENCY_MS} ms (fault \`latencyMs: ${LATENCY_MS}\`), simulator in its own process; config defaults otherwise (access: v2, 1m interval). Minimum requests: one describeL7DataV2 per domain = ${fmtInt(domains)}; at ${LATENCY_MS} ms each, concurrency c cannot finish faster than ${fmtInt(domains)} × ${LATENCY_MS} ms / c.`, '');
  out.push(table(
    ['scenario', 'concurrency', 'cycle', 'runOnce wall', 'per collector (run duration, ok)', 'describeL7DataV2 / minimum', 'other requests', 'warn+ logs'],
    rows.map((r) => {
      const v2 = r.requests.describeL7DataV2 ?? 0;
      const other = Object.entries(r.requests).filter(([op]) => op !== 'describeL7DataV2').map(([op, n]) => `${op} ${n}`).join(', ');
      const per = r.collectors.map((c) => `${c.name} ${fmtMs(c.ms)}${c.ok ? '' : ' FAILED'}${c.partial > 0 ? ` (${c.partial} partial errors)` : ''}`).join('; ');
      return [r.scenario.name, r.scenario.concurrency, r.cycle, fmtMs(r.wallMs), per, `${fmtInt(v2)} / ${fmtInt(domains)}`, other || '—', r.logged];
    }),
  ), '');
  const cycle = (c: number): Row | undefined => rows.find((r) => r.scenario.accessOnly && r.scenario.concurrency === c && r.cycle === 1);
  const access = (r: Row | undefined): number => r?.collectors.find((c) => c.name === 'access')?.ms ?? Number.NaN;
  const c8 = access(cycle(8));
  out.push(`Target: the ${fmtInt(domains)}-domain access cycle under ${TARGET_MS / 1000} s at the default concurrency 8: ${fmtMs(c8)}, ${c8 < TARGET_MS ? 'met' : 'NOT met'} (concurrency 16: ${fmtMs(access(cycle(16)))}).`);
  return out.join('\n');
}

async function main(): Promise<void> {
  const sim = await startChild('sim-server.ts', ['--domains', String(DOMAINS), '--latency-ms', String(LATENCY_MS)], z.object({ url: z.string() }));
  try {
    const rows: Row[] = [];
    for (const scenario of SCENARIOS) rows.push(...(await runScenario(sim.ready.url, scenario)));
    process.stdout.write(`${report(rows, (await simState(sim.ready.url)).domains)}\n`);
  } finally {
    await sim.stop();
  }
}

await main();
