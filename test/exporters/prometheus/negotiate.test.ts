import { describe, expect, it } from 'vitest';
import { negotiate } from '../../../src/exporters/prometheus/negotiate.js';

describe('negotiate', () => {
  it.each([
    ['no header', undefined, 'text'],
    ['empty header', '', 'text'],
    ['anything', '*/*', 'text'],
    ['a browser', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text'],
    ['text only', 'text/plain; version=0.0.4', 'text'],
    ['OpenMetrics, no version', 'application/openmetrics-text', 'openmetrics'],
    ['OpenMetrics 1.0.0', 'application/openmetrics-text; version=1.0.0; charset=utf-8', 'openmetrics'],
    ['OpenMetrics 0.0.1', 'application/openmetrics-text;version=0.0.1', 'openmetrics'],
    ['media type case-insensitive', 'Application/OpenMetrics-Text; Version=1.0.0', 'openmetrics'],
    ['quoted version', 'application/openmetrics-text; version="1.0.0"', 'openmetrics'],
    ['an OpenMetrics version we do not serve', 'application/openmetrics-text; version=2.0.0, text/plain;q=0.1', 'text'],
    ['OpenMetrics refused with q=0', 'application/openmetrics-text;q=0, */*', 'text'],
    ['text preferred by q', 'text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5', 'text'],
    ['OpenMetrics preferred by q', 'text/plain;q=0.5,application/openmetrics-text;q=0.6', 'openmetrics'],
    ['equal q: the earlier entry wins', 'text/plain;q=0.5,application/openmetrics-text;q=0.5', 'text'],
    ['an invalid q counts as 0', 'application/openmetrics-text;q=high, text/plain;q=0.1', 'text'],
    [
      'Prometheus 2.x scrape header',
      'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
      'openmetrics',
    ],
    [
      'Prometheus 3.x scrape header (protobuf first, which we do not serve)',
      'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2',
      'openmetrics',
    ],
    ['Prometheus with scrape_protocols text only', 'text/plain;version=0.0.4;q=0.5,*/*;q=0.1', 'text'],
  ])('%s -> %s', (_, accept, expected) => {
    expect(negotiate(accept)).toBe(expected);
  });
});
