// The partition every replica computes on its own: it must never change
// (pinned values), give every name exactly one owner, spread names evenly,
// and move few names when the count grows.
import { describe, expect, it } from 'vitest';
import { fnv1a64, ownedBy, shardOf, shareOf, UNSHARDED, type Shard } from '../../../src/collectors/targets/shard.js';
import { ArgumentError } from '../../../src/shared/errors.js';

/** Names shaped like the ones an account holds: numbered hosts, packages, an IDN. */
const NAMES: readonly string[] = [
  ...Array.from({ length: 1500 }, (_, i) => `d${i}.example.com`),
  ...Array.from({ length: 1000 }, (_, i) => `www-${i}.shop.example.cn`),
  ...Array.from({ length: 500 }, (_, i) => `pkg-${String(i).padStart(6, '0')}`),
];
const COUNTS = [1, 2, 3, 4, 5] as const;
/** Owners of a few names for counts 2, 3, 5 and 16, as first computed; see the test that reads it. */
const PINNED = [[1, 1, 1, 9], [0, 0, 0, 6], [1, 1, 1, 11], [1, 1, 3, 3], [1, 1, 3, 10]];
const shards = (count: number): Shard[] => Array.from({ length: count }, (_, index) => ({ index, count }));

describe('fnv1a64', () => {
  // Reference vectors of 64-bit FNV-1a (http://www.isthe.com/chongo/tech/comp/fnv/).
  it.each([
    ['', 0xcbf29ce484222325n],
    ['a', 0xaf63dc4c8601ec8cn],
    ['foobar', 0x85944171f73967e8n],
  ])('hashes %j as the reference does', (text, expected) => {
    expect(fnv1a64(text)).toBe(expected);
  });

  it('hashes the UTF-8 bytes (not UTF-16 units), as another implementation would', () => {
    let h = 0xcbf29ce484222325n;
    for (const byte of [0xc3, 0xa9]) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
    expect(fnv1a64('\u00e9')).toBe(h);
  });
});

describe('shardOf', () => {
  it('is pinned: these owners must never change (a change moves series between replicas)', () => {
    const names = ['example.com', 'www.example.com', 'd0.example.com', 'pkg-000001', '例子.cn'];
    expect(names.map((n) => [2, 3, 5, 16].map((count) => shardOf(n, count)))).toEqual(PINNED);
  });

  it.each(COUNTS)('puts every name in exactly one shard of %i, and the same one on every call', (count) => {
    const owners = NAMES.map((name) => shards(count).filter((s) => ownedBy(s)(name)).map((s) => s.index));
    expect(owners.every((o) => o.length === 1)).toBe(true);
    expect(NAMES.map((n) => shardOf(n, count))).toEqual(owners.map((o) => o[0]));
    // The shares are disjoint and together are the whole list, in its order.
    const shares = shards(count).map((s) => shareOf(NAMES, s));
    expect(shares.flat().sort()).toEqual([...NAMES].sort());
    for (const share of shares) expect(share).toEqual(NAMES.filter((n) => share.includes(n)));
  });

  it.each(COUNTS)('spreads names evenly over %i shards (each within 10%% of the mean)', (count) => {
    const sizes = shards(count).map((s) => shareOf(NAMES, s).length);
    const mean = NAMES.length / count;
    for (const size of sizes) expect(Math.abs(size - mean) / mean).toBeLessThan(0.1);
  });

  it.each([1, 2, 3, 4])('moves only names bound for the new shard when the count grows from %i', (count) => {
    const moved = NAMES.filter((n) => shardOf(n, count) !== shardOf(n, count + 1));
    expect(moved.every((n) => shardOf(n, count + 1) === count)).toBe(true);
    // About 1/(count + 1) of them, where `hash % count` would move about count/(count + 1).
    expect(moved.length / NAMES.length).toBeLessThan(1.2 / (count + 1));
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a count of %s', (count) => {
    expect(() => shardOf('example.com', count)).toThrow(ArgumentError);
  });
});

describe('ownedBy', () => {
  it('owns every name when unsharded', () => {
    expect(NAMES.every(ownedBy(UNSHARDED))).toBe(true);
  });

  it.each([
    { index: 3, count: 3 },
    { index: -1, count: 3 },
    { index: 0, count: 0 },
    { index: 0.5, count: 2 },
  ])('refuses shard %o', (shard) => {
    expect(() => ownedBy(shard)).toThrow(/invalid shard/);
  });
});
