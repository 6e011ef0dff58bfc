// timezone: beginTime/endTime are wall-clock strings and the document does
// not say in which zone the upstream reads them (only the order cut-off names
// UTC+8). A closed half hour a day ago, written in upstream.timezone, shows
// where the upstream put it: its points shifted by s from where we meant
// means it read our strings in zone (configured - s). It runs before the
// other probes, and when it finds such a zone they write their times in it,
// so they see the upstream as it will be once upstream.timezone is set.
import { alignDown, INTERVAL_MS } from '../collectors/buckets.js';
import { humanDuration } from './format.js';
import { whyNot, type Answer, type Prober } from './probe.js';
import type { DoctorSetup } from './setup.js';
import { askStats, type Span } from './requests.js';
import type { Trend } from './trends.js';
import { combine, unknownResult, type CheckResult } from './types.js';
import { DAY_MS } from '../api/time.js';

const ZONE_INTERVAL = '5m';
const SIZE_MS = INTERVAL_MS[ZONE_INTERVAL];
const LENGTH_MS = 30 * 60_000;
/** A day back: a reading in any zone from UTC-12 to UTC+14 still lands in the past, where every bucket is listed. */
const BACK_MS = DAY_MS;
const QUARTER_HOUR_MS = 15 * 60_000;
const MAX_OFFSET_MINUTES = 14 * 60;

interface ZoneProbe {
  readonly span: Span;
  readonly answer: Answer<Trend>;
}

interface ZoneFinding {
  readonly result: CheckResult;
  /** The zone (minutes east of UTC) the upstream reads request times in, when it is not upstream.timezone. */
  readonly readZone?: number;
}

export async function gatherZone(prober: Prober, setup: DoctorSetup): Promise<ZoneProbe | undefined> {
  const [source] = setup.stats;
  if (source === undefined) return undefined;
  const begin = alignDown('1h', prober.now() - BACK_MS, setup.tz.offsetMinutes);
  const span = { begin, end: begin + LENGTH_MS };
  // Written in upstream.timezone, whatever requestTz says: this is the probe that decides it.
  return { span, answer: await askStats(prober, setup.tz, source, span, ZONE_INTERVAL) };
}

export function formatOffset(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

const signed = (ms: number): string => (ms < 0 ? humanDuration(ms) : `+${humanDuration(ms)}`);

export function judgeZone(probe: ZoneProbe | undefined, setup: DoctorSetup): ZoneFinding {
  const none = (observed: string): ZoneFinding => ({ result: combine('timezone', [{ verdict: 'unknown', observed }]) });
  if (probe === undefined) return { result: unknownResult('timezone', 'no statistics collector enabled (access, usage): not asked') };
  const asked = `[${setup.tz.formatDateTime(probe.span.begin)}, ${setup.tz.formatDateTime(probe.span.end)}) in ${setup.timezone}`;
  if (probe.answer.kind !== 'answer') return none(`${asked}: ${whyNot(probe.answer)}`);
  const series = probe.answer.value.series.find((s) => s.points.length > 0);
  if (series === undefined) return none(`${asked}: no points in the answer`);
  const times = [...new Set(series.points.map(([t]) => t))].sort((a, b) => a - b);
  const first = times[0] ?? 0;
  const last = times.at(-1) ?? 0;
  const expected = LENGTH_MS / SIZE_MS;
  if (times.length > expected + 1 || last - first > LENGTH_MS) {
    return none(`${asked}: ${times.length} points over ${humanDuration(last - first + SIZE_MS)}, not confined to the half hour asked (see out_of_range)`);
  }
  const shift = first - probe.span.begin;
  const where = `${asked}: ${times.length} points from ${setup.tz.formatDateTime(first)}`;
  if (shift === 0) return { result: combine('timezone', [{ verdict: 'ok', observed: `${where}, where asked` }]) };
  const zone = setup.tz.offsetMinutes - shift / 60_000;
  if (shift % QUARTER_HOUR_MS !== 0 || Math.abs(zone) > MAX_OFFSET_MINUTES) {
    return none(`${where}, ${signed(shift)} from where asked: not a zone offset`);
  }
  const result = combine('timezone', [
    {
      verdict: 'differs',
      observed: `${where}, ${signed(shift)} from where asked: the upstream reads beginTime/endTime in ${formatOffset(zone)}`,
      set: [{ key: 'upstream.timezone', value: formatOffset(zone) }],
    },
    { verdict: 'unknown', observed: `the other checks wrote their request times in ${formatOffset(zone)}, as if it were set` },
  ], 'upstream.timezone is also the zone the daemon reads the upstream\'s own wall-clock times in (certificates, orders, naive WAF times).');
  return { result, readZone: zone };
}
