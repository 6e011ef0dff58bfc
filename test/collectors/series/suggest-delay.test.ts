import { describe, expect, it } from 'vitest';
import { shouldLogSuggestion, suggestDelay, withRevision } from '../../../src/collectors/series/suggest-delay.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);

/** Revisions seen, as [minutes after T0 the audit saw it, age in ms], folded in order. */
function seen(list: ReadonlyArray<readonly [number, number]>): Map<number, number> {
  return list.reduce((ages, [at, age]) => withRevision(ages, T0 + at * MIN, age), new Map<number, number>());
}

describe('suggestDelay', () => {
  it.each([
    { name: 'no revision seen: the delay in force', revisions: [], now: 0, current: 5 * MIN, want: 5 * MIN },
    { name: 'one revision at 7m', revisions: [[0, 7 * MIN]], now: 0, current: 5 * MIN, want: 7 * MIN },
    { name: 'rounded up to a whole minute', revisions: [[0, 6 * MIN + 1]], now: 0, current: 5 * MIN, want: 7 * MIN },
    { name: 'the longest of several', revisions: [[0, 6 * MIN], [15, 9 * MIN], [30, 7 * MIN]], now: 30, current: 5 * MIN, want: 9 * MIN },
    { name: 'a revision 23h ago still counts', revisions: [[0, 12 * MIN], [23 * 60, 6 * MIN]], now: 23 * 60, current: 5 * MIN, want: 12 * MIN },
    { name: 'a revision more than a day ago is forgotten', revisions: [[0, 12 * MIN], [25 * 60, 6 * MIN]], now: 25 * 60, current: 5 * MIN, want: 6 * MIN },
    { name: 'only revisions older than a day: the delay in force', revisions: [[0, 12 * MIN]], now: 26 * 60, current: 8 * MIN, want: 8 * MIN },
  ] as const)('$name', ({ revisions, now, current, want }) => {
    expect(suggestDelay(seen(revisions), T0 + now * MIN, current)).toBe(want);
  });

  it('keeps at most one age per hour of sighting, however many revisions', () => {
    const many = Array.from({ length: 500 }, (_, i) => [i * 5, (6 + (i % 3)) * MIN] as const);
    expect(seen(many).size).toBeLessThanOrEqual(25);
  });
});

describe('shouldLogSuggestion', () => {
  const bucket = MIN;
  it.each([
    { name: 'equal to the delay in force: never', last: undefined, suggested: 5 * MIN, inForce: 5 * MIN, now: 0, want: false },
    { name: 'first difference: logged', last: undefined, suggested: 7 * MIN, inForce: 5 * MIN, now: 0, want: true },
    { name: 'same suggestion within the day: not again', last: { at: T0, suggestedMs: 7 * MIN }, suggested: 7 * MIN, inForce: 5 * MIN, now: 23 * 60, want: false },
    { name: 'moved by exactly a bucket: not again', last: { at: T0, suggestedMs: 7 * MIN }, suggested: 8 * MIN, inForce: 5 * MIN, now: 60, want: false },
    { name: 'moved by more than a bucket: again', last: { at: T0, suggestedMs: 7 * MIN }, suggested: 9 * MIN, inForce: 5 * MIN, now: 60, want: true },
    { name: 'a day later: again', last: { at: T0, suggestedMs: 7 * MIN }, suggested: 7 * MIN, inForce: 5 * MIN, now: 24 * 60, want: true },
  ] as const)('$name', ({ last, suggested, inForce, now, want }) => {
    expect(shouldLogSuggestion(last, suggested, inForce, T0 + now * MIN, bucket)).toBe(want);
  });
});
