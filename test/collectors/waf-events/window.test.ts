// Window planning and checkpoint moves, as tables.
import { describe, expect, it } from 'vitest';
import {
  advance, initialCheckpoint, planWindow, rememberInPlace, windowStart, type Checkpoint, type TimeWindow, type WindowOptions,
} from '../../../src/collectors/waf-events/window.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const OPTS: WindowOptions = { overlapMs: 5 * MIN, delayMs: 2 * MIN, maxWindowMs: 15 * MIN, startBackMs: 60 * MIN };
const cp = (cursorMs: number, originMs = T0 - 120 * MIN, delivered: Array<[string, number]> = []): Checkpoint => ({ originMs, cursorMs, delivered: new Map(delivered) });

describe('planWindow', () => {
  it.each<[string, Checkpoint | undefined, number, Partial<WindowOptions>, TimeWindow | undefined]>([
    ['first start: from start_from back to now - delay, capped by max_window', undefined, T0, {}, { startMs: T0 - 60 * MIN, endMs: T0 - 45 * MIN }],
    ['first start, short history: to now - delay', undefined, T0, { startBackMs: 10 * MIN }, { startMs: T0 - 10 * MIN, endMs: T0 - 2 * MIN }],
    ['first start with start_from 0: nothing until delay passed', undefined, T0, { startBackMs: 0 }, undefined],
    ['steady state: overlap before the cursor to now - delay', cp(T0 - 3 * MIN), T0, {}, { startMs: T0 - 8 * MIN, endMs: T0 - 2 * MIN }],
    ['backlog: max_window past the cursor', cp(T0 - 60 * MIN), T0, {}, { startMs: T0 - 65 * MIN, endMs: T0 - 45 * MIN }],
    ['overlap never reaches before the origin', cp(T0 - 58 * MIN, T0 - 60 * MIN), T0, {}, { startMs: T0 - 60 * MIN, endMs: T0 - 43 * MIN }],
    ['end at the cursor: nothing new', cp(T0 - 2 * MIN), T0, {}, undefined],
    ['end before the cursor (clock stepped back): nothing', cp(T0), T0, {}, undefined],
    ['whole seconds: bounds floored', cp(T0 - 3 * MIN), T0 + 999, { overlapMs: 5 * MIN + 500 }, { startMs: T0 - 8 * MIN - S, endMs: T0 - 2 * MIN }],
    ['delay 0, overlap 0', cp(T0 - 30 * S), T0, { delayMs: 0, overlapMs: 0 }, { startMs: T0 - 30 * S, endMs: T0 }],
    ['less than a second past the cursor: nothing', cp(T0 - 2 * MIN), T0 + 900, {}, undefined],
  ])('%s', (_name, checkpoint, now, options, expected) => {
    expect(planWindow(checkpoint, now, { ...OPTS, ...options })).toEqual(expected);
  });

  it('a first start begins at now - start_from, whole seconds', () => {
    expect(initialCheckpoint(T0 + 1234, { startBackMs: 60 * MIN })).toEqual({ originMs: T0 - 60 * MIN + S, cursorMs: T0 - 60 * MIN + S, delivered: new Map() });
  });
});

describe('rememberInPlace and advance', () => {
  const base = cp(T0 - 10 * MIN, T0 - 60 * MIN, [['old', T0 - 16 * MIN], ['edge', T0 - 15 * MIN], ['recent', T0 - 11 * MIN]]);

  it.each<[string, Array<[string, number]>, number | undefined, Array<[string, number]>]>([
    ['adds ids under their own time', [['a', T0 - 3 * MIN], ['b', T0 - 4 * MIN]], undefined, [['a', T0 - 3 * MIN], ['b', T0 - 4 * MIN]]],
    ['keeps an id under the window end when its time is earlier', [['a', T0 - 30 * MIN]], T0 - 2 * MIN, [['a', T0 - 2 * MIN]]],
    ['never moves a known id back', [['recent', T0 - 40 * MIN]], T0 - 20 * MIN, [['recent', T0 - 11 * MIN]]],
  ])('rememberInPlace %s, keeping the others', (_name, events, windowEndMs, expected) => {
    const delivered = new Map(base.delivered);
    rememberInPlace(delivered, events, windowEndMs);
    expect(new Map(delivered)).toEqual(new Map([...base.delivered, ...expected]));
  });

  it.each<[string, Array<[string, number]>, number, number, string[]]>([
    // Cursor T0-10m, overlap 5m: the next window starts at T0-15m.
    ['forgets ids before the next window start (one exactly at it is kept)', [['new', T0 - 10 * MIN - 1]], T0 - 10 * MIN, T0 - 10 * MIN, ['edge', 'recent', 'new']],
    ['a later end forgets more', [['a', T0 - 9 * MIN - 1], ['b', T0 - 9 * MIN]], T0 - 4 * MIN, T0 - 4 * MIN, ['b']],
    ['never moves back', [], T0 - 20 * MIN, T0 - 10 * MIN, ['edge', 'recent']],
  ])('advance %s', (_name, events, end, cursor, kept) => {
    // As the forwarder does: a batch's ids are remembered as it is confirmed, then the whole window advances.
    const delivered = new Map(base.delivered);
    rememberInPlace(delivered, events);
    const next = advance({ ...base, delivered }, end, 5 * MIN);
    expect(next.cursorMs).toBe(cursor);
    expect(next.originMs).toBe(base.originMs);
    expect([...next.delivered.keys()]).toEqual(kept);
  });

  it('keeps exactly what the next window can read again: ids at or after its start', () => {
    const next = advance(cp(base.cursorMs, base.originMs, [...base.delivered, ['x', T0 - 8 * MIN]]), T0 - 3 * MIN, 5 * MIN);
    const window = planWindow(next, T0 + 5 * MIN, OPTS);
    expect(window?.startMs).toBe(windowStart(next, 5 * MIN));
    for (const t of next.delivered.values()) expect(t).toBeGreaterThanOrEqual(window?.startMs ?? Infinity);
  });
});
