// Scrape benchmark: time and bytes of GET /metrics at 10k and 100k series,
// served by the real HttpServer + Exposition (in a child process, as in
// production), next to the same bytes served as a static file by nginx (the
// floor). Same client, same sequential scrapes, plain and gzip; then wrk for
// throughput. Prints a Markdown section. Target: 100k series within 2x the floor.
// Also, in the exporter's process, the cold render (after a publish changing
// every family) beside prom-client's registry.metrics() on the same series;
// `--cold-only` prints just that, without nginx or HTTP scrapes.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { startChild } from './lib/child.js';
import { fetchOnce, scrapeInterleaved, type ScrapeRun } from './lib/client.js';
import { toolVersion } from './lib/machine.js';
import { startNginx } from './lib/nginx.js';
import { fmtBytes, fmtInt, fmtMs, fmtRatio, summarize, table } from './lib/stats.js';
import { ensureTools, type Tools } from './lib/tools.js';
import { runWrk, type WrkResult } from './lib/wrk.js';

const SIZES = [
  { series: 10_000, scrapes: 300 },
  { series: 100_000, scrapes: 100 },
] as const;
const WARMUP = 5;
const MAX_SECONDS_PER_RUN = 60;
const WRK = { connections: 4, threads: 2, seconds: 5 } as const;
const TARGET_RATIO = 2;

const timesSchema = z.object({ plain: z.number(), gzip: z.number() });
const cpuSchema = z.object({ plain: z.number(), gzip: z.number(), promClientPlain: z.number(), promClientGzip: z.number() });
const coldSchema = timesSchema.extend({ publish: z.number(), promClientPlain: z.number(), promClientGzip: z.number(), cpu: cpuSchema });
const readySchema = z.object({ url: z.string(), series: z.number(), coldRenderMs: coldSchema, warmRenderMs: timesSchema });
/** A cold render this many times faster than prom-client's registry.metrics() on the same series (issue 12). */
const COLD_TARGET = 10;
type Ready = z.infer<typeof readySchema>;

type Server = 'exporter' | 'nginx';
type Encoding = 'plain' | 'gzip';
interface Measured { server: Server; encoding: Encoding; run: ScrapeRun; wrk?: WrkResult }
interface SizeResult { ready: Ready; measured: Measured[]; fileBytes: { plain: number; gzip: number } }

async function measureSize(series: number, scrapes: number, tools: Tools, work: string, coldOnly: boolean): Promise<SizeResult> {
  const exporter = await startChild('scrape-server.ts', ['--series', String(series), ...(coldOnly ? ['--cold-only'] : [])], readySchema);
  if (coldOnly) {
    await exporter.stop();
    return { ready: exporter.ready, measured: [], fileBytes: { plain: 0, gzip: 0 } };
  }
  const www = join(work, `www-${series}`);
  try {
    // The floor serves exactly what the exporter served (self-metrics included), precompressed at zlib's default level as the exporter's cache is.
    const { body, contentType } = await fetchOnce(exporter.ready.url, false);
    const gz = gzipSync(body);
    await mkdir(www, { recursive: true });
    await Promise.all([writeFile(join(www, 'metrics'), body), writeFile(join(www, 'metrics.gz'), gz)]);
    await chmod(www, 0o755);
    const nginx = tools.nginx ? await startNginx(tools.nginx, join(work, `nginx-${series}`), www, contentType) : undefined;
    const measured: Measured[] = [];
    try {
      const servers: Array<[Server, string]> = [['exporter', exporter.ready.url]];
      if (nginx) servers.push(['nginx', nginx.url]);
      for (const encoding of ['plain', 'gzip'] as const) {
        const gzip = encoding === 'gzip';
        const runs = await scrapeInterleaved(servers.map(([, url]) => url), { gzip, warmup: WARMUP, count: scrapes, maxSeconds: MAX_SECONDS_PER_RUN });
        for (const [i, [server, url]] of servers.entries()) {
          const run = runs[i];
          if (run === undefined) continue;
          const wrk = tools.wrk ? await runWrk(tools.wrk, { url, gzip, ...WRK }) : undefined;
          measured.push({ server, encoding, run, ...(wrk ? { wrk } : {}) });
        }
      }
    } finally {
      await nginx?.stop();
    }
    return { ready: exporter.ready, measured, fileBytes: { plain: body.length, gzip: gz.length } };
  } finally {
    await exporter.stop();
  }
}

