// describeL7DataV2 answers of one domain -> its gauges and findings (the
// driver, series/collect.ts, counts its counter series). Pure. Units: bytes as reported; bandwidth is taken as bits per
// second (the document does not say; the simulator, and a traffic chart of
// that granularity, compute bytes x 8 / bucket seconds); requestTime is
// milliseconds in the upstream and seconds here.
import type { DescribeL7DataV2Answer } from '../../api/index.js';
import { latestSettled, type RawPoint } from '../buckets.js';
import type { Mismatch } from '../contract/checks.js';
import { totalsFinding } from '../contract/totals.js';
import {
  bucketMs, gaugeSample, pieceSpan, seriesKey, type Converted, type CounterSpec, type Grid, type Piece, type TargetConvertInput,
} from '../series/index.js';
import { bandwidthUnitFinding, DEFAULT_UNITS, toBytesPerSecond, toSeconds, type BandwidthUnit, type RequestTimeUnit } from '../units.js';
import type { Sample } from '../collector.js';
import {
  CODE_CLASSES, DOMAIN_BANDWIDTH, DOMAIN_BANDWIDTH_P95, DOMAIN_BANDWIDTH_PEAK, DOMAIN_REQUEST_TIME, DOMAIN_REQUESTS,
  DOMAIN_RESPONSES, DOMAIN_TRAFFIC_BYTES, type Source,
} from './metrics.js';

type V2 = DescribeL7DataV2Answer;
type V2Item = V2['data'][number];
type SeriesName = 'upstreamBytesSent' | 'totalBytesSent' | 'bytesSent' | 'requestCounter' | 'list1xx' | 'list2xx' | 'list3xx' | 'list4xx' | 'list5xx' | 'requestTime';

export type V2TrendMetric = 'trafficTrend' | 'bandwidthTrend' | 'requestTrend' | 'statusCodeTrend' | 'requestTimeTrend';
/** Request order of the metricNames (the answer follows it, but items are looked up by name). */
const V2_METRIC_ORDER: readonly V2TrendMetric[] = ['trafficTrend', 'bandwidthTrend', 'requestTrend', 'statusCodeTrend', 'requestTimeTrend'];

const BYTES_KEY: Readonly<Record<Source, 'bytesSent' | 'upstreamBytesSent'>> = { edge: 'bytesSent', origin: 'upstreamBytesSent' };

function v2Item(answer: V2, metric: V2TrendMetric): V2Item | undefined {
  return answer.data.find((i) => i.metricName === metric);
}

/** A series of a metric item; undefined when the item or its key is missing (the answer does not cover it). */
function v2Points(answer: V2, metric: V2TrendMetric, key: SeriesName): readonly RawPoint[] | undefined {
  return v2Item(answer, metric)?.objectArrayListMap?.[key] ?? undefined;
}

/**
 * A class, not an object with a `points` closure: a cycle builds one per
 * counter series of every domain up front and holds it until it closes, and
 * a closure and its context (with the name property a build may give it)
 * cost several times the object.
 */
class V2Spec implements CounterSpec<V2> {
  readonly key: string;

  constructor(readonly family: string, readonly labels: Record<string, string>, readonly metric: V2TrendMetric, private readonly series: SeriesName) {
    this.key = seriesKey(family, labels);
  }

  points(r: V2): readonly RawPoint[] | undefined {
    return v2Points(r, this.metric, this.series);
  }
}

function spec(family: string, labels: Record<string, string>, metric: V2TrendMetric, key: SeriesName): CounterSpec<V2> {
  return new V2Spec(family, labels, metric, key);
}

/** Every counter series of a domain (the caller drops denied families). */
export function accessCounters(domain: string): CounterSpec<V2>[] {
  return [
    spec(DOMAIN_TRAFFIC_BYTES.name, { domain, source: 'edge' }, 'trafficTrend', 'bytesSent'),
    spec(DOMAIN_TRAFFIC_BYTES.name, { domain, source: 'origin' }, 'trafficTrend', 'upstreamBytesSent'),
    spec(DOMAIN_REQUESTS.name, { domain }, 'requestTrend', 'requestCounter'),
    ...CODE_CLASSES.map((c) => spec(DOMAIN_RESPONSES.name, { domain, code_class: c }, 'statusCodeTrend', `list${c}`)),
  ];
}

/** Gauge families and the metric that feeds them. */
const V2_GAUGES: ReadonlyArray<readonly [string, V2TrendMetric]> = [
  [DOMAIN_BANDWIDTH.name, 'bandwidthTrend'],
  [DOMAIN_BANDWIDTH_PEAK.name, 'bandwidthTrend'],
  [DOMAIN_BANDWIDTH_P95.name, 'bandwidthTrend'],
  [DOMAIN_REQUEST_TIME.name, 'requestTimeTrend'],
];

