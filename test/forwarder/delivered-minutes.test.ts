// What the forwarder keeps for the delivery audit (delivered-minutes.ts):
// counts per minute, id hashes inside the look-back and within their cap,
// what a write journals and a load replays, and where the audit may begin
// (audit-scope.ts).
import { describe, expect, it } from 'vitest';
import { DeliveredMinutes } from '../../src/forwarder/delivered-minutes.js';
import { ANY_SCOPE, auditFrom, scopeKey } from '../../src/forwarder/audit-scope.js';
import { uidHash } from '../../src/forwarder/uid-hash.js';

const MIN = 60_000;
const T = Date.UTC(2026, 2, 2, 4, 0, 0);

describe('uidHash', () => {
  it('is the saved value, a safe integer, and tells ids apart', () => {
    // Saved in checkpoints: it must never change.
    expect(uidHash('abc')).toBe(5059922895146125);
    expect(uidHash('')).toBe(3338908027751811);
    const ids = Array.from({ length: 100_000 }, (_, i) => `0a1b2c3d${i.toString(16)}`);
    const hashes = ids.map(uidHash);
    expect(hashes.every(Number.isSafeInteger)).toBe(true);
    expect(new Set(hashes).size).toBe(ids.length);
  });
});

describe('DeliveredMinutes', () => {
  it('counts per minute of event time and tells delivered ids from others', () => {
    const m = new DeliveredMinutes(100);
    m.add('a', T + 1000);
    m.add('b', T + 59_999);
    m.add('c', T + MIN);
    expect(m.count(T, T + MIN)).toBe(2);
    expect(m.count(T, T + 2 * MIN)).toBe(3);
    expect(m.holds('a', T + 5)).toBe(true);
    expect(m.holds('c', T + 5)).toBe(false);
    expect(m.holds('c', T + MIN + 5)).toBe(true);
    expect(m.holds('z', T + 3 * MIN)).toBe(false);
    // A look-up set made, then an id added: found without building it again.
    m.add('d', T + 2);
    expect(m.holds('d', T)).toBe(true);
  });

  it('keeps no hashes for minutes older than the look-back, only their counts', () => {
    const m = new DeliveredMinutes(100);
    // The audit's check: counts from long ago, hashes from T on.
    m.forget(T - 120 * MIN, T);
    m.add('old', T - MIN);
    m.add('new', T);
    expect(m.count(T - MIN, T + MIN)).toBe(2);
    expect(m.holds('old', T - MIN)).toBeUndefined();
    expect(m.holds('new', T)).toBe(true);
    expect(m.size).toEqual({ minutes: 2, hashes: 1 });
  });

  it('past its cap gives up the oldest minutes\' hashes in memory, counts kept; every hash still goes to its file', () => {
    const m = new DeliveredMinutes(5);
    for (let i = 0; i < 3; i++) m.add(`a${i}`, T);
    for (let i = 0; i < 3; i++) m.add(`b${i}`, T + MIN);
    expect(m.size.hashes).toBe(3);
    expect(m.givenUp).toBe(1);
    expect(m.holds('a0', T)).toBeUndefined();
    expect(m.inFiles(T, T + 2 * MIN)).toEqual([T]);
    expect(m.holds('b0', T + MIN)).toBe(true);
    expect(m.count(T, T + 2 * MIN)).toBe(6);
    const { counts, hashes } = m.takeChanges();
    expect(counts).toEqual([[T, 3], [T + MIN, 3]]);
    expect([...hashes].map(([minute, list]) => [minute, list.length])).toEqual([[T, 3], [T + MIN, 3]]);
    expect(m.changed).toBe(false);
  });

  it('loads as the running one was: counts from the checkpoint, hashes from their files', () => {
    const m = new DeliveredMinutes(1000);
    m.add('a', T);
    m.add('b', T + MIN);
    m.uncount(T + MIN, 1);
    m.add('c', T + 2 * MIN);
    const counts = m.entries();
    const { hashes } = m.takeChanges();
    const loaded = new DeliveredMinutes(1000);
    loaded.restore(counts);
    for (const [minute, list] of hashes) loaded.restoreHashes(minute, Float64Array.from(list));
    for (const [id, at] of [['a', T], ['b', T + MIN], ['c', T + 2 * MIN]] as const) expect(loaded.holds(id, at)).toBe(true);
    expect(loaded.count(T, T + MIN)).toBe(1);
    expect(loaded.count(T + MIN, T + 2 * MIN)).toBe(0);
    expect(loaded.entries()).toEqual(m.entries());
  });

  it('puts back the hashes a write could not put in their files, ahead of newer ones', () => {
    const m = new DeliveredMinutes(1000);
    m.add('a', T);
    const first = m.takeChanges();
    m.add('b', T);
    m.putBack(first.hashes);
    expect(m.takeChanges().hashes.get(T)).toEqual([uidHash('a'), uidHash('b')]);
  });

  it('keeps a minute of a flood across its chunks: every id found, and found again after a load', () => {
    const m = new DeliveredMinutes(1_000_000);
    // 20,000 ids in one minute: chunks of 64, 128, … 8,192, then more of 8,192.
    const ids = Array.from({ length: 20_000 }, (_, i) => `flood${i}`);
    for (const id of ids) m.add(id, T + 30_000);
    const loaded = new DeliveredMinutes(1_000_000);
    loaded.restore(m.entries());
    for (const [minute, list] of m.takeChanges().hashes) loaded.restoreHashes(minute, Float64Array.from(list));
    for (const d of [m, loaded]) {
      expect(ids.every((id) => d.holds(id, T))).toBe(true);
      expect(d.holds('flood20000', T)).toBe(false);
      expect(d.count(T, T + MIN)).toBe(20_000);
      expect(d.size.hashes).toBe(20_000);
    }
  });

  it('forgets counts before one instant and hashes before another', () => {
    const m = new DeliveredMinutes(1000);
    for (let i = 0; i < 4; i++) m.add(`x${i}`, T + i * MIN);
    m.forget(T + MIN, T + 3 * MIN);
    expect(m.count(T, T + 4 * MIN)).toBe(3);
    expect(m.holds('x1', T + MIN)).toBeUndefined();
    expect(m.holds('x3', T + 3 * MIN)).toBe(true);
    expect(m.size).toEqual({ minutes: 3, hashes: 1 });
  });
});

describe('where the audit may begin', () => {
  it.each<[string, Parameters<typeof auditFrom>[0], string, number]>([
    ['a first start: its origin, for the first domains read', { fromMs: T, scope: ANY_SCOPE }, '*', T],
    ['the same domains: as saved', { fromMs: T, scope: scopeKey(['b', 'a']) }, scopeKey(['a', 'b']), T],
    ['a checkpoint from before the audit: the first whole minute past the cursor', undefined, '*', T + 2 * MIN],
    ['other domains (a shard\'s share moved): past the cursor', { fromMs: T, scope: scopeKey(['a']) }, scopeKey(['a', 'b']), T + 2 * MIN],
  ])('%s', (_name, saved, scope, fromMs) => {
    expect(auditFrom(saved, scope, T + MIN + 500)).toEqual({ fromMs, scope });
  });

  it('keys a domain list by its members, every domain as *', () => {
    expect(scopeKey(undefined)).toBe('*');
    expect(scopeKey([])).toBe('*');
    expect(scopeKey(['b', 'a'])).toBe(scopeKey(['a', 'b']));
    expect(scopeKey(['a'])).not.toBe(scopeKey(['a', 'b']));
  });
});
