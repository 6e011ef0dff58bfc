// One collector's pages waiting for the receiver. A page is staged when its
// cycle adds it and committed once the ledger file holding it is on disk:
// only committed pages are handed to the sender, so a page the receiver
// confirmed is always in a file, and the confirmation's seq never names a
// page a restart could make again under the same seq.
import { seriesKey } from '../../collectors/series/keys.js';
import type { HistoryFile, Stride } from './file.js';
import { paginate } from './pages.js';
import type { KeyedSample, TimedSample } from './samples.js';
import { SeriesTable } from './series-table.js';

/** A gauge series not queued for this long is forgotten: its family's floor stands for it. */
const GAUGE_MEMORY_MS = 60 * 60_000;

export interface QueuedPage {
  readonly owner: string;
  readonly seq: number;
  readonly createdMs: number;
  /** The pipe's tag when the page was made (HistoryPipe.tag). */
  readonly tag?: string;
  readonly samples: readonly TimedSample[];
}

/**
 * A page as the queue keeps it: rows of [series, time, value] (stride 3) or
 * [series, start, time, value] (stride 4); its samples are made when the
 * sender first reads them.
 */
class PackedPage implements QueuedPage {
  private made: TimedSample[] | undefined;

  constructor(
    readonly owner: string,
    readonly seq: number,
    readonly createdMs: number,
    readonly data: Float64Array,
    private readonly table: SeriesTable,
    private readonly stride: Stride,
    readonly tag: string | undefined,
  ) {}

  get length(): number {
    return this.data.length / this.stride;
  }

  /** Kept once made: the sender reads them again after the page left the queue (and its series the table). */
  get samples(): readonly TimedSample[] {
    if (this.made === undefined) {
      const out: TimedSample[] = [];
      const { data, stride } = this;
      for (let i = 0; i < data.length; i += stride) {
        const { name, labels } = this.table.get(data[i] ?? -1);
        const timestampMs = data[i + stride - 2] ?? NaN;
        const value = data[i + stride - 1] ?? NaN;
        out.push(stride === 4 ? { name, labels, startMs: data[i + 1] ?? NaN, timestampMs, value } : { name, labels, timestampMs, value });
      }
      this.made = out;
    }
    return this.made;
  }

  /** Adds (+1) or drops (-1) this page's hold on its series. */
  hold(delta: 1 | -1): void {
    for (let i = 0; i < this.data.length; i += this.stride) this.table.ref(this.data[i] ?? -1, delta);
  }
}

export class HistoryQueue {
  private readonly pages: PackedPage[] = [];
  private readonly table = new SeriesTable();
  private nextSeq = 1;
  /** Pages with seq up to here are in a file on disk. */
  private committedSeq = 0;
  /** Per gauge family: the newest time queued, saved (a floor for every series of it after a restart). */
  private readonly gaugeFloors = new Map<string, number>();
  /** Per gauge series: the newest time queued in this process (for an hour). */
  private readonly gaugeLast = new Map<string, number>();
  private samples = 0;

  constructor(
    readonly owner: string,
    private readonly stride: Stride,
    private readonly tag?: string,
  ) {}

  get pendingSamples(): number {
    return this.samples;
  }

  /** The oldest page the sender may take: committed and not settled. */
  head(): QueuedPage | undefined {
    const page = this.pages[0];
    return page !== undefined && page.seq <= this.committedSeq ? page : undefined;
  }

  /** The last gauge time of a series, or its family's floor after a restart or an hour without it. */
  lastGauge(key: string, family: string): number | undefined {
    return this.gaugeLast.get(key) ?? this.gaugeFloors.get(family);
  }

