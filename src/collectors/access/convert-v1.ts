// describeL7Data (the resource-monitoring variant, `api: v1`) -> the same
// families as v2 where it has the data. Its terminal selects the side, so a
// span takes one request per terminal (cdn: edge traffic and requests;
// source: origin traffic), made together. Only the sample's array form
// carries trends; the object form of the field table has none and covers
// nothing. The peak is the highest bucket of the bandwidth trend in the
// window, which is what maxMap reports in v2; there is no percentile in v1.
import type { DescribeL7DataAnswer } from '../../api/index.js';
import { latestSettled, type RawPoint } from '../buckets.js';
import { bucketMs, gaugeSample, seriesKey, type Converted, type CounterSpec } from '../series/index.js';
import { bandwidthUnitFinding, DEFAULT_UNITS, toBytesPerSecond } from '../units.js';
import type { Sample } from '../collector.js';
import type { ConvertInput, GaugeInput } from './convert.js';
import { DOMAIN_BANDWIDTH, DOMAIN_BANDWIDTH_PEAK, DOMAIN_REQUESTS, DOMAIN_TRAFFIC_BYTES } from './metrics.js';

type V1 = DescribeL7DataAnswer;
export type Terminal = 'cdn' | 'source';
export type V1TrendMetric = 'trafficTrend' | 'bandwidthTrend' | 'requestTrend';
/** One span's answers, by terminal; a terminal no enabled family needs is not asked. */
export type V1Pair = Partial<Record<Terminal, V1>>;

const TERMINAL_OF = { edge: 'cdn', origin: 'source' } as const;
const ORDER: readonly V1TrendMetric[] = ['trafficTrend', 'bandwidthTrend', 'requestTrend'];

/** The trend of a metric; undefined when the answer holds no such item (or is the object form). */
export function v1Trend(answer: V1 | undefined, metric: V1TrendMetric): readonly RawPoint[] | undefined {
  if (answer === undefined || !Array.isArray(answer.data)) return undefined;
  const item = answer.data.find((i) => i.metricName === metric);
  const data = item?.data;
  if (data === undefined || data === null || Array.isArray(data)) return undefined;
  return data.trend;
}

function spec(family: string, labels: Record<string, string>, terminal: Terminal, metric: V1TrendMetric): CounterSpec<V1Pair> {
  return { family, labels, key: seriesKey(family, labels), metric: `${terminal}.${metric}`, points: (p) => v1Trend(p[terminal], metric) };
}

export function accessV1Counters(domain: string): CounterSpec<V1Pair>[] {
  return [
    spec(DOMAIN_TRAFFIC_BYTES.name, { domain, source: 'edge' }, 'cdn', 'trafficTrend'),
    spec(DOMAIN_TRAFFIC_BYTES.name, { domain, source: 'origin' }, 'source', 'trafficTrend'),
    spec(DOMAIN_REQUESTS.name, { domain }, 'cdn', 'requestTrend'),
  ];
}

const V1_GAUGES = [DOMAIN_BANDWIDTH.name, DOMAIN_BANDWIDTH_PEAK.name];

/** metricNames per terminal: the enabled counters', plus bandwidthTrend on both terminals when a bandwidth gauge is enabled (main only). */
export function v1Metrics(specs: readonly CounterSpec<V1Pair>[], gaugeFamilies: readonly string[]): Partial<Record<Terminal, V1TrendMetric[]>> {
  const wanted = new Set(specs.map((s) => s.metric));
  if (gaugeFamilies.some((f) => V1_GAUGES.includes(f))) ['cdn.bandwidthTrend', 'source.bandwidthTrend'].forEach((m) => wanted.add(m));
  const out: Partial<Record<Terminal, V1TrendMetric[]>> = {};
  for (const terminal of ['cdn', 'source'] as const) {
    const metrics = ORDER.filter((m) => wanted.has(`${terminal}.${m}`));
    if (metrics.length > 0) out[terminal] = metrics;
  }
  return out;
}

export function accessV1Gauges(main: V1Pair, input: GaugeInput): Sample[] {
  const out: Sample[] = [];
  const bytes = (v: number): number => toBytesPerSecond(v, input.bandwidthUnit ?? DEFAULT_UNITS.bandwidth);
  for (const source of ['edge', 'origin'] as const) {
    const points = v1Trend(main[TERMINAL_OF[source]], 'bandwidthTrend');
    if (points === undefined) continue;
    const labels = { domain: input.domain, source };
    const latest = latestSettled(points, input.lastSettled);
    if (latest && input.families.includes(DOMAIN_BANDWIDTH.name)) {
      out.push(gaugeSample(DOMAIN_BANDWIDTH.name, labels, bytes(latest.value), latest.start, input.timestamps));
    }
    const values = points.flatMap(([, v]) => (v !== null && Number.isFinite(v) ? [v] : []));
    if (values.length > 0 && input.families.includes(DOMAIN_BANDWIDTH_PEAK.name)) {
      // Not Math.max(...values): an answer with a few hundred thousand points would overflow the call stack.
      const peak = values.reduce((a, b) => (b > a ? b : a), -Infinity);
      out.push(gaugeSample(DOMAIN_BANDWIDTH_PEAK.name, labels, bytes(peak), input.windowBucket, input.timestamps));
    }
  }
  return out;
}

/** One domain's gauges and findings (the main answer's). */
export function convertAccessV1(input: ConvertInput<V1Pair>): Converted {
  const gauges = input.main === undefined ? [] : accessV1Gauges(input.main, input.gauges);
  const unit = input.gauges.bandwidthUnit ?? DEFAULT_UNITS.bandwidth;
  // The cdn terminal's bandwidth against its traffic, in the main answer (the only one asking for bandwidth).
  const bw = input.main && v1Trend(input.main.cdn, 'bandwidthTrend');
  const traffic = input.main && v1Trend(input.main.cdn, 'trafficTrend');
  const finding = bw && traffic ? bandwidthUnitFinding(bw, traffic, bucketMs(input.grid), unit, 'cdn.bandwidthTrend') : undefined;
  return { gauges, findings: finding ? [finding] : [] };
}
