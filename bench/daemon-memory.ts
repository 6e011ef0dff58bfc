// Daemon memory benchmark: what the running daemon costs, not only its store.
// For each size it starts the simulator (own process, no added latency) with
// series/15 domains and `edge-exporter run` against it on loopback (access
// collector alone, 1m interval, config defaults otherwise; --every turns the
// other collectors with per-domain series on too), lets it run --cycles access
// cycles (the first one plus the ones at the next minute boundaries: steady
// state, no forced GC), scraping /metrics every few seconds as Prometheus
// would, and samples the daemon's VmRSS from /proc every 100 ms. Reports the
// peak RSS over the whole run (the kernel's VmHWM), the RSS after the last
// cycle, and both per series. Linux only (reads /proc). Targets (issue 12):
// peak under 300 MB and under 1 KB per series at 100k series.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { startChild } from './lib/child.js';
import { NODE_FLAGS } from '../src/cli/node-flags.js';
import { startDaemon } from './lib/daemon-process.js';
import { processCpu } from './lib/proc-cpu.js';
import { procMemory } from './lib/proc-mem.js';
import { fmtBytes, fmtInt, fmtMs, since, table } from './lib/stats.js';

const SERIES_PER_DOMAIN = 15;
const SAMPLE_MS = 100;
const SCRAPE_MS = 15_000;
const TARGET_PEAK = 300 * 1024 * 1024;
const TARGET_PER_SERIES = 1024;

const { values } = parseArgs({
  options: { sizes: { type: 'string' }, cycles: { type: 'string' }, every: { type: 'boolean' }, built: { type: 'boolean' }, 'node-flags': { type: 'string' } },
  strict: false,
});
const SIZES = String(values.sizes ?? '1000,10000,100000').split(',').map(Number);
const CYCLES = Number(values.cycles ?? '3');
const EVERY = values.every === true;
// --built: the daemon users run (dist/cli/main.js under plain node; `npm run build` first) instead of src under tsx.
const BUILT = values.built === true;
// --node-flags='--a --b': the daemon's node/V8 flags instead of the shipped ones (src/cli/node-flags.ts), to compare
// heap settings. --node-flags= (empty) passes none, as the bin run directly: `run` then sets the heap growth itself
// (setMissingFlags); --node-flags=--heap-growing-percent=0 runs under V8's default growth.
const NODE_FLAGS_RUN: readonly string[] = typeof values['node-flags'] === 'string' ? values['node-flags'].split(' ').filter((a) => a !== '') : NODE_FLAGS;

interface Row { series: number; domains: number; peak: number; last: number; cycles: number; wallMs: number; cpuMs: number }

function configYaml(url: string, stateDir: string): string {
  const others = EVERY
    ? '  cc_attack: { per_domain: true }\n  topn: { enabled: false }\n  waf_trend: { enabled: false }\n  inventory: { enabled: false }\n'
    : ['usage', 'topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }\n`).join('');
  return `upstream:\n  api_url: ${url}\n  token: sim-token\nlog:\n  level: info\nserver:\n  listen: 127.0.0.1:0\n` +
    `collectors:\n  access: { interval: 1m }\n${others}state_dir: ${stateDir}\n`;
}

/** CPU time the process has used (user + system, every thread), from /proc/<pid>/stat. */
async function cpuMs(pid: number): Promise<number> {
  const { all } = await processCpu(pid);
  return all.userMs + all.systemMs;
}

/** Completed access runs, from the daemon's own self-metric. */
async function accessRuns(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  let n = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('edge_exporter_collector_runs_total{') && line.includes('collector="access"')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return n;
}

async function measure(series: number): Promise<Row> {
  const domains = Math.round(series / SERIES_PER_DOMAIN);
  const sim = await startChild('sim-server.ts', ['--domains', String(domains), '--latency-ms', '0'], z.object({ url: z.string() }));
  const stateDir = await mkdtemp(join(tmpdir(), 'edge-bench-dmem-'));
  const configFile = join(stateDir, 'config.yaml');
  await writeFile(configFile, configYaml(sim.ready.url, stateDir));
  const start = performance.now();
  const daemon = await startDaemon(configFile, 60_000, BUILT, NODE_FLAGS_RUN);
  let last = 0;
  let runs = 0;
  try {
    const sampler = setInterval(() => void procMemory(daemon.pid).then((s) => { last = s.rss; }, () => undefined), SAMPLE_MS);
    // A cycle at 6,667 domains takes well under a minute; 3 min per cycle only guards against a hang.
    const deadline = Date.now() + CYCLES * 3 * 60_000;
    while (runs < CYCLES && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, SCRAPE_MS));
      runs = await accessRuns(daemon.metricsUrl);
    }
    clearInterval(sampler);
    const { rss, hwm } = await procMemory(daemon.pid);
    last = rss;
    return { series: domains * SERIES_PER_DOMAIN, domains, peak: hwm, last, cycles: runs, wallMs: since(start), cpuMs: await cpuMs(daemon.pid) };
  } finally {
    await daemon.stop();
    await sim.stop();
    await rm(stateDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const size of SIZES) rows.push(await measure(size));
  const out = ['## Daemon memory (`npm run bench -- daemon-memory`)', ''];
  out.push(`\`edge-exporter run\` (${BUILT ? 'built: dist/cli/main.js' : 'sources under tsx'}, node flags: ${NODE_FLAGS_RUN.length > 0 ? NODE_FLAGS_RUN.join(' ') : 'none'}${NODE_FLAGS_RUN === NODE_FLAGS ? ' (the shipped ones)' : ''}) in its own process against the simulator (own process, no latency) on loopback: access collector${EVERY ? ', usage and cc_attack (per_domain)' : ' alone'}, 1m interval, ${CYCLES} access cycles, /metrics scraped every ${SCRAPE_MS / 1000} s, no forced GC. RSS from /proc/<pid>/status (peak = VmHWM), daemon CPU (user + system, every thread, start-up included) from /proc/<pid>/stat; per series = RSS / access series (${SERIES_PER_DOMAIN} per domain).`, '');
  out.push(table(
    ['series', 'domains', 'cycles', 'wall', 'daemon CPU', 'peak RSS', 'RSS after last cycle', 'peak per series', 'last per series'],
    rows.map((r) => [fmtInt(r.series), fmtInt(r.domains), r.cycles, fmtMs(r.wallMs), fmtMs(r.cpuMs), fmtBytes(r.peak), fmtBytes(r.last), `${(r.peak / r.series).toFixed(0)} B`, `${(r.last / r.series).toFixed(0)} B`]),
  ), '');
  const first = rows[0];
  const big = rows[rows.length - 1];
  if (first !== undefined && big !== undefined && big !== first) {
    const growth = (big.last - first.last) / (big.series - first.series);
    out.push(`Growth between ${fmtInt(first.series)} and ${fmtInt(big.series)} series (RSS after the last cycle): ${growth.toFixed(0)} B per series, ${growth < TARGET_PER_SERIES ? 'met' : 'NOT met'} (target under ${TARGET_PER_SERIES} B).`);
    out.push(`Peak RSS at ${fmtInt(big.series)} series: ${fmtBytes(big.peak)}, ${big.peak < TARGET_PEAK ? 'met' : 'NOT met'} (target under ${fmtBytes(TARGET_PEAK)}).`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
