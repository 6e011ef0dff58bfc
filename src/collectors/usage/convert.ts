// describeL7UsageData answers of one package -> its bandwidth gauges and
// findings (the driver, series/collect.ts, counts its traffic). Pure. Bandwidth arrives as bits per second (the document
// does not say; the simulator computes bytes x 8 / bucket seconds) and is exported in bytes per second.
import type { DescribeL7UsageDataAnswer } from '../../api/index.js';
import { latestSettled, type RawPoint } from '../buckets.js';
import type { Mismatch } from '../contract/checks.js';
import { totalsFinding } from '../contract/totals.js';
import {
  bucketMs, gaugeSample, pieceSpan, seriesKey, type Converted, type CounterSpec, type Grid, type Piece, type TargetConvertInput,
} from '../series/index.js';
import { bandwidthUnitFinding, DEFAULT_UNITS, toBytesPerSecond, type BandwidthUnit } from '../units.js';
import type { Sample } from '../collector.js';
import { PACKAGE_BANDWIDTH, PACKAGE_BANDWIDTH_PEAK, PACKAGE_TRAFFIC_BYTES } from './metrics.js';

type Usage = DescribeL7UsageDataAnswer;
export type UsageTrendMetric = 'trafficTrend' | 'bandwidthTrend';

function usageItem(answer: Usage, metric: UsageTrendMetric): Usage['data'][number] | undefined {
  return answer.data.find((i) => i.metricName === metric);
}

/** Inbound traffic; undefined when the answer does not carry it. */
function inTraffic(r: Usage): readonly RawPoint[] | undefined {
  return usageItem(r, 'trafficTrend')?.objectArrayListMap?.inTraffic ?? undefined;
}

/** Outbound traffic: the vendor spells the key ouTraffic; outTraffic is read too in case that is fixed. */
function outTraffic(r: Usage): readonly RawPoint[] | undefined {
  const map = usageItem(r, 'trafficTrend')?.objectArrayListMap;
  return map?.ouTraffic ?? map?.outTraffic ?? undefined;
}

export function usageCounters(pkg: string): CounterSpec<Usage>[] {
  const spec = (direction: 'in' | 'out', points: (r: Usage) => readonly RawPoint[] | undefined): CounterSpec<Usage> => {
    const labels = { package: pkg, direction };
    return { family: PACKAGE_TRAFFIC_BYTES.name, labels, key: seriesKey(PACKAGE_TRAFFIC_BYTES.name, labels), metric: 'trafficTrend', points };
  };
  return [spec('in', inTraffic), spec('out', outTraffic)];
}

/** metricNames of a request: trafficTrend for the counters, bandwidthTrend (main request only) for the gauges. */
export function usageMetrics(specs: readonly CounterSpec<Usage>[], gaugeFamilies: readonly string[]): UsageTrendMetric[] {
  const out: UsageTrendMetric[] = [];
  if (specs.length > 0) out.push('trafficTrend');
  if (gaugeFamilies.length > 0) out.push('bandwidthTrend');
  return out;
}

interface UsageGaugeInput {
  readonly pkg: string;
  readonly lastSettled: number;
  /** Start of the newest bucket of the summary window (the peak's timestamp). */
  readonly windowBucket: number;
  readonly timestamps: boolean;
  readonly families: readonly string[];
  /** Default bits_per_second (upstream.units.bandwidth). */
  readonly bandwidthUnit?: BandwidthUnit;
}

export function usageGauges(main: Usage, input: UsageGaugeInput): Sample[] {
  const out: Sample[] = [];
  const bytes = (v: number): number => toBytesPerSecond(v, input.bandwidthUnit ?? DEFAULT_UNITS.bandwidth);
  const bw = usageItem(main, 'bandwidthTrend');
  const keys = { in: ['inBandwidth', 'maxInBandwidth'], out: ['outBandwidth', 'maxOutBandwidth'] } as const;
  for (const direction of ['in', 'out'] as const) {
    const [trend, max] = keys[direction];
    const labels = { package: input.pkg, direction };
    const latest = latestSettled(bw?.objectArrayListMap?.[trend] ?? [], input.lastSettled);
    if (latest && input.families.includes(PACKAGE_BANDWIDTH.name)) {
      out.push(gaugeSample(PACKAGE_BANDWIDTH.name, labels, bytes(latest.value), latest.start, input.timestamps));
    }
    const peak = bw?.totalMap?.[max];
    if (peak !== undefined && Number.isFinite(peak) && input.families.includes(PACKAGE_BANDWIDTH_PEAK.name)) {
      out.push(gaugeSample(PACKAGE_BANDWIDTH_PEAK.name, labels, bytes(peak), input.windowBucket, input.timestamps));
    }
  }
  return out;
}

type UsageConvertInput = TargetConvertInput<Usage, UsageGaugeInput>;

export function convertUsage(input: UsageConvertInput): Converted {
  const findings = input.pieces.flatMap((p) => usageFindings(p, input.grid, input.gauges.bandwidthUnit ?? DEFAULT_UNITS.bandwidth));
  return { gauges: input.main === undefined ? [] : usageGauges(input.main, input.gauges), findings };
}

/** What one answer says about the assumptions: traffic totals against points, bandwidth against traffic. */
function usageFindings(piece: Piece<Usage>, grid: Grid, unit: BandwidthUnit): Mismatch[] {
  const r = piece.answer;
  if (r === undefined) return [];
  const size = bucketMs(grid);
  const { end } = pieceSpan(piece, size);
  const traffic = usageItem(r, 'trafficTrend');
  const out = [
    totalsFinding(traffic?.totalMap?.inTotalTraffic, inTraffic(r), end, 'trafficTrend.totalMap.inTotalTraffic'),
    totalsFinding(traffic?.totalMap?.outTotalTraffic, outTraffic(r), end, 'trafficTrend.totalMap.outTotalTraffic'),
  ];
  const bw = usageItem(r, 'bandwidthTrend')?.objectArrayListMap?.outBandwidth;
  const out2 = outTraffic(r);
  if (bw && out2) out.push(bandwidthUnitFinding(bw, out2, size, unit, 'bandwidthTrend.outBandwidth'));
  return out.filter((f) => f !== undefined);
}
