// Deterministic randomness: the same seed always builds the same world, and a
// value derived from (seed, keys...) is the same whenever it is asked for, so
// statistics can be recomputed for any bucket without storing them.
import { InternalError } from '../shared/errors.js';

/** 32-bit FNV-1a over the joined keys. */
export function hash32(...keys: ReadonlyArray<string | number>): number {
  let h = 0x811c9dc5;
  const text = keys.join('\u0000');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A uniform float in [0, 1) derived from the keys. */
export function unit(...keys: ReadonlyArray<string | number>): number {
  return mix(hash32(...keys)) / 4294967296;
}

function mix(x: number): number {
  let z = (x + 0x6d2b79f5) >>> 0;
  z = Math.imul(z ^ (z >>> 15), z | 1);
  z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
  return (z ^ (z >>> 14)) >>> 0;
}

/** mulberry32: a small seeded PRNG for building the world in order. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    return mix(this.state) / 4294967296;
  }
  int(min: number, maxInclusive: number): number {
    return min + Math.floor(this.next() * (maxInclusive - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new InternalError('pick from an empty list');
    return item;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}
