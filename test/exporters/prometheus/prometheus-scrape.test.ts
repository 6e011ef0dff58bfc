// A real Prometheus scrapes the exposition in both formats: its OpenMetrics parser is the
// check promtool cannot give (promtool reads only the text format).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Exposition, negotiate } from '../../../src/exporters/prometheus/exposition.js';
import { SelfMetrics } from '../../../src/exporters/prometheus/self-metrics.js';
import { serialize, type ExpositionFormat } from '../../../src/exporters/prometheus/serialize.js';
import { def, realisticStore, sample } from './fixtures.js';
import { startPrometheus, type RunningPrometheus, type TargetState } from './prometheus-server.js';

const PATHS: Readonly<Record<string, ExpositionFormat | 'negotiate'>> = { '/text': 'text', '/om': 'openmetrics', '/negotiated': 'negotiate' };
const stamped = def('edge_test_stamped_requests', 'gauge', ['domain'], 'requests', 'A gauge with an explicit timestamp.');

describe('Prometheus scraping the exposition', () => {
  const store = realisticStore(40, [stamped]);
  // Recent enough for the head block; whole milliseconds exercise the OpenMetrics fraction.
  const stampMs = Math.floor(Date.now() / 1000) * 1000 - 9_877;
  store.publish('stamped', { counters: [], gauges: new Map([[stamped.name, [sample(stamped.name, { domain: 'a' }, 5, stampMs)]]]) });
  const self = new SelfMetrics({ families: store, version: '0.1.0' });
  self.recordRetry('describeL7DataV2');
  const exposition = new Exposition({ families: store, self });
  const seen: { path: string; accept: string; encoding: string; contentType: string }[] = [];
  let server: Server;
  let prometheus: RunningPrometheus;
  let targets: TargetState[];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '';
      const mode = PATHS[path];
      if (mode === undefined) return void res.writeHead(404).end();
      const format = mode === 'negotiate' ? negotiate(req.headers.accept) : mode;
      const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
      void (gzip ? exposition.renderGzip(format) : exposition.render(format)).then(({ body, contentType }) => {
        seen.push({ path, accept: req.headers.accept ?? '', encoding: gzip ? 'gzip' : 'identity', contentType });
        res.writeHead(200, { 'content-type': contentType, ...(gzip ? { 'content-encoding': 'gzip' } : {}) }).end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const target = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    prometheus = await startPrometheus(Object.keys(PATHS).map((path) => ({ name: path.slice(1), target, path })));
    targets = await prometheus.waitForScrapes(20_000);
  }, 30_000);

  afterAll(async () => {
    await prometheus?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('accepts every scrape (text, OpenMetrics, negotiated) without error', () => {
    expect(targets.map((t) => ({ ...t })).sort((a, b) => a.job.localeCompare(b.job))).toEqual([
      { job: 'negotiated', health: 'up', lastError: '' },
      { job: 'om', health: 'up', lastError: '' },
      { job: 'text', health: 'up', lastError: '' },
    ]);
  });

  it('asks for OpenMetrics and gzip, and negotiate() picks OpenMetrics from its Accept header', () => {
    const negotiated = seen.find((s) => s.path === '/negotiated');
    expect(negotiated?.contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(negotiated?.encoding).toBe('gzip');
  });

  it.each(['text', 'om'])('%s: ingests exactly the data series exposed', async (job) => {
    const dataLines = serialize(store.snapshot(), { format: 'text' }).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    const [count] = await prometheus.query(`count({job="${job}",__name__=~"edge_.+",__name__!~"edge_exporter_.+"})`);
    expect(Number(count?.value[1])).toBe(dataLines.length);
  });

  it.each(['text', 'om'])('%s: counters, escaped label values and self-metrics arrive intact', async (job) => {
    const [traffic] = await prometheus.query(`edge_domain_traffic_bytes_total{job="${job}",domain="www1.example.com",source="edge"}`);
    expect(traffic?.value[1]).toBe('2000000');
    const [info] = await prometheus.query(`edge_package_info{job="${job}"}`);
    expect(info?.metric.name).toBe('Main "CDN" package\\n');
    const keys = (await prometheus.query(`edge_topn_requests{job="${job}"}`)).map((r) => r.metric.key).sort();
    expect(keys).toContain('/path/3?q="x"&日本');
    expect(keys).toHaveLength(20);
    const [retries] = await prometheus.query(`edge_exporter_upstream_retries_total{job="${job}"}`);
    expect(retries?.value[1]).toBe('1');
    expect(await prometheus.query(`process_cpu_seconds_total{job="${job}"}`)).toHaveLength(1);
  });

  it.each([
    ['text', 'edge_domain_traffic_bytes_total', ''],
    ['om', 'edge_domain_traffic_bytes', 'bytes'],
  ])('%s: metadata of %s (type, help, unit)', async (job, metric, unit) => {
    const metadata = await prometheus.api<{ type: string; help: string; unit: string }[]>(
      `/targets/metadata?match_target=${encodeURIComponent(`{job="${job}"}`)}&metric=${metric}`,
    );
    expect(metadata.map(({ type, help, unit: u }) => ({ type, help, unit: u }))).toEqual([
      { type: 'counter', help: 'Bytes served, by side ("edge" to clients, "origin" from the origin).', unit },
    ]);
  });

  it.each(['text', 'om'])('%s: explicit timestamps land on the same millisecond', async (job) => {
    const [stamp] = await prometheus.query(`timestamp(${stamped.name}{job="${job}"})`);
    expect(Number(stamp?.value[1])).toBe(stampMs / 1000);
  });
});
