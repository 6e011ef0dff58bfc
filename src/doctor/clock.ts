// clock_offset: the upstream lists buckets up to its own "now", so the newest
// point of a trend ending at our now says how far its clock (or its ingest)
// is from ours. Looked for back to a day, widening (6 buckets, then the
// hour, then the day; each range only what the previous did not ask), and,
// when the newest point is our current bucket, a day ahead. The judgement
// (contract/clock.ts) is the one the daemon counts at run time, so what the
// doctor finds on day one and what the daemon counts later agree.
import { DAY_MS, HOUR_MS } from '../api/index.js';
import { alignDown, INTERVAL_MS } from '../collectors/buckets.js';
import { seconds } from '../collectors/contract/checks.js';
import { CLOCK_SEARCH_BACK_MS, judgeClockOffset, type ClockOffset } from '../collectors/contract/clock.js';
import { humanDuration } from './format.js';
import { whyNot, type Answer, type Prober } from './probe.js';
import type { DoctorSetup, StatsSource } from './setup.js';
import { askStats, type Span } from './requests.js';
import type { Trend } from './trends.js';
import { combine, unknownResult, type CheckResult, type Part } from './types.js';

const RECENT_BUCKETS = 6;
/** How far back the search widens after the recent buckets: an hour, then a day. */
const SEARCH_BACK_MS = [HOUR_MS, CLOCK_SEARCH_BACK_MS] as const;
/** How far ahead it looks when the newest point is our current bucket. */
const AHEAD_MS = DAY_MS;

interface Asked {
  readonly span: Span;
  readonly answer: Answer<Trend>;
}

export interface ClockProbe {
  readonly source: StatsSource;
  /** Newest range first; an older one is asked only when every newer one held no point, and the search stops at a failure. */
  readonly back: readonly Asked[];
  /** The day after our current bucket, asked only when the newest point is our current bucket. */
  readonly ahead?: Asked;
}

/** The ranges searched back: the recent buckets up to now, then each wider range up to where the previous began. */
function searchSpans(now: number, current: number, size: number): Span[] {
  const spans: Span[] = [{ begin: current - (RECENT_BUCKETS - 1) * size, end: now + 1000 }];
  for (const back of SEARCH_BACK_MS) {
    const end = spans[spans.length - 1]?.begin ?? current;
    const begin = current - back;
    if (begin < end) spans.push({ begin, end });
  }
  return spans;
}

export async function gatherClock(prober: Prober, setup: DoctorSetup): Promise<ClockProbe | undefined> {
  const [source] = setup.stats;
  if (source === undefined) return undefined;
  const size = INTERVAL_MS[source.interval];
  const now = Math.floor(prober.now() / 1000) * 1000;
  const current = alignDown(source.interval, now, setup.tz.offsetMinutes);
  const back: Asked[] = [];
  // The first range's endTime one second on: the current bucket is inside it even when now is its very first second.
  for (const span of searchSpans(now, current, size)) {
    const answer = await askStats(prober, setup.requestTz, source, span);
    back.push({ span, answer });
    if (answer.kind !== 'answer' || newestIn({ span, answer }) !== undefined) break;
  }
  const last = back[back.length - 1];
  const newest = last === undefined ? undefined : newestIn(last);
  if (last?.answer.kind !== 'answer' || newest === undefined || newest < alignDown(source.interval, last.answer.sentAt, setup.tz.offsetMinutes)) {
    return { source, back };
  }
  // At our current bucket already: the upstream may be further on, which only a range in our future shows.
  const span = { begin: current + size, end: current + size + AHEAD_MS };
  return { source, back, ahead: { span, answer: await askStats(prober, setup.requestTz, source, span) } };
}

/**
 * Start of the newest point inside what was asked. Ahead, only a point with
 * a value counts: an upstream that lists zero buckets up to any endTime asked
 * would otherwise read as a day ahead.
 */
function newestIn(asked: Asked, withValue = false): number | undefined {
  if (asked.answer.kind !== 'answer') return undefined;
  let newest: number | undefined;
  for (const s of asked.answer.value.series) {
    for (const [t, v] of s.points) {
      if (t >= asked.span.end || (withValue && (t < asked.span.begin || v === null || v === 0))) continue;
      if (newest === undefined || t > newest) newest = t;
    }
  }
  return newest;
}

