// logTread answers -> WAF event counters. Pure.
//
// The upstream picks logTread's bucket size from the range (not documented;
// the simulator: 1 minute up to 6 hours, 5 minutes up to 1 day, 1 hour up to
// 7 days, 1 day beyond). Rather than depend on hitting that size exactly,
// requests ask for whole configured buckets in ranges short enough that the
// upstream's buckets are no coarser than the configured interval (ranges of
// at most wafChunkBuckets), and the answer is aggregated: each point is added
// to the configured bucket containing it. A point starting before the range
// means the upstream used coarser buckets than assumed; that answer is not
// counted (the buckets are asked again next cycle).
//
// `data: null` is documented as "nothing matched" (the client gives []): the
// range is covered with zero events. Data without a logTread item covers nothing.
import type { DescribeLogV2Response } from '../../api/index.js';
import { alignDown, type BucketInterval, type Plan, type RawPoint } from '../buckets.js';
import { bucketMs, countTarget, seriesKey, type BucketRange, type CounterSpec, type Grid, type Piece, type TargetResult } from '../series/index.js';
import { SEVERITY_LABEL, SEVERITY_LEVELS, WAF_ACTIONS, WAF_EVENTS, type SeverityLevel } from './metrics.js';

/** A logTread answer and the buckets its request asked for. */
export interface WafAnswer {
  readonly range: BucketRange;
  readonly response: DescribeLogV2Response;
}

export interface Combo {
  readonly action: (typeof WAF_ACTIONS)[number];
  readonly level: SeverityLevel;
}

export function wafCombos(): Combo[] {
  return WAF_ACTIONS.flatMap((action) => SEVERITY_LEVELS.map((level) => ({ action, level })));
}

/** Most configured buckets per request so the upstream's own bucket stays no coarser than the interval. */
export function wafChunkBuckets(interval: BucketInterval): number {
  // 6 h of 1m, 1 day of 5m, 7 days of 1h; daily buckets: 7 days (hourly upstream buckets, aggregated).
  return { '1m': 360, '5m': 288, '1h': 168, '1d': 7 }[interval];
}

/** The answer's events per configured bucket; undefined when it does not cover its range. */
export function logTreadPoints(answer: WafAnswer, grid: Grid): RawPoint[] | undefined {
  const { data } = answer.response;
  if (data.length === 0) return [];
  const item = data.find((i) => i.metricName === 'logTread');
  if (item === undefined) return undefined;
  const end = answer.range.last + bucketMs(grid);
  // One upstream bucket listed twice is one bucket: the last occurrence wins, as in every other trend.
  const byTime = new Map<number, number | null>();
  for (const [t, v] of item.objectArrayList) {
    if (t < answer.range.first) return undefined;
    if (t < end) byTime.set(t, v);
  }
  const sums = new Map<number, number>();
  for (const [t, v] of byTime) {
    if (v === null) continue;
    const bucket = alignDown(grid.interval, t, grid.offsetMinutes);
    sums.set(bucket, (sums.get(bucket) ?? 0) + v);
  }
  return [...sums];
}

export function wafCounter(combo: Combo, grid: Grid): CounterSpec<WafAnswer> {
  const labels = { action: combo.action, severity: SEVERITY_LABEL[combo.level] };
  return { family: WAF_EVENTS.name, labels, key: seriesKey(WAF_EVENTS.name, labels), metric: 'logTread', points: (a) => logTreadPoints(a, grid) };
}

export function convertWaf(
  spec: CounterSpec<WafAnswer>, plans: ReadonlyMap<string, Plan>, pieces: readonly Piece<WafAnswer>[], grid: Grid, timestamps: boolean,
): TargetResult {
  const counted = countTarget([spec], plans, pieces, grid, timestamps);
  return { increments: counted.increments, watermarks: counted.watermarks, gauges: [], newestBucketEndMs: counted.newestBucketEndMs, uncovered: counted.uncovered };
}