function floorOf(result: SizeResult, encoding: Encoding): Measured | undefined {
  return result.measured.find((m) => m.server === 'nginx' && m.encoding === encoding);
}

function report(results: readonly SizeResult[], tools: Tools): string {
  const out: string[] = ['## Scrape (`npm run bench -- scrape`)', ''];
  out.push(`Tools: ${[tools.nginx && toolVersion(tools.nginx, ['-v']), tools.wrk && toolVersion(tools.wrk, ['-v'])].filter(Boolean).join('; ') || 'none'}.`);
  for (const note of tools.notes) out.push(`Note: ${note}.`);
  out.push('', `Sequential scrapes, one keep-alive connection per server, alternating between exporter and nginx so both see the same background load, after ${WARMUP} warm-up scrapes each; Accept as Prometheus sends it (OpenMetrics); bytes are on the wire (gzip counted compressed).`, '');
  const rows = results.flatMap((r) => r.measured.map((m) => {
    const s = summarize(m.run.latenciesMs);
    const floor = floorOf(r, m.encoding);
    const ratio = m.server === 'exporter' && floor ? s.p50 / summarize(floor.run.latenciesMs).p50 : Number.NaN;
    return [fmtInt(r.ready.series), m.server, m.encoding, `${fmtBytes(m.run.bytes)} (${fmtInt(m.run.bytes)})`, fmtMs(s.p50), fmtMs(s.p90), fmtMs(s.p99), s.n, m.server === 'exporter' ? fmtRatio(ratio) : 'floor'];
  }));
  out.push(table(['series', 'server', 'encoding', 'body bytes', 'p50', 'p90', 'p99', 'scrapes', 'p50 vs floor'], rows), '');
  out.push(...inProcess(results));
  const wrkRows = results.flatMap((r) => r.measured.flatMap((m) => {
    if (!m.wrk) return [];
    const floor = floorOf(r, m.encoding)?.wrk;
    const ratio = m.server === 'exporter' && floor ? floor.requestsPerSecond / m.wrk.requestsPerSecond : Number.NaN;
    return [[fmtInt(r.ready.series), m.server, m.encoding, m.wrk.requestsPerSecond.toFixed(1), `${fmtBytes(m.wrk.transferBytesPerSecond)}/s`, fmtMs(m.wrk.p50Ms), fmtMs(m.wrk.p99Ms), m.server === 'exporter' ? fmtRatio(ratio) : 'floor', m.wrk.errors ?? '']];
  }));
  if (wrkRows.length > 0) {
    out.push(`wrk -t${WRK.threads} -c${WRK.connections} -d${WRK.seconds}s (throughput; "floor/exporter" is how many times more requests per second nginx served):`, '');
    out.push(table(['series', 'server', 'encoding', 'req/s', 'transfer', 'p50', 'p99', 'floor/exporter', 'errors'], wrkRows), '');
  }
  out.push(...verdict(results));
  return out.join('\n');
}

