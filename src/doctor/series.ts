// bucket_width and missing_buckets: how each trend answer is spaced and
// whether it lists every bucket. One window per statistics collector, at its
// interval, 30 buckets ending at the newest settled one (what the daemon would
// count now); and logTread over 30 minutes and over a day, because the
// upstream picks logTread's bucket from the range.
import { alignDown, INTERVAL_MS } from '../collectors/buckets.js';
import { seconds } from '../collectors/contract/checks.js';
import { layoutOf } from '../collectors/contract/series-layout.js';
import { whyNot, type Answer, type Prober } from './probe.js';
import type { DoctorSetup, StatsSource } from './setup.js';
import { askLogTread, askStats, type Span } from './requests.js';
import type { Trend } from './trends.js';
import { combine, type CheckResult, type Part } from './types.js';
import { DAY_MS, MINUTE_MS } from '../api/time.js';

const WINDOW_BUCKETS = 30;

export interface TrendProbe {
  /** What an operator reads in the output, e.g. `access (describeL7DataV2, 5m)`. */
  readonly label: string;
  /** The config block whose interval the width is held against. */
  readonly collector: 'access' | 'usage' | 'waf_trend';
  /** The bucket size asked for (statistics) or configured (logTread, whose bucket the upstream picks). */
  readonly size: number;
  readonly span: Span;
  readonly answer: Answer<Trend>;
}

/** 30 buckets ending with the newest one settled under the collector's delay. */
function settledWindow(source: StatsSource, now: number, offsetMinutes: number): Span {
  const size = INTERVAL_MS[source.interval];
  const end = alignDown(source.interval, now - source.delayMs - size, offsetMinutes) + size;
  return { begin: end - WINDOW_BUCKETS * size, end };
}

export async function gatherSeries(prober: Prober, setup: DoctorSetup): Promise<TrendProbe[]> {
  const now = Math.floor(prober.now() / 1000) * 1000;
  const stats = setup.stats.map(async (source): Promise<TrendProbe> => {
    const span = settledWindow(source, now, setup.tz.offsetMinutes);
    return {
      label: `${source.collector} (${source.operation}, ${source.interval})`, collector: source.collector,
      size: INTERVAL_MS[source.interval], span, answer: await askStats(prober, setup.requestTz, source, span),
    };
  });
  const waf = setup.wafTrend;
  const treads = waf === undefined ? [] : [30 * MINUTE_MS, DAY_MS].map(async (length): Promise<TrendProbe> => {
    const span = { begin: now - length, end: now };
    return {
      label: `logTread over ${seconds(length)}`, collector: 'waf_trend', size: INTERVAL_MS[waf.interval], span,
      answer: await askLogTread(prober, setup.requestTz, span),
    };
  });
  return Promise.all([...stats, ...treads]);
}

const VALID_WIDTHS = new Set<number>(Object.values(INTERVAL_MS));

function widthPart(probe: TrendProbe): Part {
  if (probe.answer.kind !== 'answer') return { verdict: 'unknown', observed: `${probe.label}: ${whyNot(probe.answer)}` };
  const views = probe.answer.value.series
    .filter((s) => s.points.length >= 2)
    .map((s) => ({ field: s.field, points: s.points.length, width: layoutOf(s.points, probe.span, probe.size, probe.collector === 'waf_trend').width }));
  if (views.length === 0) return { verdict: 'unknown', observed: `${probe.label}: too few points to see a spacing` };
  const key = `collectors.${probe.collector}.interval`;
  const fits = (width: number) => (VALID_WIDTHS.has(width) ? [{ key, value: seconds(width) }] : []);
  if (probe.collector === 'waf_trend') {
    // logTread points finer than the interval are summed into it; coarser ones cannot be split.
    const [v] = views;
    if (v === undefined) return { verdict: 'unknown', observed: `${probe.label}: no points` };
    const spacing = `${probe.label}: ${v.points} points spaced ${seconds(v.width)}`;
    if (v.width > probe.size) return { verdict: 'differs', observed: `${spacing}, coarser than ${seconds(probe.size)}`, set: fits(v.width) };
    return { verdict: 'ok', observed: v.width < probe.size ? `${spacing} (finer than ${seconds(probe.size)}: summed)` : spacing };
  }
  const off = views.find((v) => v.width !== probe.size);
  if (off) {
    return { verdict: 'differs', observed: `${probe.label}: ${off.field} spaced ${seconds(off.width)}, not ${seconds(probe.size)}`, set: fits(off.width) };
  }
  return { verdict: 'ok', observed: `${probe.label}: ${views.length} series spaced ${seconds(probe.size)}` };
}

export function judgeWidths(probes: readonly TrendProbe[]): CheckResult {
  return combine('bucket_width', probes.map(widthPart));
}

function holesPart(probe: TrendProbe): Part {
  if (probe.answer.kind !== 'answer') return { verdict: 'unknown', observed: `${probe.label}: ${whyNot(probe.answer)}` };
  const { series } = probe.answer.value;
  const views = series.map((s) => ({ field: s.field, empty: s.points.length === 0, holes: layoutOf(s.points, probe.span, probe.size, probe.collector === 'waf_trend').holes }));
  const holed = views.find((v) => v.holes > 0);
  if (holed) return { verdict: 'differs', observed: `${probe.label}: ${holed.field} leaves out ${holed.holes} bucket(s) between its points` };
  const empty = views.find((v) => v.empty);
  if (empty && views.some((v) => !v.empty)) {
    return { verdict: 'differs', observed: `${probe.label}: ${empty.field} is empty while the other series have points` };
  }
  if (views.every((v) => v.empty)) return { verdict: 'unknown', observed: `${probe.label}: no points` };
  return { verdict: 'ok', observed: `${probe.label}: no bucket left out in ${views.length} series` };
}

export function judgeHoles(probes: readonly TrendProbe[]): CheckResult {
  return combine('missing_buckets', probes.map(holesPart),
    'nothing to set: the daemon counts a bucket left out as zero and reports each answer that leaves one out.');
}
