// logTread answers -> the WAF event counters' series (counted by the
// driver, series/collect.ts) and the findings of each answer. Pure.
//
// The upstream picks logTread's bucket size itself (not documented; the
// simulator: 1 minute up to 6 hours, 5 minutes up to 1 day, 1 hour up to 7
// days, 1 day beyond). Requests ask for whole configured buckets in ranges
// short enough that, read that way, the upstream's buckets are no coarser than
// the configured interval (at most wafChunkBuckets); finer ones are summed into
// the configured bucket. An upstream that answers coarser buckets anyway is
// read as it answers (series/count.ts): each coarse bucket is counted whole
// once it has settled, and the mismatch is reported (bucket_width); from then
// on the ranges begin on its grid (ranges.ts), so the counters move on every
// reading of a range. An upstream may also list a coarse bucket only once it
// is complete: an answer with data but no bucket yet is pending (it waits),
// and the absent bucket in progress is not read as a clock behind
// (series/answer.ts).
//
// `data: null` is documented as "nothing matched" (the client gives []): the
// range is covered with zero events. Data without a logTread item covers nothing.
import type { DescribeLogV2Answer } from '../../api/index.js';
import type { BucketInterval, RawPoint } from '../buckets.js';
import type { Mismatch } from '../contract/checks.js';
import { layoutOf } from '../contract/series-layout.js';
import { totalsFinding } from '../contract/totals.js';
import { bucketMs, pieceSpan, seriesKey, type BucketRange, type CounterSpec, type Grid, type Piece } from '../series/index.js';
import { SEVERITY_LABEL, SEVERITY_LEVELS, WAF_ACTIONS, WAF_EVENTS, type SeverityLevel } from './metrics.js';

/** A logTread answer (`tread`) and the buckets its request asked for. */
export interface WafAnswer {
  readonly range: BucketRange;
  readonly tread: DescribeLogV2Answer;
}

export interface Combo {
  readonly action: (typeof WAF_ACTIONS)[number];
  readonly level: SeverityLevel;
}

export function wafCombos(): Combo[] {
  return WAF_ACTIONS.flatMap((action) => SEVERITY_LEVELS.map((level) => ({ action, level })));
}

/**
 * Most configured buckets per request so the upstream's own bucket stays no
 * coarser than the interval (the last chunk reaches on to now: leave room).
 */
export function wafChunkBuckets(interval: BucketInterval): number {
  // 6 h of 1m, 1 day of 5m, 7 days of 1h; daily buckets: 7 days (hourly upstream buckets, aggregated).
  return { '1m': 360, '5m': 288, '1h': 168, '1d': 7 }[interval];
}

/** The upstream's own bucket grid, as this cycle's other answers show it: width and one bucket start. */
export interface Grain {
  readonly width: number;
  readonly anchor: number;
}

/**
 * The answer's logTread points; undefined without a logTread item. Nothing
 * matched (`data: null`) is a zero for every bucket asked, on the upstream's
 * own grid when the cycle's other answers show one coarser than ours: a zero
 * must not claim part of a coarse bucket whose events may still come.
 */
export function logTreadPoints(answer: WafAnswer, grid: Grid, grain?: Grain): readonly RawPoint[] | undefined {
  const { data } = answer.tread;
  if (data.length === 0) {
    const size = bucketMs(grid);
    const step = grain !== undefined && grain.width > size ? grain.width : size;
    const first = step === size ? answer.range.first : grain === undefined ? answer.range.first : grain.anchor + Math.floor((answer.range.first - grain.anchor) / step) * step;
    const zeros: RawPoint[] = [];
    for (let t = first; t <= answer.range.last; t += step) zeros.push([t, 0]);
    return zeros;
  }
  return data.find((i) => i.metricName === 'logTread')?.objectArrayList;
}

/** The coarsest grid the answers with points show (the upstream picks one per range length); undefined when none has points. */
export function grainOf(pieces: readonly Piece<WafAnswer>[], grid: Grid): Grain | undefined {
  const size = bucketMs(grid);
  let best: Grain | undefined;
  for (const p of pieces) {
    const points = p.answer?.tread.data.find((i) => i.metricName === 'logTread')?.objectArrayList;
    if (p.answer === undefined || points === undefined || points.length === 0) continue;
    const span = pieceSpan(p, size);
    const layout = layoutOf(points, span, size, true);
    const anchor = layout.inRange[0]?.[0];
    if (anchor !== undefined && (best === undefined || layout.width > best.width)) best = { width: layout.width, anchor };
  }
  return best;
}

/** `count` against the sum of the points: the totals check of one answer. */
function logTreadFinding(answer: WafAnswer, grid: Grid): Mismatch | undefined {
  const item = answer.tread.data.find((i) => i.metricName === 'logTread');
  return totalsFinding(item?.count ?? undefined, item?.objectArrayList, answer.range.last + bucketMs(grid), 'logTread.count');
}

/** `grain`: the upstream's grain in force, read when the series is read (fixed once a cycle's probe has answered: index.ts). */
export function wafCounter(combo: Combo, grid: Grid, grain: () => Grain | undefined = () => undefined): CounterSpec<WafAnswer> {
  const labels = { action: combo.action, severity: SEVERITY_LABEL[combo.level] };
  return {
    family: WAF_EVENTS.name, labels, key: seriesKey(WAF_EVENTS.name, labels), metric: 'logTread', finerBuckets: true, points: (a) => logTreadPoints(a, grid, grain()),
    pending: (a) => listsNothingYet(a, grid, grain()),
  };
}

/**
 * Something matched (`data` is not null) but logTread lists no bucket: the
 * buckets holding the matches are not listed yet (an upstream that lists a
 * bucket only once complete, or only those beginning inside the range), so
 * the series waits instead of reading the range as empty. Only while no whole
 * bucket of the grain seen begins inside the range and has ended by its end:
 * one would be listed, zeros included, so the range is then read as the other
 * answers show it.
 */
function listsNothingYet(answer: WafAnswer, grid: Grid, grain: Grain | undefined): boolean {
  const { data } = answer.tread;
  if (data.length === 0 || data.find((i) => i.metricName === 'logTread')?.objectArrayList.length !== 0) return false;
  if (grain === undefined) return true;
  const { first, last } = answer.range;
  const whole = grain.anchor + Math.ceil((first - grain.anchor) / grain.width) * grain.width;
  return whole + grain.width > last + bucketMs(grid);
}

/** What a series' answers contradict: each answer's count against its points. Never a count (the driver counts). */
export function wafFindings(pieces: readonly Piece<WafAnswer>[], grid: Grid): Mismatch[] {
  return pieces.flatMap((p) => (p.answer === undefined ? [] : [logTreadFinding(p.answer, grid)])).filter((f) => f !== undefined);
}
