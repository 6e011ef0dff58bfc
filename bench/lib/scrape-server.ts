// The exporter side of bench/scrape.ts, run as its own process (as in
// production) so the benchmark's client never shares its event loop: fills a
// FamilyStore with `--series N`, times cold renders in-process, then serves
// it with the real HttpServer + Exposition on 127.0.0.1:0 until SIGTERM.
// Prints one JSON line (ServerReady) on stdout once listening.
import { parseArgs } from 'node:util';
import { Exposition, SelfMetrics, negotiate, type ExpositionFormat } from '../../src/exporters/prometheus/index.js';
import { HttpServer } from '../../src/server/index.js';
import { measureCold, type ColdTimes } from './cold.js';
import { publishSeries } from './series.js';
import { median, since } from './stats.js';

interface ServerReady {
  readonly url: string;
  readonly series: number;
  /** Medians: render of the whole exposition after a publish changed every family (cache miss), beside prom-client's registry.metrics() on the same series. */
  readonly coldRenderMs: ColdTimes;
  /** Median in-process cost of a scrape of unchanged data (self-metrics, gzip tail, one body copy): what the floor does not pay. */
  readonly warmRenderMs: { readonly plain: number; readonly gzip: number };
}

const COLD_ROUNDS = 7;
const WARM_ROUNDS = 20;
/** What Prometheus negotiates by default (bench/lib/client.ts sends its Accept header). */
const FORMAT: ExpositionFormat = 'openmetrics';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { series: { type: 'string' }, 'cold-only': { type: 'boolean' } } });
  const published = publishSeries(Number(values.series ?? '10000'));
  const self = new SelfMetrics({ families: published.store, version: 'bench' });
  const exposition = new Exposition({ families: published.store, self });

  // Every collector cycle republishes its families, so the first scrape after
  // it pays for a render: measured here, where the scrape loop cannot see it.
  const coldRenderMs = await measureCold(published, exposition, FORMAT, COLD_ROUNDS, 1);
  const warm: Record<'plain' | 'gzip', number[]> = { plain: [], gzip: [] };
  for (let round = 0; round < WARM_ROUNDS; round++) {
    for (const encoding of ['plain', 'gzip'] as const) {
      const start = performance.now();
      // `.body` is read as HttpServer reads it, so the copy it makes is timed too.
      void (encoding === 'gzip' ? await exposition.renderGzip(FORMAT) : await exposition.render(FORMAT)).body.length;
      warm[encoding].push(since(start));
    }
  }

  const warmRenderMs = { plain: median(warm.plain), gzip: median(warm.gzip) };
  // Only the in-process figures wanted (`bench scrape --cold-only`): no server.
  if (values['cold-only'] === true) {
    process.stdout.write(`${JSON.stringify({ url: '', series: published.series, coldRenderMs, warmRenderMs })}\n`);
    return;
  }
  const server = new HttpServer({
    host: '127.0.0.1',
    port: 0,
    metrics: { negotiate, render: (f) => exposition.render(f), renderGzip: (f) => exposition.renderGzip(f) },
    status: { status: () => ({ state: 'running', ready: true, jobs: [], notices: [], contractMismatches: [] }) },
    version: 'bench',
  });
  const url = await server.start();
  const ready: ServerReady = { url, series: published.series, coldRenderMs, warmRenderMs };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  await server.stop();
}

await main();
