// timestamp_offset: "ISO 8601" is all the document says of a WAF record's
// timeStamp. One page of the last hour's deny records (pass when there are
// none) shows whether the times carry a zone; the newest also tells the
// clock check how fresh the log is.
import type { WafLogRecord } from '../api/index.js';
import { recordTime } from '../forwarder/record-time.js';
import { whyNot, type Answer, type Prober } from './probe.js';
import type { DoctorSetup } from './setup.js';
import { askLogs, type Span } from './requests.js';
import { combine, unknownResult, type CheckResult, type Part } from './types.js';
import { HOUR_MS } from '../api/time.js';

interface RecordProbe {
  readonly action: 'deny' | 'pass';
  readonly span: Span;
  readonly answer: Answer<readonly WafLogRecord[]>;
}

export async function gatherRecords(prober: Prober, setup: DoctorSetup): Promise<RecordProbe | undefined> {
  if (!setup.wafLogs) return undefined;
  const now = Math.floor(prober.now() / 1000) * 1000;
  const span = { begin: now - HOUR_MS, end: now };
  const deny = await askLogs(prober, setup.requestTz, span, 'deny');
  if (deny.kind !== 'answer' || deny.value.length > 0) return { action: 'deny', span, answer: deny };
  return { action: 'pass', span, answer: await askLogs(prober, setup.requestTz, span, 'pass') };
}

/** The newest record time (epoch ms), read as the daemon reads it. */
export function newestRecord(probe: RecordProbe | undefined, offsetMinutes: number): number | undefined {
  if (probe?.answer.kind !== 'answer') return undefined;
  const times = probe.answer.value.flatMap((r) => recordTime(r.timeStamp, offsetMinutes)?.ms ?? []);
  return times.length === 0 ? undefined : Math.max(...times);
}

export function judgeTimestamps(probe: RecordProbe | undefined, setup: DoctorSetup): CheckResult {
  if (probe === undefined) return unknownResult('timestamp_offset', 'no WAF collector enabled (waf_trend, waf_events): logs not read');
  const label = `${probe.action} records of the last hour`;
  if (probe.answer.kind !== 'answer') return combine('timestamp_offset', [{ verdict: 'unknown', observed: `${label}: ${whyNot(probe.answer)}` }]);
  const records = probe.answer.value;
  if (records.length === 0) return combine('timestamp_offset', [{ verdict: 'unknown', observed: 'no deny or pass record in the last hour' }]);
  const read = records.map((r) => ({ text: r.timeStamp, time: recordTime(r.timeStamp, setup.tz.offsetMinutes) }));
  const naive = read.filter((r) => r.time?.naive === true);
  const unreadable = read.filter((r) => r.time === undefined);
  const parts: Part[] = [];
  if (naive.length > 0) {
    parts.push({
      verdict: 'differs',
      observed: `${naive.length} of ${records.length} ${label} have no zone offset (e.g. "${naive[0]?.text}"); the daemon reads them in upstream.timezone (${setup.timezone})`,
      set: [{ key: 'upstream.timezone', value: setup.timezone }],
    });
  }
  if (unreadable.length > 0) {
    parts.push({ verdict: 'differs', observed: `${unreadable.length} of ${records.length} ${label} are not ISO 8601 (e.g. "${unreadable[0]?.text}"); the daemon uses the time it saw them` });
  }
  if (parts.length === 0) parts.push({ verdict: 'ok', observed: `${records.length} ${label} carry an offset (e.g. "${records[0]?.timeStamp}")` });
  const note = naive.length > 0 ? `keep upstream.timezone at ${setup.timezone} only if that is the zone these wall-clock times are in.` : undefined;
  return combine('timestamp_offset', parts, note);
}
