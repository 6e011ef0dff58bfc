// Every collector's history queue for one pipe (remote-write, or OTLP
// metrics), as its sender sees it: the head page of each, the samples
// pending, and settling a page, which is on disk (`<pipe>-acks.json`) before
// the sender goes on. Each pipe has its own queues, pages and confirmations,
// so one receiver down never holds the other's back. Bounded: past
// `maxPendingSamples` the oldest pages are dropped (never a head, which may
// be on the wire) and reported, so a receiver gone for days costs a known
// amount of memory and disk.
import { FAIL_ON_DAMAGE, loadRecovering, type StateRecovery, type StateReset } from '../../state/recovery.js';
import type { StateStore } from '../../state/store.js';
import { acksFileSchema, type HistoryFile, type Stride } from './file.js';
import { HistoryQueue, type QueuedPage } from './queue.js';
import type { HistoryInput, SampleContext, Sampler } from './samples.js';
import { InternalError } from '../../shared/errors.js';

/** What tells one pipe's history apart: its name in messages, its files, its rows and how a cycle becomes its samples. */
export interface HistoryPipe {
  /** In messages: `remote-write`, `OTLP metrics`. */
  readonly name: string;
  /** The confirmations' state file (`remote-write-acks`, `otlp-metrics-acks`). */
  readonly acksFile: string;
  /** The ledger file's member holding this pipe's pages (`history`, `otlpHistory`). */
  readonly member: 'history' | 'otlpHistory';
  readonly stride: Stride;
  readonly sampler: Sampler;
  /** Kept with every page it makes (OTLP metrics: the temporality its points are in), restored with it. */
  readonly tag?: string;
}

interface HistoryQueuesOptions {
  readonly pipe: HistoryPipe;
  readonly store: Pick<StateStore, 'load' | 'save'>;
  /** Most samples in a page (max_samples_per_send, max_points_per_send). */
  readonly pageSize: number;
  readonly maxPendingSamples: number;
  /** Samples dropped to stay under maxPendingSamples. */
  readonly onDropped?: (samples: number) => void;
  /** The samples pending, whenever that changes. */
  readonly onPending?: (samples: number) => void;
  /** What a damaged acks file does at start-up (state_recovery); default: start-up fails. */
  readonly recovery?: StateRecovery;
  /** Hears of a damaged acks file put aside (state_recovery: reset), for a log line. */
  readonly onReset?: (reset: StateReset) => void;
}

export class HistoryQueues {
  private readonly queues = new Map<string, HistoryQueue>();
  private readonly listeners = new Set<() => void>();
  private settled: Record<string, number> = {};
  private loading: Promise<void> | undefined;
  /** Acknowledgement writes run one after another, so the last one called is the one on disk. */
  private acks: Promise<void> = Promise.resolve();

  constructor(private readonly options: HistoryQueuesOptions) {}

  /** Reads the receiver's confirmations; once, before any queue is restored. */
  load(): Promise<void> {
    this.loading ??= (async () => {
      const { store, recovery, onReset, pipe } = this.options;
      const { value, reset } = await loadRecovering(recovery ?? FAIL_ON_DAMAGE, pipe.acksFile, () => store.load(pipe.acksFile, acksFileSchema), {
        refusal: 'Refusing to start rather than push again what the receiver may already have',
        remedy: 'Remove it (the samples still waiting in the ledger files are pushed again: duplicates, or refused as out of order where the receiver has newer ones), or set state_recovery: reset to have that done at start-up',
      });
      if (reset !== undefined) onReset?.(reset);
      this.settled = { ...(value?.settled ?? {}) };
    })();
    return this.loading;
  }

  /** Restores a collector's queue from its ledger file's `history` (absent: an empty queue). */
  restore(owner: string, file: HistoryFile | undefined): void {
    this.queue(owner).restore(file, this.settled[owner] ?? 0);
    this.reportPending();
  }

  get pipe(): HistoryPipe {
    return this.options.pipe;
  }

  /**
   * A cycle's samples, as the pipe's sampler makes them from the cycle and
   * each series' total before it and start (the ledger's), gauges newer than
   * their series' last. Staged until the ledger file holding them is written
   * (`writing`, `committed`).
   */
  add(owner: string, input: HistoryInput, counters: Omit<SampleContext, 'lastGauge'>): void {
    const queue = this.queue(owner);
    const samples = this.options.pipe.sampler(input, { ...counters, lastGauge: (key, family) => queue.lastGauge(key, family) });
    if (samples.length === 0) return;
    queue.add(samples, this.options.pageSize, input.now);
    this.bound();
    this.reportPending();
  }

  writing(owner: string): ReturnType<HistoryQueue['writing']> {
    return this.queue(owner).writing();
  }

  /** The ledger file holding pages up to `upTo` is on disk: the sender may take them. */
  committed(owner: string, upTo: number): void {
    this.queue(owner).committed(upTo);
    for (const listener of this.listeners) listener();
  }

  heads(): QueuedPage[] {
    const out: QueuedPage[] = [];
    for (const q of this.queues.values()) {
      const head = q.head();
      if (head !== undefined) out.push(head);
    }
    return out;
  }

  pendingSamples(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.pendingSamples;
    return n;
  }

  /** The pages leave their queues; resolves once the confirmation is on disk. */
  async settle(pages: readonly QueuedPage[]): Promise<void> {
    for (const page of pages) {
      if (!this.queue(page.owner).settle(page.seq)) throw new InternalError(`${this.options.pipe.name}: page ${page.owner}#${page.seq} is not the head of its queue`);
      this.settled[page.owner] = page.seq;
    }
    this.reportPending();
    const snapshot = { settled: { ...this.settled } };
    const write = this.acks.then(() => this.options.store.save(this.options.pipe.acksFile, snapshot));
    this.acks = write.catch(() => undefined);
    await write;
  }

  onPages(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private reportPending(): void {
    this.options.onPending?.(this.pendingSamples());
  }

  private bound(): void {
    let over = this.pendingSamples() - this.options.maxPendingSamples;
    while (over > 0) {
      let oldest: HistoryQueue | undefined;
      for (const q of this.queues.values()) {
        const at = q.oldestDroppable();
        if (at !== undefined && (oldest === undefined || at < (oldest.oldestDroppable() ?? Infinity))) oldest = q;
      }
      const dropped = oldest?.dropOldest();
      if (dropped === undefined) return;
      over -= dropped;
      this.options.onDropped?.(dropped);
    }
  }

  private queue(owner: string): HistoryQueue {
    let q = this.queues.get(owner);
    if (!q) {
      q = new HistoryQueue(owner, this.options.pipe.stride, this.options.pipe.tag);
      // Seqs continue past the last confirmation even for a queue no file restored (a state file reset or removed).
      q.restore(undefined, this.settled[owner] ?? 0);
      this.queues.set(owner, q);
    }
    return q;
  }
}
