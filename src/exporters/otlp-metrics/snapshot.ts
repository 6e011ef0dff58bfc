// The families that have no upstream bucket (the exporter's own
// `edge_exporter_*`, process metrics, the WAF events counter) go over OTLP as
// a snapshot every `interval`: a source of at most one page, beside the
// durable history. Not durable: these values live in the process (the WAF
// counter's own checkpoint keeps its total), and the next snapshot carries
// what a crash lost. In delta, each counter's point runs from the last point
// the receiver confirmed (or refused) to now, so a snapshot that waits for a
// receiver down is not followed by another over the same time: no new one is
// taken while one is pending, and the next covers the whole gap.
import { seriesKey } from '../../collectors/index.js';
import type { Temporality, TimedSample } from '../../counters/index.js';
import type { FamilySnapshot } from '../prometheus/serialize.js';
import type { HistorySource, PageSettlement } from '../push/source.js';
import type { OtlpPage, SnapshotPoint } from './points.js';

/** The owner of snapshot pages, apart from every collector's. */
const SNAPSHOT_OWNER = '(snapshot)';

interface SnapshotSourceOptions {
  /** The families to push now, as /metrics would serve them. */
  readonly families: () => Promise<readonly FamilySnapshot[]>;
  readonly temporality: Temporality;
  /** Where a cumulative counter of the process starts (epoch ms). */
  readonly startMs: number;
  /** A family's own cumulative start where its total outlives the process (the WAF counter's, kept in its checkpoint); undefined: startMs. */
  readonly startOf?: (family: string, labels: Readonly<Record<string, string>>) => number | undefined;
  readonly now: () => number;
}

/** What a counter or histogram series was at the last settled snapshot: where its next delta starts. */
interface Last {
  readonly timeMs: number;
  readonly value: number;
  readonly counts?: readonly number[];
  readonly sum?: number;
}

export class SnapshotSource implements HistorySource {
  private pending: (OtlpPage & { readonly reached: ReadonlyMap<string, Last> }) | undefined;
  private seq = 0;
  private last = new Map<string, Last>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly options: SnapshotSourceOptions) {}

  /**
   * In delta, what every counter is now becomes where its first delta
   * starts: a total kept across restarts (the WAF counter's) is not sent
   * again as one increase.
   */
  async baseline(): Promise<void> {
    if (this.options.temporality !== 'delta') return;
    this.last = this.points(await this.options.families(), this.options.now()).reached;
  }

  /** Takes a snapshot, unless one is still pending. */
  async take(): Promise<void> {
    if (this.pending !== undefined) return;
    const now = this.options.now();
    const { points, reached } = this.points(await this.options.families(), now);
    if (points.length === 0 || this.pending !== undefined) return;
    const samples: TimedSample[] = points.map((p) => ({ name: p.def.name, labels: p.labels, timestampMs: p.timeMs, value: p.value }));
    this.pending = { owner: SNAPSHOT_OWNER, seq: ++this.seq, createdMs: now, samples, snapshot: points, reached };
    for (const listener of this.listeners) listener();
  }

  heads(): readonly OtlpPage[] {
    return this.pending === undefined ? [] : [this.pending];
  }

  pendingSamples(): number {
    return this.pending?.samples.length ?? 0;
  }

  /** Confirmed or refused alike, the next delta starts where this one ended: a refused one is counted as given up, not sent again. */
  settle(pages: readonly OtlpPage[], _how: PageSettlement): Promise<void> {
    for (const page of pages) {
      if (page !== this.pending) continue;
      for (const [key, last] of this.pending.reached) this.last.set(key, last);
      this.pending = undefined;
    }
    return Promise.resolve();
  }

  onPages(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private points(families: readonly FamilySnapshot[], now: number): { points: SnapshotPoint[]; reached: Map<string, Last> } {
    const delta = this.options.temporality === 'delta';
    const points: SnapshotPoint[] = [];
    const reached = new Map<string, Last>();
    for (const { def, series } of families) {
      for (const s of series) {
        const labels: Record<string, string> = {};
        def.labels.forEach((name, i) => (labels[name] = s.labelValues[i] ?? ''));
        const familyStart = this.options.startOf?.(def.name, labels) ?? this.options.startMs;
        if (def.type === 'gauge') {
          points.push({ def, labels, startMs: now, timeMs: now, value: s.value });
          continue;
        }
        const key = seriesKey(def.name, labels);
        const prev = delta ? this.last.get(key) : undefined;
        // A total below the last one was reset (a series forgotten and seen again): its delta is the whole total.
        const reset = prev !== undefined && s.value < prev.value;
        const base = prev === undefined || reset ? undefined : prev;
        const startMs = delta ? (prev?.timeMs ?? this.options.startMs) : familyStart;
        if (def.type === 'counter') {
          reached.set(key, { timeMs: now, value: s.value });
          points.push({ def, labels, startMs, timeMs: now, value: s.value - (base?.value ?? 0) });
          continue;
        }
        const cumulative = s.histogram?.cumulative ?? [];
        const counts = [...cumulative, s.value].map((c, i) => c - (i === 0 ? 0 : (cumulative[i - 1] ?? 0)));
        const sum = s.histogram?.sum ?? 0;
        reached.set(key, { timeMs: now, value: s.value, counts, sum });
        points.push({
          def, labels, startMs, timeMs: now, value: s.value - (base?.value ?? 0),
          histogram: { counts: counts.map((c, i) => c - (base?.counts?.[i] ?? 0)), sum: sum - (base?.sum ?? 0) },
        });
      }
    }
    return { points, reached };
  }
}
