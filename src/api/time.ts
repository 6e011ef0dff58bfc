// The platform speaks wall-clock strings in its own zone (UTC+8 unless
// configured otherwise). Everything inside the exporter is epoch milliseconds;
// conversion happens only here, with a fixed offset because the platform's zone
// has no daylight saving and a fixed offset keeps results host-independent.
import { EdgeError } from '../shared/errors.js';

/** Durations the platform's calendar is made of; defined once for every layer. */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

const OFFSET_RE = /^(?:UTC)?([+-])(\d{1,2})(?::?(\d{2}))?$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Text not in one of the platform's forms of a time, a date or a UTC offset; callers reading outside text (config, answers, requests) catch it. */
class TimeFormatError extends EdgeError {
  readonly code = 'EDGE_TIME_FORMAT';
}

/** Parses `+08:00`, `UTC+8`, `-0530` into minutes east of UTC. */
export function parseUtcOffset(text: string): number {
  const m = OFFSET_RE.exec(text.trim());
  if (!m) throw new TimeFormatError(`invalid UTC offset "${text}" (expected e.g. +08:00 or UTC+8)`);
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  if (minutes > 14 * 60) throw new TimeFormatError(`UTC offset "${text}" is out of range`);
  return m[1] === '-' ? -minutes : minutes;
}

export interface PlatformClock {
  readonly offsetMinutes: number;
  /** epoch ms -> `yyyy-MM-dd HH:mm:ss` in the platform zone */
  formatDateTime(ms: number): string;
  /** epoch ms -> `yyyy-MM-dd` in the platform zone */
  formatDate(ms: number): string;
  /**
   * epoch ms -> ISO 8601 in the platform zone with its offset
   * (`2026-03-10T17:00:05+08:00`, milliseconds only when not whole), for log
   * lines: the platform's wall-clock time, still one unambiguous instant.
   */
  formatIso(ms: number): string;
  /** `yyyy-MM-dd HH:mm:ss` in the platform zone -> epoch ms; throws on a malformed string */
  parseDateTime(text: string): number;
  /** `yyyy-MM-dd` (midnight in the platform zone) -> epoch ms */
  parseDate(text: string): number;
  /** Midnight (platform zone) of the day containing `ms`. */
  startOfDay(ms: number): number;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function shifted(ms: number, offsetMinutes: number): Date {
  return new Date(ms + offsetMinutes * 60_000);
}

export function platformClock(offset: string | number = '+08:00'): PlatformClock {
  const offsetMinutes = typeof offset === 'number' ? offset : parseUtcOffset(offset);
  const toUtc = (y: number, mo: number, d: number, h: number, mi: number, s: number, text: string): number => {
    const ms = Date.UTC(y, mo - 1, d, h, mi, s);
    const check = new Date(ms);
    // Date.UTC rolls 2026-02-31 over into March; a calendar-invalid string is an error.
    if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
      throw new TimeFormatError(`"${text}" is not a valid calendar time`);
    }
    return ms - offsetMinutes * 60_000;
  };
  const offsetText = `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
  const formatDate = (ms: number): string => {
    const d = shifted(ms, offsetMinutes);
    return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  };
  return {
    offsetMinutes,
    formatDate,
    formatDateTime(ms) {
      const d = shifted(ms, offsetMinutes);
      return `${formatDate(ms)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
    },
    formatIso(ms) {
      const d = shifted(ms, offsetMinutes);
      const millis = d.getUTCMilliseconds() === 0 ? '' : `.${pad(d.getUTCMilliseconds(), 3)}`;
      return `${formatDate(ms)}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${millis}${offsetText}`;
    },
    parseDateTime(text) {
      const m = DATETIME_RE.exec(text);
      if (!m) throw new TimeFormatError(`"${text}" is not in the form yyyy-MM-dd HH:mm:ss`);
      const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
      return toUtc(y, mo, d, h, mi, s, text);
    },
    parseDate(text) {
      const m = DATE_RE.exec(text);
      if (!m) throw new TimeFormatError(`"${text}" is not in the form yyyy-MM-dd`);
      const [, y, mo, d] = m.map(Number) as [number, number, number, number];
      return toUtc(y, mo, d, 0, 0, 0, text);
    },
    startOfDay(ms) {
      const d = shifted(ms, offsetMinutes);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - offsetMinutes * 60_000;
    },
  };
}

export function isDateTimeString(text: string): boolean {
  return DATETIME_RE.test(text);
}

export function isDateString(text: string): boolean {
  return DATE_RE.test(text);
}