/** metricNames a request needs: those of the enabled counter series, plus (main request only) of the enabled gauges. */
export function v2Metrics(specs: readonly CounterSpec<V2>[], gaugeFamilies: readonly string[]): V2TrendMetric[] {
  const wanted = new Set<string>(specs.map((s) => s.metric));
  for (const [family, metric] of V2_GAUGES) if (gaugeFamilies.includes(family)) wanted.add(metric);
  return V2_METRIC_ORDER.filter((m) => wanted.has(m));
}

export interface GaugeInput {
  readonly domain: string;
  /** Start of the newest settled bucket: the latest-bucket gauges show it. */
  readonly lastSettled: number;
  /** Start of the newest bucket of the summary window: window gauges (peak, p95) are stamped with it. */
  readonly windowBucket: number;
  readonly timestamps: boolean;
  /** Enabled gauge families. */
  readonly families: readonly string[];
  /** Default bits_per_second (upstream.units.bandwidth). */
  readonly bandwidthUnit?: BandwidthUnit;
  /** Default milliseconds (upstream.units.request_time). */
  readonly requestTimeUnit?: RequestTimeUnit;
}

export function accessGauges(main: V2, input: GaugeInput): Sample[] {
  const out: Sample[] = [];
  const { domain, timestamps } = input;
  const add = (family: string, labels: Record<string, string>, value: number | undefined, at: number | undefined): void => {
    if (value !== undefined && Number.isFinite(value) && input.families.includes(family)) out.push(gaugeSample(family, labels, value, at, timestamps));
  };
  const bw = v2Item(main, 'bandwidthTrend');
  for (const source of ['edge', 'origin'] as const) {
    const key = BYTES_KEY[source];
    const labels = { domain, source };
    const latest = latestSettled(bw?.objectArrayListMap?.[key] ?? [], input.lastSettled);
    const peak = bw?.maxMap?.[key];
    const p95 = bw?.maxMap?.[`${key}95Peak`];
    const bytes = (v: number | undefined): number | undefined => (v === undefined ? undefined : toBytesPerSecond(v, input.bandwidthUnit ?? DEFAULT_UNITS.bandwidth));
    add(DOMAIN_BANDWIDTH.name, labels, bytes(latest?.value), latest?.start);
    add(DOMAIN_BANDWIDTH_PEAK.name, labels, bytes(peak), input.windowBucket);
    add(DOMAIN_BANDWIDTH_P95.name, labels, bytes(p95), input.windowBucket);
  }
  const rt = latestSettled(v2Points(main, 'requestTimeTrend', 'requestTime') ?? [], input.lastSettled);
  add(DOMAIN_REQUEST_TIME.name, { domain }, rt === undefined ? undefined : toSeconds(rt.value, input.requestTimeUnit ?? DEFAULT_UNITS.request_time), rt?.start);
  return out;
}

export type ConvertInput<R> = TargetConvertInput<R, GaugeInput>;

/** One domain's gauges (from the main answer only) and the findings of every answer. */
export function convertAccessV2(input: ConvertInput<V2>): Converted {
  const findings = input.pieces.flatMap((p) => v2Findings(p, input.grid, input.gauges.bandwidthUnit ?? DEFAULT_UNITS.bandwidth));
  return { gauges: input.main === undefined ? [] : accessGauges(input.main, input.gauges), findings };
}

type TotalKey = 'bytesSent' | 'upstreamBytesSent' | 'requestCounter' | (typeof CODE_CLASSES)[number];
const TOTAL_KEYS: ReadonlyArray<readonly [V2TrendMetric, SeriesName, TotalKey]> = [
  ['trafficTrend', 'bytesSent', 'bytesSent'],
  ['trafficTrend', 'upstreamBytesSent', 'upstreamBytesSent'],
  ['requestTrend', 'requestCounter', 'requestCounter'],
  ...CODE_CLASSES.map((c) => ['statusCodeTrend', `list${c}`, c] as const),
];

/** What one answer says about the assumptions: totals against points, bandwidth against traffic. */
function v2Findings(piece: Piece<V2>, grid: Grid, unit: BandwidthUnit): Mismatch[] {
  const r = piece.answer;
  if (r === undefined) return [];
  const size = bucketMs(grid);
  const { end } = pieceSpan(piece, size);
  const out: Mismatch[] = [];
  for (const [metric, key, total] of TOTAL_KEYS) {
    const f = totalsFinding(v2Item(r, metric)?.totalMap?.[total], v2Points(r, metric, key), end, `${metric}.totalMap.${total}`);
    if (f) out.push(f);
  }
  const bw = v2Points(r, 'bandwidthTrend', 'bytesSent');
  const traffic = v2Points(r, 'trafficTrend', 'bytesSent');
  const unitFinding = bw && traffic ? bandwidthUnitFinding(bw, traffic, size, unit, 'bandwidthTrend.bytesSent') : undefined;
  if (unitFinding) out.push(unitFinding);
  return out;
}
