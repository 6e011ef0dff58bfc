// One collector's pages waiting for the receiver. A page is staged when its
// cycle adds it and committed once the ledger file holding it is on disk:
// only committed pages are handed to the sender, so a page the receiver
// confirmed is always in a file, and the confirmation's seq never names a
// page a restart could make again under the same seq.
import type { HistoryFile } from './file.js';
import { paginate } from './pages.js';
import type { KeyedSample, TimedSample } from './samples.js';

export interface QueuedPage {
  readonly owner: string;
  readonly seq: number;
  readonly createdMs: number;
  readonly samples: readonly TimedSample[];
}

export class HistoryQueue {
  private readonly pages: QueuedPage[] = [];
  private nextSeq = 1;
  /** Pages with seq up to here are in a file on disk. */
  private committedSeq = 0;
  /** Per gauge family: the newest time queued, saved (a floor for every series of it after a restart). */
  private readonly gaugeFloors = new Map<string, number>();
  /** Per gauge series: the newest time queued in this process. */
  private readonly gaugeLast = new Map<string, number>();
  private samples = 0;

  constructor(readonly owner: string) {}

  get pendingSamples(): number {
    return this.samples;
  }

  /** The oldest page the sender may take: committed and not settled. */
  head(): QueuedPage | undefined {
    const page = this.pages[0];
    return page !== undefined && page.seq <= this.committedSeq ? page : undefined;
  }

  /** The last gauge time of a series, or its family's floor after a restart. */
  lastGauge(key: string, family: string): number | undefined {
    return this.gaugeLast.get(key) ?? this.gaugeFloors.get(family);
  }

  /** Adds a cycle's samples as pages of at most `max`; staged until committed. Returns the pages added. */
  add(samples: readonly KeyedSample[], max: number, now: number): number {
    for (const s of samples) {
      const family = s.gaugeFamily;
      if (family === undefined) continue;
      this.gaugeLast.set(s.key, s.timestampMs);
      this.gaugeFloors.set(family, Math.max(this.gaugeFloors.get(family) ?? s.timestampMs, s.timestampMs));
    }
    const pages = paginate(samples, max);
    for (const page of pages) {
      this.pages.push({ owner: this.owner, seq: this.nextSeq++, createdMs: now, samples: page.map(({ name, labels, timestampMs, value }) => ({ name, labels, timestampMs, value })) });
      this.samples += page.length;
    }
    return pages.length;
  }

  /** The file's content now, and the seq it commits once written. */
  writing(): { readonly file: HistoryFile; readonly upTo: number } {
    return {
      upTo: this.nextSeq - 1,
      file: {
        nextSeq: this.nextSeq,
        gaugeFloors: Object.fromEntries(this.gaugeFloors),
        pages: this.pages.map((p) => ({ seq: p.seq, createdMs: p.createdMs, samples: p.samples.map((s) => [s.name, { ...s.labels }, s.timestampMs, s.value] as [string, Record<string, string>, number, number]) })),
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
    this.pages.shift();
    this.samples -= head.samples.length;
    return true;
  }

  /** Drops the oldest page that is not the head (the head may be on the wire); its sample count, 0 when there is none. */
  dropOldest(): { readonly createdMs: number; readonly samples: number } | undefined {
    const page = this.pages[1];
    if (page === undefined) return undefined;
    this.pages.splice(1, 1);
    this.samples -= page.samples.length;
    return { createdMs: page.createdMs, samples: page.samples.length };
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
    this.pages.length = 0;
    this.samples = 0;
    this.gaugeFloors.clear();
    this.gaugeLast.clear();
    for (const page of file?.pages ?? []) {
      if (page.seq <= settled) continue;
      this.pages.push({ owner: this.owner, seq: page.seq, createdMs: page.createdMs, samples: page.samples.map(([name, labels, timestampMs, value]) => ({ name, labels, timestampMs, value })) });
      this.samples += page.samples.length;
    }
    for (const [family, ms] of Object.entries(file?.gaugeFloors ?? {})) this.gaugeFloors.set(family, ms);
    this.nextSeq = Math.max(file?.nextSeq ?? 1, settled + 1);
    this.committedSeq = this.nextSeq - 1;
  }
}