/** The cold and warm render, measured inside the exporter's process, and the cold render against prom-client. */
function inProcess(results: readonly SizeResult[]): string[] {
  const out = ['Where the exporter\'s time goes, measured inside its process (OpenMetrics, as Prometheus negotiates): the first scrape after a publish that changed every family (cache miss), beside prom-client 15\'s `registry.metrics()` on the same series in an OpenMetrics Registry (and `gzipSync` of it at the default level), alternating, median of 7; the publish before it is timed apart (once per cycle, not per scrape). Then a scrape of unchanged data (self-metrics and process metrics rendered, the gzip tail deflated, the body concatenated; median of 20):', ''];
  out.push(table(['series', 'publish', 'cold plain', 'prom-client plain', 'faster', 'cold gzip', 'prom-client gzip', 'faster', 'warm plain', 'warm gzip'], results.map(({ ready: { series, coldRenderMs: c, warmRenderMs: w } }) => [
    fmtInt(series), fmtMs(c.publish), fmtMs(c.plain), fmtMs(c.promClientPlain), fmtRatio(c.promClientPlain / c.plain),
    fmtMs(c.gzip), fmtMs(c.promClientGzip), fmtRatio(c.promClientGzip / c.gzip), fmtMs(w.plain), fmtMs(w.gzip),
  ])), '');
  out.push('The same cold renders as CPU time of the process (user + system over every thread, so our gzip includes the thread pool\'s deflating; medians), less bent than wall time by other work on a shared machine:', '');
  out.push(table(['series', 'cold plain CPU', 'prom-client plain CPU', 'ratio', 'cold gzip CPU', 'prom-client gzip CPU', 'ratio'], results.map(({ ready: { series, coldRenderMs: { cpu } } }) => [
    fmtInt(series), fmtMs(cpu.plain), fmtMs(cpu.promClientPlain), fmtRatio(cpu.promClientPlain / cpu.plain), fmtMs(cpu.gzip), fmtMs(cpu.promClientGzip), fmtRatio(cpu.promClientGzip / cpu.gzip),
  ])), '');
  const big = results.find((r) => r.ready.series >= 100_000)?.ready.coldRenderMs;
  if (big) {
    const met = (ratio: number): string => `${fmtRatio(ratio)} (${ratio >= COLD_TARGET ? 'met' : 'NOT met'})`;
    out.push(`Target: a cold scrape at 100k series at least ${COLD_TARGET}x faster than prom-client: plain ${met(big.promClientPlain / big.plain)}, gzip ${met(big.promClientGzip / big.gzip)}.`, '');
  }
  return out;
}

function verdict(results: readonly SizeResult[]): string[] {
  const big = results.find((r) => r.ready.series >= 100_000);
  if (!big) return ['Target (100k series within 2x of the floor): not measured in this run.'];
  const lines = (['plain', 'gzip'] as const).map((encoding) => {
    const mine = big.measured.find((m) => m.server === 'exporter' && m.encoding === encoding);
    const floor = floorOf(big, encoding);
    if (!mine || !floor) return `- ${encoding}: no floor measured`;
    const ratio = summarize(mine.run.latenciesMs).p50 / summarize(floor.run.latenciesMs).p50;
    return `- ${encoding}: exporter p50 is ${fmtRatio(ratio)} the floor's: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}`;
  });
  return [`Target: a 100k-series scrape within ${TARGET_RATIO}x of the static-file floor (p50 latency):`, ...lines];
}

async function main(): Promise<void> {
  const noWrk = process.argv.includes('--no-wrk');
  // In-process figures only (cold vs prom-client, warm): no nginx, no scrapes over HTTP.
  const coldOnly = process.argv.includes('--cold-only');
  const found = coldOnly ? { notes: [] } : ensureTools(noWrk ? ['nginx'] : ['nginx', 'wrk']);
  const tools: Tools = noWrk ? { ...found, wrk: undefined } : found;
  const work = await mkdtemp(join(tmpdir(), 'edge-bench-scrape-'));
  try {
    await chmod(work, 0o755); // nginx workers run as nobody and must reach www/
    const results: SizeResult[] = [];
    for (const size of SIZES) results.push(await measureSize(size.series, size.scrapes, tools, work, coldOnly));
    process.stdout.write(`${coldOnly ? ['## Scrape, in process (`npm run bench -- scrape --cold-only`)', '', ...inProcess(results)].join('\n') : report(results, tools)}\n`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
