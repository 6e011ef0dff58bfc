// `promtool check metrics` on a realistic exposition. promtool (2.42 here, and
// still upstream: prometheus/prometheus#8932) parses only the text format 0.0.4,
// so the OpenMetrics exposition is checked by Prometheus' own OpenMetrics
// parser in prometheus-scrape.test.ts instead.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkMetrics } from '../../support/promtool.js';
import { realisticExposition } from './fixtures.js';

describe('promtool check metrics', () => {
  it('passes with no output on a realistic text exposition (hundreds of series, self-metrics included)', async () => {
    const exposition = realisticExposition();
    const body = (await exposition.render('text')).body.toString('utf8');
    const seriesLines = body.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(seriesLines.length).toBeGreaterThan(700);
    expect(body).toContain('edge_exporter_collector_up{collector="access"} 1');
    expect(body).toContain('process_cpu_seconds_total');
    expect(await checkMetrics(body)).toEqual({ ok: true, output: '' });
  });

  it('passes on the gzip-decoded body too', async () => {
    const gzip = await realisticExposition().renderGzip('text');
    expect(await checkMetrics(gunzipSync(gzip.body).toString('utf8'))).toEqual({ ok: true, output: '' });
  });

  it('reports problems (the helper does not pass everything)', async () => {
    const result = await checkMetrics('# TYPE edge_thing gauge\nedge_thing_total 1\n');
    expect(result.ok).toBe(false);
    expect(result.output).not.toBe('');
  });

  it('throws a clear error when promtool is missing', async () => {
    await expect(checkMetrics('', { bin: 'promtool-that-does-not-exist' })).rejects.toThrow(/not found: run scripts\/install-test-deps.sh/);
  });
});