export function judgeClock(probe: ClockProbe | undefined, setup: DoctorSetup, newestRecordMs: number | undefined, now: number): CheckResult {
  const record = newestRecordMs === undefined ? [] : [recordPart(newestRecordMs, now)];
  if (probe === undefined) {
    return record.length > 0 ? combine('clock_offset', record) : unknownResult('clock_offset', 'no statistics collector enabled (access, usage): not asked');
  }
  const { source } = probe;
  const label = `${source.collector} (${source.operation}, ${source.interval})`;
  const last = probe.back[probe.back.length - 1];
  if (last === undefined || last.answer.kind !== 'answer') return combine('clock_offset', [{ verdict: 'unknown', observed: `${label}: ${whyNot(last?.answer)}` }, ...record]);
  const newest = newestIn(last);
  if (newest === undefined) {
    const since = setup.tz.formatDateTime(last.span.begin);
    return combine('clock_offset', [{
      verdict: 'unknown',
      observed: `${label}: no point at all since ${since} (the last day, asked in ${probe.back.length} ranges): the account has no data in the last day, ` +
        'or the upstream runs more than a day behind',
    }, ...record]);
  }
  const size = INTERVAL_MS[source.interval];
  // Our bucket when the request left: the upstream cannot have answered from an earlier moment of ours.
  const ours = (sentAt: number): number => alignDown(source.interval, sentAt, setup.tz.offsetMinutes);
  let behindMs = ours(last.answer.sentAt) - newest;
  const parts: Part[] = [];
  if (probe.ahead !== undefined) {
    const { ahead } = probe;
    const further = newestIn(ahead, true);
    if (ahead.answer.kind !== 'answer') parts.push({ verdict: 'unknown', observed: `${label}: the day ahead of our now could not be asked: ${whyNot(ahead.answer)}` });
    else if (further !== undefined) behindMs = ours(ahead.answer.sentAt) - further;
  }
  const offset = judgeClockOffset({ behindMs, size, delayMs: source.delayMs });
  parts.unshift(statsPart(label, offset, source, setup), ...record);
  const note = offset.kind === 'ahead'
    ? 'an upstream ahead of ours settles its buckets sooner, so counting is unaffected, but every point is stamped by its clock: check both hosts\' time sync.'
    : 'the daemon counts a bucket once it ended `delay` ago by our clock; an upstream behind ours needs that much more (counted at run time as edge_exporter_contract_mismatches_total{check="clock_offset"}).';
  return combine('clock_offset', parts, note);
}

function statsPart(label: string, offset: ClockOffset, source: StatsSource, setup: DoctorSetup): Part {
  const size = INTERVAL_MS[source.interval];
  switch (offset.kind) {
    case 'in_step': {
      const n = offset.buckets;
      if (n === 0) return { verdict: 'ok', observed: `${label}: the newest point is our current bucket` };
      const where = n > 0 ? `starts ${humanDuration(size)} (1 bucket(s)) before` : '1 bucket(s) after';
      return { verdict: 'ok', observed: `${label}: the newest point ${where} our current bucket: within one bucket` };
    }
    case 'ahead':
      return {
        verdict: 'differs',
        observed: `${label}: the upstream lists points up to ${humanDuration(offset.offsetMs)} (${offset.buckets} bucket(s)) after our current bucket: ` +
          `its clock runs about ${humanDuration(offset.offsetMs)} ahead of ours (or this host's runs behind)`,
      };
    case 'behind': {
      // A collector with its own delay is not helped by the default.
      const key = source.delayMs !== setup.defaultDelayMs ? `collectors.${source.collector}.delay` : 'collectors.defaults.delay';
      return {
        verdict: 'differs',
        observed: `${label}: the newest point starts ${humanDuration(offset.offsetMs)} (${offset.buckets} bucket(s)) before our current bucket: ` +
          `the upstream's clock runs about ${humanDuration(offset.offsetMs)} behind` +
          (offset.beyondDelay ? `, more than the longest delay (${seconds(offset.delayMs)}) covers with the configured one on top` : ''),
        set: [{ key, value: seconds(offset.delayMs) }],
      };
    }
  }
}

/** The newest WAF record says little alone (the log may just be quiet), so it is reported, never judged. */
function recordPart(newest: number, now: number): Part {
  const age = now - newest;
  const text = age >= 0 ? `${humanDuration(age)} ago` : `${humanDuration(-age)} in the future`;
  return { verdict: 'unknown', observed: `newest WAF record: ${text}` };
}
