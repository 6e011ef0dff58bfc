// prom-client collects the process metrics; the project's serializer renders
// them. What it renders must be what prom-client itself would have written.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ProcessMetrics, familiesOf } from '../../../src/exporters/prometheus/process-metrics.js';
import { serialize } from '../../../src/exporters/prometheus/serialize.js';

/** Sample lines, order aside (the serializer sorts series; prom-client keeps insertion order). */
const sampleLines = (text: string): string[] => text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).sort();
const metadata = (text: string): string[] => text.split('\n').filter((line) => line.startsWith('# HELP') || line.startsWith('# TYPE')).sort();

describe('process metrics', () => {
  it("render as prom-client renders the same registry: counters, labelled gauges, histograms (le first, +Inf, _sum, _count)", async () => {
    const registry = new Registry();
    const registers = [registry];
    new Counter({ name: 'process_test_seconds_total', help: 'A counter.', registers }).inc(1.5);
    const gauge = new Gauge({ name: 'nodejs_test_bytes', help: 'A gauge.', labelNames: ['space', 'major'], registers });
    gauge.set({ space: 'old', major: '20' }, 7);
    gauge.set({ space: 'new', major: '20' }, 3);
    const histogram = new Histogram({ name: 'nodejs_test_duration_seconds', help: 'A histogram.', labelNames: ['kind'], buckets: [0.001, 0.1, 1], registers });
    for (const [kind, seconds] of [['minor', 0.0005], ['minor', 0.05], ['major', 2], ['minor', 0.5]] as const) histogram.observe({ kind }, seconds);
    new Histogram({ name: 'nodejs_test_empty_seconds', help: 'Never observed.', labelNames: ['kind'], registers });

    const theirs = await registry.metrics();
    const ours = serialize(familiesOf(await registry.getMetricsAsJSON()), { format: 'text', keepEmpty: true });
    expect(sampleLines(ours)).toEqual(sampleLines(theirs));
    expect(metadata(ours)).toEqual(metadata(theirs));
    expect(ours).toContain('nodejs_test_duration_seconds_bucket{le="0.001",kind="minor"} 1\nnodejs_test_duration_seconds_bucket{le="0.1",kind="minor"} 2\n');
  });

  it('leave out the excluded metrics, and close() empties them', async () => {
    const processMetrics = new ProcessMetrics();
    const names = (await processMetrics.snapshot()).map((f) => f.def.name);
    expect(names).toContain('process_cpu_seconds_total');
    expect(names).not.toContain('nodejs_active_handles_total');
    expect(names).not.toContain('nodejs_eventloop_lag_seconds');
    processMetrics.close();
    expect(await processMetrics.snapshot()).toEqual([]);
  });
});
