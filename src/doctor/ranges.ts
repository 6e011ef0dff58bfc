// out_of_range: does the upstream answer the range asked for? A closed 20
// minutes two hours ago, asked of the statistics, of logTread and of the WAF
// logs: anything outside it says the range is not (or not exactly) honoured.
// The daemon copes (it counts each point and forwards each record once, by
// its own time), but an operator should know the answers carry more than
// asked, or other times than asked.
import type { WafLogRecord } from '../api/index.js';
import { alignDown, INTERVAL_MS } from '../collectors/buckets.js';
import { layoutOf } from '../collectors/contract/series-layout.js';
import { recordTime } from '../forwarder/record-time.js';
import { humanDuration } from './format.js';
import { whyNot, type Answer, type Prober } from './probe.js';
import type { DoctorSetup } from './setup.js';
import { askLogs, askLogTread, askStats, type Span } from './requests.js';
import type { Trend } from './trends.js';
import { combine, type CheckResult, type Part } from './types.js';
import { HOUR_MS, MINUTE_MS } from '../api/time.js';

const BACK_MS = 2 * HOUR_MS;
const LENGTH_MS = 20 * 60_000;

interface TrendPast {
  readonly label: string;
  readonly size: number;
  /** logTread: the upstream picks its own bucket, so even a lone point's width is read from it (it may start before the range). */
  readonly ownWidth: boolean;
  readonly answer: Answer<Trend>;
}

interface PastProbes {
  readonly span: Span;
  readonly trends: readonly TrendPast[];
  readonly logs: Answer<readonly WafLogRecord[]> | undefined;
}

export async function gatherPast(prober: Prober, setup: DoctorSetup): Promise<PastProbes> {
  const [source] = setup.stats;
  // On a 5-minute boundary, so the buckets of every interval up to 5m start exactly at `begin`.
  const begin = alignDown('5m', prober.now() - BACK_MS, setup.tz.offsetMinutes);
  const span = { begin, end: begin + LENGTH_MS };
  const stats = source === undefined ? undefined : (async (): Promise<TrendPast> => ({
    label: `${source.collector} (${source.operation}, ${source.interval})`, size: INTERVAL_MS[source.interval], ownWidth: false,
    answer: await askStats(prober, setup.requestTz, source, span),
  }))();
  const tread = setup.wafTrend === undefined ? undefined : (async (): Promise<TrendPast> => ({
    label: 'logTread', size: MINUTE_MS, ownWidth: true, answer: await askLogTread(prober, setup.requestTz, span),
  }))();
  const logs = setup.wafLogs ? askLogs(prober, setup.requestTz, span) : undefined;
  const [s, t, l] = await Promise.all([stats, tread, logs]);
  return { span, trends: [s, t].flatMap((x) => x ?? []), logs: l };
}

function trendPart(p: TrendPast, span: Span, range: string): Part {
  if (p.answer.kind !== 'answer') return { verdict: 'unknown', observed: `${p.label}: ${whyNot(p.answer)}` };
  const views = p.answer.value.series.filter((s) => s.points.length > 0).map((s) => ({ total: s.points.length, view: layoutOf(s.points, span, p.size, p.ownWidth) }));
  if (views.length === 0) return { verdict: 'unknown', observed: `${p.label}: no points for ${range}` };
  const worst = views.reduce((a, b) => (b.view.outside > a.view.outside ? b : a));
  if (worst.view.outside > 0) return { verdict: 'differs', observed: `${p.label}: ${worst.view.outside} of ${worst.total} points outside ${range}` };
  if (views.every((v) => v.view.inRange.length === 0)) return { verdict: 'differs', observed: `${p.label}: no point inside ${range}` };
  return { verdict: 'ok', observed: `${p.label}: all ${worst.total} points inside ${range}` };
}

function logsPart(answer: Answer<readonly WafLogRecord[]>, span: Span, range: string, offsetMinutes: number): Part {
  if (answer.kind !== 'answer') return { verdict: 'unknown', observed: `WAF logs: ${whyNot(answer)}` };
  const times = answer.value.flatMap((r) => recordTime(r.timeStamp, offsetMinutes)?.ms ?? []);
  if (times.length === 0) return { verdict: 'unknown', observed: `WAF logs: no record in ${range}` };
  const before = times.filter((t) => t < span.begin);
  const after = times.filter((t) => t >= span.end);
  if (before.length + after.length === 0) return { verdict: 'ok', observed: `WAF logs: all ${times.length} records of the first page inside ${range}` };
  const far = [
    ...(before.length > 0 ? [`${before.length} up to ${humanDuration(span.begin - Math.min(...before))} before it`] : []),
    ...(after.length > 0 ? [`${after.length} up to ${humanDuration(Math.max(...after) - span.end)} after its end`] : []),
  ];
  return { verdict: 'differs', observed: `WAF logs: of ${times.length} records of the first page, ${far.join(' and ')}` };
}

export function judgeRanges(past: PastProbes, setup: DoctorSetup): CheckResult {
  const { span } = past;
  const range = `[${setup.tz.formatDateTime(span.begin)}, ${setup.tz.formatDateTime(span.end)})`;
  const parts = past.trends.map((p) => trendPart(p, span, range));
  if (past.logs) parts.push(logsPart(past.logs, span, range, setup.tz.offsetMinutes));
  return combine('out_of_range', parts,
    'nothing to set: the daemon counts each point once by its start and forwards each record once, whatever range it came with.');
}
