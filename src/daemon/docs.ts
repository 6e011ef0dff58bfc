// docs/metrics.md, generated from the collectors' metric definitions (with
// the default config, so it lists what a default install exports) and the
// self-metric table. A test fails when the committed file differs.
import { allCollectors } from './wiring/collectors.js';
import { configSchema, resolveCollectorOptions } from '../config/index.js';
import { renderAllMetricsDocs } from '../exporters/metrics-docs.js';
import { WAF_EVENTS_JOB, WAF_EVENTS_FAMILIES } from '../forwarder/index.js';

export function renderMetricsReference(): string {
  const defaults = configSchema.parse({ simulator: { enabled: true } });
  const wafEvents = { name: WAF_EVENTS_JOB, families: WAF_EVENTS_FAMILIES };
  return renderAllMetricsDocs([...allCollectors(resolveCollectorOptions(defaults)), wafEvents]);
}
