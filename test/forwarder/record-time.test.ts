// A record's timeStamp read as an instant: with its offset, or in the
// platform's zone without one, whatever was read before it (the same text
// in other zones, one after the other).
import { describe, expect, it } from 'vitest';
import { recordTime } from '../../src/forwarder/record-time.js';

const UTC_11_00_043 = Date.UTC(2026, 2, 2, 3, 0, 0, 43);

describe('recordTime', () => {
  it.each([
    ['2026-03-02T11:00:00.043+08:00', 480, { ms: UTC_11_00_043, naive: false }],
    ['2026-03-02T11:00:00.043+08:00', 0, { ms: UTC_11_00_043, naive: false }],
    ['2026-03-02T11:00:00.043', 480, { ms: UTC_11_00_043, naive: true }],
    ['2026-03-02T11:00:00.043', 0, { ms: UTC_11_00_043 + 8 * 3_600_000, naive: true }],
    ['2026-03-02T11:00:00.043', 0, { ms: UTC_11_00_043 + 8 * 3_600_000, naive: true }],
    ['2026-03-02T11:00:00.043', -300, { ms: UTC_11_00_043 + 13 * 3_600_000, naive: true }],
    ['2026-03-02 03:00:00.043Z', -300, { ms: UTC_11_00_043, naive: false }],
    ['yesterday', 480, undefined],
    ['2026-03-02T11:00:00.043+08:00', 480, { ms: UTC_11_00_043, naive: false }],
    ['2026-03-02T11:00:00.043+08:00', 480, { ms: UTC_11_00_043, naive: false }],
  ])('reads %s in the zone %i min from UTC, whatever was read just before', (text, offset, expected) => {
    expect(recordTime(text, offset)).toEqual(expected);
  });
});
