// What one page of deny records said about the assumptions, as mismatches. Pure.
import type { PlatformClock } from '../api/index.js';
import type { Mismatch } from '../collectors/contract/checks.js';
import type { PageFindings } from './drain.js';
import type { TimeWindow } from './window.js';

export function pageMismatches(window: TimeWindow, findings: PageFindings, tz: PlatformClock): Mismatch[] {
  const out: Mismatch[] = [];
  const range = `[${tz.formatIso(window.startMs)}, ${tz.formatIso(window.endMs)})`;
  if (findings.naive > 0) {
    out.push({
      check: 'timestamp_offset', operation: 'describeLogV2', field: 'logs.list[].timeStamp',
      assumed: 'an ISO 8601 time with a zone offset',
      seen: `${findings.naive} record(s) without an offset, read in upstream.timezone (UTC${offsetText(tz.offsetMinutes)})`,
      configKey: 'upstream.timezone',
    });
  }
  if (findings.outOfRange > 0) {
    out.push({
      check: 'out_of_range', operation: 'describeLogV2', field: 'logs.list[].timeStamp',
      assumed: `records inside the window asked for, ${range}`,
      seen: `${findings.outOfRange} record(s) outside it (each forwarded once, never again)`,
      configKey: 'upstream.timezone',
    });
  }
  return out;
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