  /** Adds a cycle's samples as pages of at most `max`; staged until committed. */
  add(samples: readonly KeyedSample[], max: number, now: number): void {
    for (const s of samples) {
      const family = s.gaugeFamily;
      if (family === undefined) continue;
      this.gaugeLast.set(s.key, s.timestampMs);
      this.gaugeFloors.set(family, Math.max(this.gaugeFloors.get(family) ?? s.timestampMs, s.timestampMs));
    }
    for (const [key, at] of this.gaugeLast) if (at < now - GAUGE_MEMORY_MS) this.gaugeLast.delete(key);
    for (const page of paginate(samples, max)) {
      const stride = this.stride;
      const data = new Float64Array(page.length * stride);
      page.forEach((s, i) => {
        const at = i * stride;
        data[at] = this.table.index(s.key, s.name, s.labels);
        if (stride === 4) data[at + 1] = s.startMs ?? s.timestampMs;
        data[at + stride - 2] = s.timestampMs;
        data[at + stride - 1] = s.value;
      });
      const packed = new PackedPage(this.owner, this.nextSeq++, now, data, this.table, stride, this.tag);
      packed.hold(1);
      this.pages.push(packed);
      this.samples += packed.length;
    }
  }

  /** The file's content now, and the seq it commits once written. */
  writing(): { readonly file: HistoryFile; readonly upTo: number } {
    return {
      upTo: this.nextSeq - 1,
      file: {
        nextSeq: this.nextSeq,
        gaugeFloors: Object.fromEntries(this.gaugeFloors),
        series: [...this.table.held()].map(([i, { name, labels }]) => [i, name, { ...labels }] as [number, string, Record<string, string>]),
        pages: this.pages.map((p) => ({ seq: p.seq, createdMs: p.createdMs, ...(p.tag === undefined ? {} : { tag: p.tag }), samples: Array.from(p.data) })),
      },
    };
  }

  /** The file written by `writing()` is on disk. */
  committed(upTo: number): void {
    this.committedSeq = Math.max(this.committedSeq, upTo);
  }

  /** The head left the queue (confirmed or refused); false when `seq` is not the head. */
  settle(seq: number): boolean {
    const head = this.pages[0];
    if (head?.seq !== seq) return false;
    this.remove(0);
    return true;
  }

  /** Drops the oldest page that is not the head (the head may be on the wire); its sample count, undefined when there is none. */
  dropOldest(): number | undefined {
    return this.pages[1] === undefined ? undefined : this.remove(1);
  }

  /** Creation time of the oldest page `dropOldest` would drop. */
  oldestDroppable(): number | undefined {
    return this.pages[1]?.createdMs;
  }

  /**
   * Replaces the queue with a file's: pages up to `settled` (the receiver's
   * last confirmation) are gone; seqs continue past both, so a page made
   * after a ledger file was lost or reset never reuses a confirmed seq.
   */
  restore(file: HistoryFile | undefined, settled: number): void {
    while (this.pages.length > 0) this.remove(0);
    this.gaugeFloors.clear();
    this.gaugeLast.clear();
    const kept = (file?.pages ?? []).filter((page) => page.seq > settled);
    // Only the series the kept pages hold, at the indices those pages name.
    const used = new Set<number>();
    for (const page of kept) for (let i = 0; i < page.samples.length; i += this.stride) used.add(page.samples[i] ?? -1);
    for (const [i, name, labels] of file?.series ?? []) if (used.has(i)) this.table.place(i, seriesKey(name, labels), name, labels);
    this.table.sealed();
    for (const page of kept) {
      const packed = new PackedPage(this.owner, page.seq, page.createdMs, Float64Array.from(page.samples), this.table, this.stride, page.tag);
      packed.hold(1);
      this.pages.push(packed);
      this.samples += packed.length;
    }
    for (const [family, ms] of Object.entries(file?.gaugeFloors ?? {})) this.gaugeFloors.set(family, ms);
    this.nextSeq = Math.max(file?.nextSeq ?? 1, settled + 1);
    this.committedSeq = this.nextSeq - 1;
  }

  private remove(at: number): number {
    const [page] = this.pages.splice(at, 1);
    if (page === undefined) return 0;
    page.hold(-1);
    this.samples -= page.length;
    return page.length;
  }
}
