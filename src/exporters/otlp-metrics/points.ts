// Pages -> one OTLP ResourceMetrics: the export request's content, before
// encoding. Pure. A history page's samples are points that already carry
// their start and end (the pipe's sampler chose them: the bucket's, or the
// series'); a snapshot page's points carry theirs too (snapshot.ts). Each
// family becomes one metric of the request (otlpMetricName), each series'
// labels its attributes, cut as /metrics cuts them, so one series is one
// series on every pipe.
import { ValueType, type HrTime } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type DataPoint, type Histogram, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { Temporality } from '../../counters/index.js';
import { capLabelValue, wellFormedLabelValue } from '../prometheus/naming.js';
import type { FamilyDef } from '../prometheus/serialize.js';
import type { HistoryPage } from '../push/source.js';
import { otlpMetricName } from './naming.js';

/** A point of a family that has no upstream bucket (the exporter's own, process, WAF events), as a snapshot took it. */
export interface SnapshotPoint {
  readonly def: FamilyDef;
  readonly labels: Readonly<Record<string, string>>;
  readonly startMs: number;
  readonly timeMs: number;
  /** A counter's value in the temporality, a gauge's value; a histogram's count. */
  readonly value: number;
  /** Histograms: per-bucket counts (not cumulative), one more than def.buckets, and the sum. */
  readonly histogram?: { readonly counts: readonly number[]; readonly sum: number };
}

/** A page the OTLP sender pushes: a history page, or a snapshot page whose points are in `snapshot`. */
export type OtlpPage = HistoryPage & { readonly snapshot?: readonly SnapshotPoint[] };

export interface PointsContext {
  readonly resource: Resource;
  readonly scope: { readonly name: string; readonly version: string; readonly schemaUrl: string };
  /** The temporality of a page that does not say its own (a snapshot's, in the sender's temporality). */
  readonly temporality: Temporality;
  /** The definition of a family by name (data and self families); undefined for one no longer defined. */
  readonly def: (name: string) => FamilyDef | undefined;
  readonly maxLabelValueLength: number;
}

/** Epoch ms as the SDK's [seconds, nanoseconds]. */
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/** A family no longer defined (a reload removed it while its points waited): a counter by Prometheus' `_total` rule, else a gauge. */
function fallbackDef(name: string): FamilyDef {
  return { name, type: name.endsWith('_total') ? 'counter' : 'gauge', help: '', unit: '', labels: [] };
}

/** One metric of the request as it is gathered: a histogram family's points carry histograms, every other's numbers. */
interface Building {
  readonly def: FamilyDef;
  readonly temporality: Temporality;
  readonly numbers: DataPoint<number>[];
  readonly histograms: DataPoint<Histogram>[];
}

export function toResourceMetrics(pages: readonly OtlpPage[], context: PointsContext): ResourceMetrics {
  const cap = (value: string): string => capLabelValue(wellFormedLabelValue(value), context.maxLabelValueLength);
  const attributes = (labels: Readonly<Record<string, string>>): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(labels)) out[name] = cap(value);
    return out;
  };
  // A family's points in one temporality per metric: pages made before a change of it keep theirs.
  const families = new Map<string, Building>();
  const family = (def: FamilyDef, temporality: Temporality): Building => {
    const key = `${def.name} ${temporality}`;
    let building = families.get(key);
    if (building === undefined) {
      building = { def, temporality, numbers: [], histograms: [] };
      families.set(key, building);
    }
    return building;
  };
  for (const page of pages) {
    const temporality = page.tag === 'delta' || page.tag === 'cumulative' ? page.tag : context.temporality;
    if (page.snapshot !== undefined) {
      for (const p of page.snapshot) {
        const at = { startTime: hrTime(p.startMs), endTime: hrTime(p.timeMs), attributes: attributes(p.labels) };
        const building = family(p.def, temporality);
        if (p.histogram === undefined) building.numbers.push({ ...at, value: p.value });
        else {
          const buckets = { boundaries: [...(p.def.buckets ?? [])], counts: [...p.histogram.counts] };
          building.histograms.push({ ...at, value: { buckets, sum: p.histogram.sum, count: p.value } });
        }
      }
      continue;
    }
    for (const s of page.samples) {
      const def = context.def(s.name) ?? fallbackDef(s.name);
      family(def, temporality).numbers.push({ startTime: hrTime(s.startMs ?? s.timestampMs), endTime: hrTime(s.timestampMs), attributes: attributes(s.labels), value: s.value });
    }
  }
  const metrics: MetricData[] = [...families.values()].map(({ def, numbers, histograms, temporality: kind }) => {
    const temporality = kind === 'delta' ? AggregationTemporality.DELTA : AggregationTemporality.CUMULATIVE;
    const { name, unit, description } = otlpMetricName(def);
    const descriptor = { name, unit, description, valueType: ValueType.DOUBLE };
    switch (def.type) {
      case 'counter':
        return { descriptor, aggregationTemporality: temporality, dataPointType: DataPointType.SUM, isMonotonic: true, dataPoints: numbers };
      case 'histogram':
        return { descriptor, aggregationTemporality: temporality, dataPointType: DataPointType.HISTOGRAM, dataPoints: histograms };
      case 'gauge':
        return { descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.GAUGE, dataPoints: numbers };
    }
  });
  return { resource: context.resource, scopeMetrics: [{ scope: context.scope, metrics }] };
}
