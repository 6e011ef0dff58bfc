// The next window and checkpoint moves, as tables.
import { describe, expect, it } from 'vitest';
import {
  advance, initialCheckpoint, nextWindow, passed, rememberInPlace, resumed,
  type Checkpoint, type Position, type SavedCheckpoint, type WindowOptions, type WindowPass,
} from '../../src/forwarder/window.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
// delay 2m + overlap 5m: a range's final pass is due 7 minutes after its end.
const OPTS: WindowOptions = { overlapMs: 5 * MIN, delayMs: 2 * MIN, maxWindowMs: 15 * MIN, startBackMs: 60 * MIN };
const cp = (cursorMs: number, finalMs = cursorMs, originMs = T0 - 120 * MIN, delivered: Array<[string, number]> = []): Checkpoint =>
  ({ originMs, cursorMs, finalMs, delivered: new Map(delivered) });
const fresh = (startMs: number, endMs: number): WindowPass => ({ pass: 'new', startMs, endMs });
const final = (startMs: number, endMs: number): WindowPass => ({ pass: 'final', startMs, endMs });

describe('nextWindow', () => {
  it.each<[string, Checkpoint | undefined, number, Partial<WindowOptions>, WindowPass | undefined]>([
    ['first start: from start_from back, capped by max_window', undefined, T0, {}, fresh(T0 - 60 * MIN, T0 - 45 * MIN)],
    ['first start, short history: to now - delay', undefined, T0, { startBackMs: 10 * MIN }, fresh(T0 - 10 * MIN, T0 - 2 * MIN)],
    ['first start with start_from 0: nothing until delay passed', undefined, T0, { startBackMs: 0 }, undefined],
    ['caught up: the final pass of what became delay + overlap old goes first', cp(T0 - 150 * S, T0 - 450 * S), T0, {}, final(T0 - 450 * S, T0 - 7 * MIN)],
    ['caught up, final pass done: the new range from the cursor, not the overlap', cp(T0 - 150 * S, T0 - 7 * MIN), T0, {}, fresh(T0 - 150 * S, T0 - 2 * MIN)],
    ['backlog: max_window past the cursor', cp(T0 - 60 * MIN), T0, {}, fresh(T0 - 60 * MIN, T0 - 45 * MIN)],
    ['backlog behind a restart: the final pass closes the gap to the cursor first', cp(T0 - 60 * MIN, T0 - 65 * MIN), T0, {}, final(T0 - 65 * MIN, T0 - 60 * MIN)],
    ['a final pass is cut at max_window too', cp(T0 - 10 * MIN, T0 - 40 * MIN), T0, {}, final(T0 - 40 * MIN, T0 - 25 * MIN)],
    ['a final pass shorter than minNew waits (unless it reaches the cursor)', cp(T0 - 150 * S, T0 - 430 * S), T0, { minNewMs: 15 * S }, fresh(T0 - 150 * S, T0 - 2 * MIN)],
    ['a final pass shorter than minNew that reaches the cursor goes', cp(T0 - 30 * MIN, T0 - 30 * MIN - 5 * S), T0, { minNewMs: 15 * S }, final(T0 - 30 * MIN - 5 * S, T0 - 30 * MIN)],
    ['a new window shorter than minNew waits', cp(T0 - 130 * S), T0, { minNewMs: 15 * S }, undefined],
    ['end at the cursor: nothing new', cp(T0 - 2 * MIN, T0 - 7 * MIN), T0, {}, undefined],
    ['end before the cursor (clock stepped back): nothing', cp(T0, T0 - 5 * MIN), T0, {}, undefined],
    ['whole seconds: bounds floored', cp(T0 - 3 * MIN), T0 + 999, { delayMs: 2 * MIN - 500 }, fresh(T0 - 3 * MIN, T0 - 2 * MIN + S)],
    ['delay 0, overlap 0', cp(T0 - 30 * S), T0, { delayMs: 0, overlapMs: 0 }, fresh(T0 - 30 * S, T0)],
    ['less than a second past the cursor: nothing', cp(T0 - 2 * MIN, T0 - 7 * MIN), T0 + 900, {}, undefined],
    ['maxKeptIds ids kept: a new window ends delay + overlap before now (final at once)', cp(T0 - 10 * MIN, T0 - 10 * MIN, undefined, [['a', T0], ['b', T0]]), T0, { maxKeptIds: 2 }, fresh(T0 - 10 * MIN, T0 - 7 * MIN)],
    ['fewer ids kept than maxKeptIds: to now - delay', cp(T0 - 10 * MIN, T0 - 10 * MIN, undefined, [['a', T0]]), T0, { maxKeptIds: 2 }, fresh(T0 - 10 * MIN, T0 - 2 * MIN)],
    ['maxKeptIds ids kept, cursor past delay + overlap: nothing new until the final pass is due', cp(T0 - 5 * MIN, T0 - 5 * MIN, undefined, [['a', T0], ['b', T0]]), T0, { maxKeptIds: 2 }, undefined],
    ['maxKeptIds ids kept: a final pass due still goes', cp(T0 - 5 * MIN, T0 - 9 * MIN, undefined, [['a', T0], ['b', T0]]), T0, { maxKeptIds: 2 }, final(T0 - 9 * MIN, T0 - 7 * MIN)],
  ])('%s', (_name, checkpoint, now, options, expected) => {
    expect(nextWindow(checkpoint, now, { ...OPTS, ...options })).toEqual(expected);
  });

  it('a first start begins at now - start_from, whole seconds, its final pass there too', () => {
    const origin = T0 - 60 * MIN + S;
    expect(initialCheckpoint(T0 + 1234, { startBackMs: 60 * MIN })).toEqual({ originMs: origin, cursorMs: origin, finalMs: origin, delivered: new Map() });
  });

  it('caught up, polled every 30 s: each second of event time is read exactly twice, the second time delay + overlap after it', () => {
    // From a first start 10 minutes back, 40 polls; every next window is taken as delivered at once.
    const reads = new Map<number, number[]>();
    let checkpoint = initialCheckpoint(T0, { startBackMs: 10 * MIN });
    for (let now = T0; now < T0 + 40 * 30 * S; now += 30 * S) {
      for (let w = nextWindow(checkpoint, now, OPTS); w; w = nextWindow(checkpoint, now, OPTS)) {
        for (let t = w.startMs; t < w.endMs; t += S) reads.set(t, [...(reads.get(t) ?? []), now]);
        checkpoint = advance(checkpoint, passed(checkpoint, w, now, OPTS));
      }
    }
    const finalMs = checkpoint.finalMs;
    for (const [t, at] of reads) {
      // Behind the final position: once read at least delay + overlap after it, at most twice; past it, once so far.
      if (t < finalMs) expect(at.some((r) => r >= t + 7 * MIN) && at.length <= 2).toBe(true);
      else expect(at.length).toBe(1);
    }
    // Caught up: the first start's history was read once (7 minutes old at once), everything later twice.
    expect([...reads.values()].filter((at) => at.length === 2).length).toBeGreaterThan(15 * 60);
  });
});

