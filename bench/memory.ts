// Memory benchmark: what the published state costs per series. For 0, 10k
// and 100k series it builds what the daemon keeps between cycles (the
// CounterLedger with its watermarks, the FamilyStore, and the Exposition's
// cached OpenMetrics text and deflated parts after a gzip scrape), forces a
// full GC and reads heap used plus external memory (the cached exposition is
// Buffers, which live outside the V8 heap). Needs --expose-gc; the runner
// passes it. Target: under 1 KB per series.
import { Exposition, SelfMetrics } from '../src/exporters/prometheus/index.js';
import { publishSeries, SERIES_PER_DOMAIN } from './lib/series.js';
import { fmtBytes, fmtInt, table } from './lib/stats.js';

const SIZES = [0, 10_000, 100_000] as const;
const TARGET_BYTES_PER_SERIES = 1024;

interface Usage { heap: number; external: number }
interface Row { series: number; heap: number; external: number }

function settle(): Usage {
  if (globalThis.gc === undefined) throw new Error('run with --expose-gc: node --expose-gc --import tsx bench/memory.ts');
  // Several passes: weak maps and finalizers can free more on a second one.
  for (let i = 0; i < 4; i++) globalThis.gc();
  const { heapUsed, external } = process.memoryUsage();
  return { heap: heapUsed, external };
}

async function measure(series: number): Promise<Row> {
  const before = settle();
  const published = publishSeries(series);
  // Self-metrics are not per series, but the exposition needs them and they are part of the daemon's fixed cost.
  const exposition = new Exposition({ families: published.store, self: new SelfMetrics({ families: published.store, version: 'bench' }) });
  await exposition.render('openmetrics');
  await exposition.renderGzip('openmetrics');
  const held: unknown[] = [published, exposition];
  const after = settle();
  held.length = 0; // released only after the reading, so the GC above could not free any of it
  return { series: published.series, heap: after.heap - before.heap, external: after.external - before.external };
}

async function main(): Promise<void> {
  // A throwaway round first, so code compiled and caches filled on first use are not charged to the 0-series row.
  await measure(SERIES_PER_DOMAIN);
  const rows: Row[] = [];
  for (const size of SIZES) rows.push(await measure(size));
  const base = rows[0];
  if (base === undefined) throw new Error('no baseline');
  const out = ['## Memory (`npm run bench -- memory`)', ''];
  out.push(`Access families (${SERIES_PER_DOMAIN} series per domain) through CounterLedger -> FamilyStore -> Exposition (OpenMetrics plain + gzip cached). Deltas after forced GC, against the heap before each build; per series = (delta − delta at 0 series) / series.`, '');
  out.push(table(
    ['series', 'heap used', 'external (Buffers)', 'total', 'per series (heap)', 'per series (total)'],
    rows.map((r) => {
      const total = r.heap + r.external;
      const per = (v: number): string => (r.series === 0 ? '—' : `${(v / r.series).toFixed(0)} B`);
      return [fmtInt(r.series), fmtBytes(r.heap), fmtBytes(r.external), fmtBytes(total), per(r.heap - base.heap), per(total - base.heap - base.external)];
    }),
  ), '');
  const big = rows[rows.length - 1];
  if (big !== undefined && big.series > 0) {
    const perSeries = (big.heap + big.external - base.heap - base.external) / big.series;
    out.push(`Target: under ${TARGET_BYTES_PER_SERIES} B per series at ${fmtInt(big.series)} series: ${perSeries.toFixed(0)} B, ${perSeries < TARGET_BYTES_PER_SERIES ? 'met' : 'NOT met'}.`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
