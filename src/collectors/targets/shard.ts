// Which shard owns a domain or a package: a pure function of the name and the
// shard count, so every replica computes the same partition on its own, with
// no coordination, whatever order the upstream lists names in.
//
// The key is 64-bit FNV-1a of the name's UTF-8 bytes, mixed (mix64). The
// simulator has an FNV-1a of its own (src/simulator/rng.ts), but collectors
// must not import the simulator (STYLE.md: dependencies point one way), and
// this one must never change: a change would move every series to another
// replica (test/collectors/targets/shard.test.ts pins a few owners). The owner is
// chosen with jump consistent hashing (Lamping & Veach, 2014) rather than
// `hash % count`: when shard.count grows from n to n + 1 only about 1/(n + 1)
// of the names move (all of them to the new shard), where a modulo would move
// about n/(n + 1) of them, each move being a counter that restarts on another
// replica and a WAF event checkpoint that changes hands.
import { ArgumentError } from '../../shared/errors.js';

export interface Shard {
  /** 0-based; shard 0 also runs the account-wide collectors (of an unnamed account; placement.ts). */
  readonly index: number;
  /** Replicas the targets are spread over; 1 = unsharded. */
  readonly count: number;
  /**
   * The named account whose targets are placed: a target's owner is then
   * that of `<account>/<name>`, so two accounts' targets of one name are
   * placed apart like any two targets. Unset for a config that names no
   * account, whose owners stay those pinned in the tests.
   */
  readonly account?: string;
}

export const UNSHARDED: Shard = Object.freeze({ index: 0, count: 1 });

const MASK64 = (1n << 64n) - 1n;
const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const JUMP_MULTIPLIER = 2862933555777941757n;
const UTF8 = new TextEncoder();

/** 64-bit FNV-1a over the UTF-8 bytes of `name`. */
export function fnv1a64(name: string): bigint {
  let h = FNV64_OFFSET;
  for (const byte of UTF8.encode(name)) h = ((h ^ BigInt(byte)) * FNV64_PRIME) & MASK64;
  return h;
}

/**
 * splitmix64's finalizer. FNV-1a's last byte reaches the high bits the jump
 * reads only through one multiplication, so names that differ in their last
 * characters (d1, d2, ...) split less evenly; this spreads every bit.
 */
function mix64(x: bigint): bigint {
  let z = x;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/** The shard, in [0, count), that owns `name`. */
export function shardOf(name: string, count: number): number {
  if (!Number.isSafeInteger(count) || count < 1) throw new ArgumentError(`shard count must be a positive integer, got ${count}`);
  // The paper calls the shards buckets; here a bucket is a slice of time, so the jump lands on an owner.
  let key = mix64(fnv1a64(name));
  let owner = -1;
  let next = 0;
  while (next < count) {
    owner = next;
    key = (key * JUMP_MULTIPLIER + 1n) & MASK64;
    next = Math.floor((owner + 1) * (2 ** 31 / Number((key >> 33n) + 1n)));
  }
  return owner;
}

/** Throws an ArgumentError unless 0 <= index < count, both integers. */
export function checkShard(shard: Shard): void {
  const { index, count } = shard;
  if (!Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(index) || index < 0 || index >= count) {
    throw new ArgumentError(`invalid shard ${index}/${count}: need 0 <= index < count`);
  }
}

/** A predicate for the names `shard` owns (every name when unsharded, without hashing). */
export function ownedBy(shard: Shard): (name: string) => boolean {
  checkShard(shard);
  if (shard.count === 1) return () => true;
  const { account } = shard;
  return account === undefined ? (name) => shardOf(name, shard.count) === shard.index : (name) => shardOf(`${account}/${name}`, shard.count) === shard.index;
}

/** The names `shard` owns, in their order. */
export function shareOf(names: readonly string[], shard: Shard): string[] {
  const owns = ownedBy(shard);
  return names.filter(owns);
}