describe('passed', () => {
  it.each<[string, Position, WindowPass, number, Position]>([
    ['a final pass moves final to its end, not the cursor', { cursorMs: T0 - 2 * MIN, finalMs: T0 - 8 * MIN }, final(T0 - 8 * MIN, T0 - 7 * MIN), T0, { cursorMs: T0 - 2 * MIN, finalMs: T0 - 7 * MIN }],
    ['a new window read delay + overlap after its end is final at once', { cursorMs: T0 - 60 * MIN, finalMs: T0 - 60 * MIN }, fresh(T0 - 60 * MIN, T0 - 45 * MIN), T0, { cursorMs: T0 - 45 * MIN, finalMs: T0 - 45 * MIN }],
    ['a new window read sooner: final up to delay + overlap before its reading', { cursorMs: T0 - 15 * MIN, finalMs: T0 - 15 * MIN }, fresh(T0 - 15 * MIN, T0 - 2 * MIN), T0 + 999, { cursorMs: T0 - 2 * MIN, finalMs: T0 - 7 * MIN }],
    ['caught up: the new window is not final', { cursorMs: T0 - 150 * S, finalMs: T0 - 7 * MIN }, fresh(T0 - 150 * S, T0 - 2 * MIN), T0, { cursorMs: T0 - 2 * MIN, finalMs: T0 - 7 * MIN }],
    ['a final pass pending before a new window: final stays', { cursorMs: T0 - 60 * MIN, finalMs: T0 - 65 * MIN }, fresh(T0 - 60 * MIN, T0 - 45 * MIN), T0, { cursorMs: T0 - 45 * MIN, finalMs: T0 - 65 * MIN }],
  ])('%s', (_name, position, window, readAtMs, expected) => {
    expect(passed(position, window, readAtMs, OPTS)).toEqual(expected);
  });
});

