// The overlap the delivery audit's recoveries call for (overlap.ts): the
// longest lateness past `delay` over the last day, in whole minutes; put in
// force within its bounds under `auto`, logged (once a day, or when it moved
// by more than a minute) where the overlap is fixed.
import { describe, expect, it } from 'vitest';
import { OverlapTuner } from '../../src/forwarder/overlap.js';

const MIN = 60_000;
const T = Date.UTC(2026, 2, 2, 4, 0, 0);
const DELAY = 2 * MIN;

describe('OverlapTuner', () => {
  it('with nothing recovered suggests the overlap in force, and says nothing', () => {
    const t = new OverlapTuner(5 * MIN, DELAY, undefined);
    expect(t.afterCheck(T)).toEqual({ suggestedMs: 5 * MIN, putInForceMs: undefined, logSuggestion: false });
  });

  it('a fixed overlap: suggests the longest lateness less the delay, in whole minutes, logged once until it moves', () => {
    const t = new OverlapTuner(5 * MIN, DELAY, undefined);
    t.recovered(T, [14 * MIN + 10_000, 9 * MIN]);
    expect(t.afterCheck(T)).toEqual({ suggestedMs: 13 * MIN, putInForceMs: undefined, logSuggestion: true });
    expect(t.afterCheck(T + MIN)).toEqual({ suggestedMs: 13 * MIN, putInForceMs: undefined, logSuggestion: false });
    // Two minutes more: logged again; the overlap in force stays the configured one.
    t.recovered(T + 2 * MIN, [17 * MIN]);
    expect(t.afterCheck(T + 2 * MIN)).toEqual({ suggestedMs: 15 * MIN, putInForceMs: undefined, logSuggestion: true });
    expect(t.overlapMs).toBe(5 * MIN);
    // A day later the recoveries are forgotten: the suggestion is the overlap in force again, nothing to log.
    expect(t.afterCheck(T + 25 * 60 * MIN)).toEqual({ suggestedMs: 5 * MIN, putInForceMs: undefined, logSuggestion: false });
  });

  it('auto: puts the suggestion in force within its bounds, once per move', () => {
    const t = new OverlapTuner(5 * MIN, DELAY, { floorMs: 5 * MIN, ceilingMs: 60 * MIN });
    t.recovered(T, [15 * MIN]);
    expect(t.afterCheck(T)).toEqual({ suggestedMs: 13 * MIN, putInForceMs: 13 * MIN, logSuggestion: false });
    expect(t.overlapMs).toBe(13 * MIN);
    expect(t.afterCheck(T + MIN).putInForceMs).toBeUndefined();
    t.recovered(T + 2 * MIN, [3 * 60 * MIN]);
    expect(t.afterCheck(T + 2 * MIN)).toEqual({ suggestedMs: 178 * MIN, putInForceMs: 60 * MIN, logSuggestion: false });
    expect(t.overlapMs).toBe(60 * MIN);
  });
});
