import { describe, expect, it } from 'vitest';
import type { MetricDef } from '../../src/collectors/collector.js';
import { renderAllMetricsDocs, renderMetricsDocs, renderSelfMetricsDocs } from '../../src/exporters/metrics-docs.js';
import { SELF_METRICS } from '../../src/exporters/prometheus/self-metric-defs.js';

const traffic: MetricDef = {
  name: 'edge_domain_traffic_bytes_total',
  type: 'counter',
  help: 'Bytes served | by side.',
  unit: 'bytes',
  labels: ['domain', 'source'],
  source: { operation: 'describeL7DataV2', field: 'bytesSent / upstreamBytesSent' },
};
const attack: MetricDef = {
  name: 'edge_cc_attack_requests_total',
  type: 'counter',
  help: 'Attack requests,\naccount level.',
  unit: 'requests',
  labels: [],
  source: { operation: 'describeL7CCAttack', field: 'ccPolicyTrend' },
};

describe('renderMetricsDocs', () => {
  it('renders one row per family, in the given order, with pipes and newlines made safe', () => {
    expect(renderMetricsDocs([traffic, attack])).toBe(
      [
        '| Name | Type | Unit | Labels | Source (operation · field) | OTLP metric (name · unit · type) | Help |',
        '| --- | --- | --- | --- | --- | --- | --- |',
        '| `edge_domain_traffic_bytes_total` | counter | bytes | `domain`, `source` | `describeL7DataV2` · `bytesSent / upstreamBytesSent` | `edge_domain_traffic` · `By` · Sum (monotonic) | Bytes served \\| by side. |',
        '| `edge_cc_attack_requests_total` | counter | requests | — | `describeL7CCAttack` · `ccPolicyTrend` | `edge_cc_attack_requests` · `{request}` · Sum (monotonic) | Attack requests, account level. |',
        '',
        '',
      ].join('\n'),
    );
  });
});

describe('renderAllMetricsDocs', () => {
  const doc = renderAllMetricsDocs([
    { name: 'access', families: [traffic] },
    { name: 'cc-attack', families: [attack] },
    { name: 'empty', families: [] },
  ]);

  it('has a section per collector, in the given order, then the self-metrics', () => {
    const headings = doc.split('\n').filter((line) => line.startsWith('## '));
    expect(headings).toEqual(['## Collector `access`', '## Collector `cc-attack`', '## Collector `empty`', '## Exporter self-metrics']);
    expect(doc).toContain('_No metric families._');
  });

  it('lists every self-metric from the constants self-metrics.ts registers', () => {
    for (const m of Object.values(SELF_METRICS)) expect(doc).toContain(`| \`${m.name}\` | ${m.type} |`);
    expect(doc).toContain(renderSelfMetricsDocs());
  });

  it('is deterministic and ends with a newline', () => {
    expect(renderAllMetricsDocs([{ name: 'access', families: [traffic] }])).toBe(renderAllMetricsDocs([{ name: 'access', families: [traffic] }]));
    expect(doc.endsWith('\n')).toBe(true);
  });
});
