// A log record's `timeStamp`: "ISO 8601" is all the document says. With a
// zone offset (or Z) it names an instant; without one it is a wall-clock time,
// read in the platform's zone (upstream.timezone), never the host's: a UTC
// container must not shift every event by 8 hours. Pure.

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

interface RecordTime {
  readonly ms: number;
  /** True when the text carried no zone offset (a timestamp_offset mismatch). */
  readonly naive: boolean;
}

/** Undefined when the text is not an ISO 8601 date-time. */
export function recordTime(text: string, offsetMinutes: number): RecordTime | undefined {
  const m = ISO_RE.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0), Math.floor(Number(`0.${frac ?? '0'}`) * 1000));
  if (!Number.isFinite(ms)) return undefined;
  if (zone === undefined) return { ms: ms - offsetMinutes * 60_000, naive: true };
  return { ms: ms - zoneMinutes(zone) * 60_000, naive: false };
}

function zoneMinutes(zone: string): number {
  if (zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
  return zone.startsWith('-') ? -minutes : minutes;
}
