// The series of the pages waiting in one queue, each held once: a page keeps
// [series index, time, value] triples in a Float64Array rather than an object
// per sample with its own copy of the labels (900,000 waiting samples, an
// hour of a 1,000-domain account, took 800 MB as objects). A series counts
// the pages that hold it and leaves the table with the last of them, so top-N
// keys that come and go do not pile up.
import type { Labels } from '../../collectors/series/keys.js';
import { InternalError } from '../../shared/errors.js';

interface SeriesEntry {
  readonly name: string;
  readonly labels: Labels;
}

export class SeriesTable {
  private readonly entries: Array<(SeriesEntry & { refs: number; key: string }) | undefined> = [];
  private readonly byKey = new Map<string, number>();
  private readonly free: number[] = [];

  get size(): number {
    return this.byKey.size;
  }

  /** The series' index, entering it (with no reference yet) if it is new. */
  index(key: string, name: string, labels: Labels): number {
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    const i = this.free.pop() ?? this.entries.length;
    this.entries[i] = { key, name, labels, refs: 0 };
    this.byKey.set(key, i);
    return i;
  }

  /** Puts a series back at a known index (restoring a file). */
  place(i: number, key: string, name: string, labels: Labels): void {
    this.entries[i] = { key, name, labels, refs: 0 };
    this.byKey.set(key, i);
  }

  /** After restoring: the holes become free indices. */
  sealed(): void {
    this.free.length = 0;
    for (let i = 0; i < this.entries.length; i++) if (this.entries[i] === undefined) this.free.push(i);
  }

  get(i: number): SeriesEntry {
    const e = this.entries[i];
    if (e === undefined) throw new InternalError(`history: no series at index ${i}`);
    return e;
  }

  /** A page holding the series came (+1) or went (-1); a series no page holds leaves. */
  ref(i: number, delta: 1 | -1): void {
    const e = this.entries[i];
    if (e === undefined) return;
    e.refs += delta;
    if (e.refs > 0) return;
    this.entries[i] = undefined;
    this.byKey.delete(e.key);
    this.free.push(i);
  }

  /** Every series still held, with its index. */
  *held(): Iterable<readonly [number, SeriesEntry]> {
    for (let i = 0; i < this.entries.length; i++) {
      const e = this.entries[i];
      if (e !== undefined) yield [i, { name: e.name, labels: e.labels }];
    }
  }
}
