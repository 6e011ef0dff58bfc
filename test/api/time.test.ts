import { describe, expect, it } from 'vitest';
import { parseUtcOffset, platformClock } from '../../src/api/time.js';

describe('parseUtcOffset', () => {
  it.each([
    ['+08:00', 480], ['UTC+8', 480], ['-0530', -330], ['+00:00', 0], ['-12', -720],
  ])('%s -> %i minutes', (text, minutes) => {
    expect(parseUtcOffset(text)).toBe(minutes);
  });
  it.each(['8', 'GMT+8', '+15:00', '+08:61x', ''])('rejects %j', (text) => {
    expect(() => parseUtcOffset(text)).toThrow(/UTC offset/);
  });
});

describe('platformClock (UTC+8)', () => {
  const tz = platformClock('+08:00');
  // 2026-03-10T09:00:05Z is 17:00:05 on the same day in UTC+8.
  const ms = Date.UTC(2026, 2, 10, 9, 0, 5);

  it('formats in the platform zone', () => {
    expect(tz.formatDateTime(ms)).toBe('2026-03-10 17:00:05');
    expect(tz.formatDate(Date.UTC(2026, 2, 10, 16, 30))).toBe('2026-03-11');
  });
  it('parses in the platform zone', () => {
    expect(tz.parseDateTime('2026-03-10 17:00:05')).toBe(ms);
    expect(tz.parseDate('2026-03-11')).toBe(Date.UTC(2026, 2, 10, 16, 0));
  });
  it('round-trips every minute of a day boundary', () => {
    for (let t = Date.UTC(2026, 0, 1, 15, 0); t < Date.UTC(2026, 0, 1, 17, 0); t += 60_000) {
      expect(tz.parseDateTime(tz.formatDateTime(t))).toBe(t);
    }
  });
  it('finds midnight in the platform zone', () => {
    expect(tz.startOfDay(ms)).toBe(Date.UTC(2026, 2, 9, 16, 0));
  });
  it.each(['2026-02-30 00:00:00', '2026-03-10T17:00:05', '2026-03-10 24:00:00', '2026-3-1 00:00:00'])('rejects %j', (text) => {
    expect(() => tz.parseDateTime(text)).toThrow();
  });
  it.each([
    ['+08:00', ms, '2026-03-10T17:00:05+08:00'],
    ['+08:00', ms + 250, '2026-03-10T17:00:05.250+08:00'],
    ['-05:30', ms, '2026-03-10T03:30:05-05:30'],
    ['+00:00', ms, '2026-03-10T09:00:05+00:00'],
  ])('formats ISO 8601 with the platform offset (%s): the same instant, readable as the platform\'s wall clock', (offset, at, text) => {
    expect(platformClock(offset).formatIso(at)).toBe(text);
    expect(Date.parse(text)).toBe(at);
  });
  it('uses another configured offset', () => {
    expect(platformClock('+00:00').formatDateTime(ms)).toBe('2026-03-10 09:00:05');
  });
});
