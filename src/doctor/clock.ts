// clock_offset: the upstream lists buckets up to its own "now". A trend
// ending at our now whose newest bucket lies more than one bucket behind
// ours says its clock (or its ingest) runs behind, and the daemon's delay
// must cover that on top of the revision time it already covers. Counted in
// whole buckets, so a request crossing a bucket boundary never reads as lag.
import { alignDown, INTERVAL_MS } from '../collectors/buckets.js';
import { seconds } from '../collectors/contract/checks.js';
import { humanDuration } from './format.js';
import { whyNot, type Answer, type Prober } from './probe.js';
import type { DoctorPlan, StatsTarget } from './plan.js';
import { askStats, type Span } from './requests.js';
import type { Trend } from './trends.js';
import { combine, unknownResult, type CheckResult, type Part } from './types.js';

const RECENT_BUCKETS = 6;

export interface ClockProbe {
  readonly target: StatsTarget;
  readonly span: Span;
  readonly answer: Answer<Trend>;
}

export async function gatherClock(prober: Prober, plan: DoctorPlan): Promise<ClockProbe | undefined> {
  const [target] = plan.stats;
  if (target === undefined) return undefined;
  const now = Math.floor(prober.now() / 1000) * 1000;
  const current = alignDown(target.interval, now, plan.tz.offsetMinutes);
  // endTime one second on: the current bucket is inside the range even when now is its very first second.
  const span = { begin: current - (RECENT_BUCKETS - 1) * INTERVAL_MS[target.interval], end: now + 1000 };
  return { target, span, answer: await askStats(prober, plan.requestTz, target, span) };
}

export function judgeClock(probe: ClockProbe | undefined, plan: DoctorPlan, newestRecordMs: number | undefined, now: number): CheckResult {
  const record = newestRecordMs === undefined ? [] : [recordPart(newestRecordMs, now)];
  if (probe === undefined) {
    return record.length > 0 ? combine('clock_offset', record) : unknownResult('clock_offset', 'no statistics collector enabled (access, usage): not asked');
  }
  const { target, answer } = probe;
  const label = `${target.collector} (${target.operation}, ${target.interval})`;
  if (answer.kind !== 'answer') return combine('clock_offset', [{ verdict: 'unknown', observed: `${label}: ${whyNot(answer)}` }, ...record]);
  const starts = answer.value.series.flatMap((s) => s.points.map(([t]) => t));
  if (starts.length === 0) return combine('clock_offset', [{ verdict: 'unknown', observed: `${label}: no points up to now` }, ...record]);
  const size = INTERVAL_MS[target.interval];
  // Our bucket when the request left: the upstream cannot have answered from an earlier moment of ours.
  const ours = alignDown(target.interval, answer.sentAt, plan.tz.offsetMinutes);
  const behind = Math.round((ours - Math.max(...starts)) / size);
  const parts: Part[] = [statsPart(label, behind, size, target, plan), ...record];
  return combine('clock_offset', parts, 'the daemon counts a bucket once it ended `delay` ago by our clock; an upstream behind ours needs that much more.');
}

function statsPart(label: string, behind: number, size: number, target: StatsTarget, plan: DoctorPlan): Part {
  if (behind <= 0) {
    const ahead = behind < 0 ? ` (${-behind} bucket(s) ahead)` : '';
    return { verdict: 'ok', observed: `${label}: the newest point is our current bucket${ahead}` };
  }
  const lag = behind * size;
  const seen = `${label}: the newest point starts ${humanDuration(lag)} (${behind} bucket(s)) before our current bucket`;
  if (behind === 1) return { verdict: 'ok', observed: `${seen}: within one bucket` };
  // A collector with its own delay is not helped by the default.
  const own = target.delayMs !== plan.defaultDelayMs;
  const key = own ? `collectors.${target.collector}.delay` : 'collectors.defaults.delay';
  // Rounded up to 5 minutes (or the bucket): a request that crosses a bucket boundary reads one bucket less, and the
  // advice must not depend on that.
  const step = Math.max(5 * 60_000, size);
  const value = Math.ceil((lag + target.delayMs) / step) * step;
  return { verdict: 'differs', observed: `${seen}: the upstream's clock runs about ${humanDuration(lag)} behind`, set: [{ key, value: seconds(value) }] };
}

/** The newest WAF record says little alone (the log may just be quiet), so it is reported, never judged. */
function recordPart(newest: number, now: number): Part {
  const age = now - newest;
  const text = age >= 0 ? `${humanDuration(age)} ago` : `${humanDuration(-age)} in the future`;
  return { verdict: 'unknown', observed: `newest WAF record: ${text}` };
}
