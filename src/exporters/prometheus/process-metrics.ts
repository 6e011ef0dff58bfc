// prom-client's Node.js process metrics (process_*, nodejs_*), the one place prom-client is used: it collects, the project's serializer renders.
import { Registry, collectDefaultMetrics } from 'prom-client';
import { seriesKey } from '../../collectors/index.js';
import type { FamilyDef, FamilySnapshot, SeriesSnapshot } from './serialize.js';

/**
 * prom-client default metrics left out: gauges named `_total` (promtool
 * rejects them) that only sum their per-type siblings; and
 * nodejs_eventloop_lag_seconds, which waits for a setImmediate on every
 * collect (about 0.4 ms added to each scrape) while the
 * nodejs_eventloop_lag_{min,max,mean,p50,p90,p99}_seconds gauges already
 * report the loop's lag from a continuous histogram.
 */
export const EXCLUDED_PROCESS_METRICS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
  'nodejs_eventloop_lag_seconds',
] as const;

/** What getMetricsAsJSON returns at run time (its typings declare `type` a numeric enum; it is the type's name). */
interface CollectedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: unknown;
  readonly values: readonly CollectedValue[];
}

interface CollectedValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number | undefined>>;
  readonly metricName?: string;
}

/**
 * One registry for both formats: only its values are read, so prom-client's
 * OpenMetrics rendering (which renames counters in place, and once needed a
 * second registry per format) is never used.
 */
export class ProcessMetrics {
  private readonly registry = new Registry();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    for (const name of EXCLUDED_PROCESS_METRICS) this.registry.removeSingleMetric(name);
  }

  /** Collects now; families in prom-client's order, each family's series as collected. */
  async snapshot(): Promise<FamilySnapshot[]> {
    return familiesOf(await this.registry.getMetricsAsJSON());
  }

  /**
   * Empties the registry, for a daemon stopped in a process that goes on:
   * prom-client's GC observer keeps its histogram, and through it the
   * registry and every metric in it, alive for good.
   */
  close(): void {
    this.registry.clear();
  }
}

/** A prom-client registry's getMetricsAsJSON() as families of the project's model. */
export function familiesOf(collected: readonly CollectedMetric[]): FamilySnapshot[] {
  return collected.flatMap((metric) => {
    const type = String(metric.type);
    if (type === 'counter' || type === 'gauge') return [plainFamily(metric, type)];
    if (type === 'histogram') return [histogramFamily(metric)];
    return []; // no default metric is a summary
  });
}

function plainFamily(metric: CollectedMetric, type: 'counter' | 'gauge'): FamilySnapshot {
  const labels = labelNames(metric.values);
  const def: FamilyDef = { name: metric.name, type, help: metric.help, unit: '', labels };
  return { def, series: metric.values.map((v) => ({ labelValues: labels.map((l) => String(v.labels[l] ?? '')), value: v.value })) };
}

/** Regroups the flat `_bucket`/`_sum`/`_count` values into one series per label set. */
function histogramFamily(metric: CollectedMetric): FamilySnapshot {
  const labels = labelNames(metric.values);
  const buckets: number[] = [];
  const groups = new Map<string, { labelValues: string[]; cumulative: number[]; sum: number; count: number }>();
  for (const v of metric.values) {
    const labelValues = labels.map((l) => String(v.labels[l] ?? ''));
    const key = seriesKey(metric.name, Object.fromEntries(labels.map((l, i) => [l, labelValues[i] ?? ''])));
    let group = groups.get(key);
    if (group === undefined) {
      group = { labelValues, cumulative: [], sum: 0, count: 0 };
      groups.set(key, group);
    }
    if (v.metricName === `${metric.name}_sum`) group.sum = v.value;
    else if (v.metricName === `${metric.name}_count`) group.count = v.value;
    else if (v.labels.le !== '+Inf') {
      if (groups.size === 1) buckets.push(Number(v.labels.le));
      group.cumulative.push(v.value);
    }
  }
  const def: FamilyDef = { name: metric.name, type: 'histogram', help: metric.help, unit: '', labels, buckets };
  const series: SeriesSnapshot[] = [...groups.values()].map((g) => ({ labelValues: g.labelValues, value: g.count, histogram: { cumulative: g.cumulative, sum: g.sum } }));
  return { def, series };
}

/** Label names in the order prom-client reported them, `le` aside. */
function labelNames(values: readonly CollectedValue[]): string[] {
  const names = new Set<string>();
  for (const v of values) for (const name of Object.keys(v.labels)) if (name !== 'le') names.add(name);
  return [...names];
}