describe('resumed', () => {
  it.each<[string, SavedCheckpoint, number]>([
    ['a saved final position is kept', { originMs: T0 - 60 * MIN, cursorMs: T0, finalMs: T0 - 3 * MIN, delivered: new Map() }, T0 - 3 * MIN],
    ['a file without one (written before the final pass) reads its overlap once more', { originMs: T0 - 60 * MIN, cursorMs: T0, delivered: new Map() }, T0 - 5 * MIN],
    ['never before the origin', { originMs: T0 - 2 * MIN, cursorMs: T0, delivered: new Map() }, T0 - 2 * MIN],
  ])('%s', (_name, saved, finalMs) => {
    expect(resumed(saved, 5 * MIN).finalMs).toBe(finalMs);
  });
});

describe('rememberInPlace and advance', () => {
  const base = cp(T0 - 10 * MIN, T0 - 15 * MIN, T0 - 60 * MIN, [['old', T0 - 16 * MIN], ['edge', T0 - 15 * MIN], ['recent', T0 - 11 * MIN]]);

  it.each<[string, Array<[string, number]>, number | undefined, Array<[string, number]>]>([
    ['adds ids under their own time', [['a', T0 - 3 * MIN], ['b', T0 - 4 * MIN]], undefined, [['a', T0 - 3 * MIN], ['b', T0 - 4 * MIN]]],
    ['keeps an id under the window end when its time is earlier', [['a', T0 - 30 * MIN]], T0 - 2 * MIN, [['a', T0 - 2 * MIN]]],
    ['never moves a known id back', [['recent', T0 - 40 * MIN]], T0 - 20 * MIN, [['recent', T0 - 11 * MIN]]],
  ])('rememberInPlace %s, keeping the others', (_name, events, windowEndMs, expected) => {
    const delivered = new Map(base.delivered);
    rememberInPlace(delivered, events, windowEndMs);
    expect(new Map(delivered)).toEqual(new Map([...base.delivered, ...expected]));
  });

  it.each<[string, Position, Position, string[]]>([
    // Cursor T0-10m, final T0-15m: ids kept until T0-15m or later stay.
    ['a new window not final forgets nothing', { cursorMs: T0 - 5 * MIN, finalMs: T0 - 15 * MIN }, { cursorMs: T0 - 5 * MIN, finalMs: T0 - 15 * MIN }, ['edge', 'recent']],
    ['a final pass forgets the ids before its end (one kept until exactly it stays)', { cursorMs: T0 - 10 * MIN, finalMs: T0 - 11 * MIN }, { cursorMs: T0 - 10 * MIN, finalMs: T0 - 11 * MIN }, ['recent']],
    ['a backlog window final at once forgets all ids before it', { cursorMs: T0 - 5 * MIN, finalMs: T0 - 5 * MIN }, { cursorMs: T0 - 5 * MIN, finalMs: T0 - 5 * MIN }, []],
    ['never moves back', { cursorMs: T0 - 20 * MIN, finalMs: T0 - 30 * MIN }, { cursorMs: T0 - 10 * MIN, finalMs: T0 - 15 * MIN }, ['edge', 'recent']],
    ['final never passes the cursor', { cursorMs: T0 - 10 * MIN, finalMs: T0 - 5 * MIN }, { cursorMs: T0 - 10 * MIN, finalMs: T0 - 10 * MIN }, []],
  ])('advance: %s', (_name, to, expected, kept) => {
    const next = advance(base, to);
    expect({ cursorMs: next.cursorMs, finalMs: next.finalMs }).toEqual(expected);
    expect(next.originMs).toBe(base.originMs);
    expect([...next.delivered.keys()]).toEqual(kept);
  });
});
