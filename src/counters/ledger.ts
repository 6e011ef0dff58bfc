// The counters the exporter has counted so far (CounterTotals, also the WAF
// denied counter's), and the watermarks saying which buckets they include.
// Both live in ONE state file per collector (ledger-file.ts) and are written
// together, so after a crash they still agree: either a cycle's increments and
// its watermarks are on disk, or neither is, and the next run recounts exactly
// the buckets the counters lack. Restart continues every counter with no loss
// and no double count.
import { StateError } from '../state/store.js';
import type { HistoryQueues } from './history/queues.js';
import type { HistoryFile } from './history/file.js';
import { seriesStarts, type HistoryInput } from './history/samples.js';
import { ledgerFileName, ledgerFileSchema, type LedgerFile, type LedgerStorage } from './ledger-file.js';
import { seriesKey, type Labels } from '../collectors/series/keys.js';
import type { CollectOutput, SavedCounters, Sample } from '../collectors/collector.js';

interface CounterEntry {
  readonly name: string;
  readonly labels: Labels;
  /** Counted so far, increments not yet on disk included. */
  readonly value: number;
  readonly timestampMs: number | undefined;
  readonly startMs?: number | undefined;
}

interface Entry {
  readonly name: string;
  readonly labels: Labels;
  value: number;
  timestampMs: number | undefined;
  /** Where the series started counting (OTLP metrics' cumulative start); set once, saved with the total. */
  startMs: number | undefined;
  /** The total on disk, the only one published; undefined until the series' first write. */
  saved: number | undefined;
  savedTimestampMs: number | undefined;
}

/** What a write took: the values to mark saved once it is on disk. */
type Written = readonly (readonly [Entry, number, number | undefined])[];

/**
 * Counter totals of one owner (a collector, or the WAF denied counter), held
 * once: counted at once, visible through `saved` only after a write has put
 * them on disk. The ledger and the WAF delivery state both keep their totals
 * in one, so the FamilyStore reads every counter the same way and holds none.
 */
export class CounterTotals {
  private readonly entries = new Map<string, Entry>();
  /** Increases whenever a saved total changes (a write or a restore). */
  private version = 0;
  readonly saved: SavedCounters;

  constructor() {
    const entries = this.entries;
    const self = (): CounterTotals => this;
    this.saved = {
      get version() {
        return self().version;
      },
      get size() {
        let n = 0;
        for (const e of entries.values()) if (e.saved !== undefined) n++;
        return n;
      },
      *[Symbol.iterator]() {
        for (const e of entries.values()) if (e.saved !== undefined) yield sample(e.name, e.labels, e.saved, e.savedTimestampMs);
      },
    };
  }

  /** Series counted so far, saved or not. */
  get size(): number {
    return this.entries.size;
  }

  has(name: string, labels: Labels): boolean {
    return this.entries.has(seriesKey(name, labels));
  }

  /** The series' total as counted so far (saved or not); undefined for a series never counted. */
  total(key: string): number | undefined {
    return this.entries.get(key)?.value;
  }

  /**
   * Adds `value` (finite, >= 0: the caller checks) to the series; false, and
   * nothing added, when the total would pass the largest finite number (+Inf
   * is not exposable, and JSON would save it as null). `key` is
   * seriesKey(name, labels), for a caller that holds it already.
   */
  add(name: string, labels: Labels, value: number, timestampMs?: number, key = seriesKey(name, labels)): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.entries.set(key, { name, labels: { ...labels }, value, timestampMs, startMs: undefined, saved: undefined, savedTimestampMs: undefined });
      return true;
    }
    if (!Number.isFinite(entry.value + value)) return false;
    entry.value += value;
    if (timestampMs !== undefined) entry.timestampMs = Math.max(entry.timestampMs ?? timestampMs, timestampMs);
    return true;
  }

  /** The series' start, undefined for a series never counted or never given one. */
  start(key: string): number | undefined {
    return this.entries.get(key)?.startMs;
  }

  /** Gives the series its start, unless it has one: a start never moves. */
  startAt(key: string, startMs: number): void {
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.startMs === undefined) entry.startMs = startMs;
  }

  /** Every series as counted, saved or not. */
  counted(): CounterEntry[] {
    return [...this.entries.values()].map(({ name, labels, value, timestampMs }) => ({ name, labels, value, timestampMs }));
  }

  /**
   * Every series as the file holds it, in one pass and with the entries' own
   * labels (copied when the series was first counted): a copy per save was
   * 100k objects more at a cycle's close at 50k counter series.
   */
  fileEntries(): LedgerFile['counters'] {
    const out: Array<LedgerFile['counters'][number]> = [];
    for (const { name, labels, value, timestampMs, startMs } of this.entries.values()) {
      // Keys set in place rather than spread in: no throwaway objects per series at every save.
      const entry: LedgerFile['counters'][number] = { name, labels, value };
      if (timestampMs !== undefined) entry.timestampMs = timestampMs;
      if (startMs !== undefined) entry.startMs = startMs;
      out.push(entry);
    }
    return out;
  }

  /** Replaces every series with what a file held; all of it is on disk, so all of it is visible. */
  restore(entries: Iterable<CounterEntry>): void {
    this.entries.clear();
    for (const { name, labels, value, timestampMs, startMs } of entries) {
      this.entries.set(seriesKey(name, labels), { name, labels, value, timestampMs, startMs, saved: value, savedTimestampMs: timestampMs });
    }
    this.version++;
  }

  /** Values of `label` among the series' labels. */
  labelValues(label: string): Set<string> {
    const out = new Set<string>();
    for (const e of this.entries.values()) {
      const v = e.labels[label];
      if (v !== undefined) out.add(v);
    }
    return out;
  }

  /** Drops every series whose `label` is one of `values`, saved or not; the number dropped. */
  drop(label: string, values: ReadonlySet<string>): number {
    let n = 0;
    for (const [key, e] of this.entries) {
      const v = e.labels[label];
      if (v === undefined || !values.has(v)) continue;
      this.entries.delete(key);
      n++;
    }
    if (n > 0) this.version++;
    return n;
  }

  /** Taken just before a write: increments counted while it is under way stay pending, they are not in the file. */
  writing(): Written {
    // Only the series the write changes (written() leaves the others as they are): the WAF forwarder saves
    // after every batch, and a copy of every series each time was most of its checkpoint's garbage.
    const out: Array<readonly [Entry, number, number | undefined]> = [];
    for (const e of this.entries.values()) {
      if (e.value !== e.saved || e.timestampMs !== e.savedTimestampMs) out.push([e, e.value, e.timestampMs]);
    }
    return out;
  }

  /** The write is on disk: what it took becomes visible. */
  written(taken: Written): void {
    let changed = false;
    for (const [entry, value, timestampMs] of taken) {
      changed ||= entry.saved !== value || entry.savedTimestampMs !== timestampMs;
      entry.saved = value;
      entry.savedTimestampMs = timestampMs;
    }
    if (changed) this.version++;
  }
}

/** What the history needs of a cycle besides its increments and watermarks. */
type CycleHistory = Omit<HistoryInput, 'increments' | 'watermarks'>;

interface ApplyResult {
  /** Increments refused: negative, not finite, or taking the total past the largest finite number (a counter never goes down). */
  readonly rejected: number;
}

interface CollectorCounts {
  readonly watermarks: Map<string, number>;
  readonly counters: CounterTotals;
}

/**
 * The collectors' counter totals, one CounterTotals per collector, with the
 * watermarks. A cycle's increments are applied at once (the next cycle's
 * watermarks depend on them) but become visible through saved() only when
 * save() has put them on disk, so nothing Prometheus has seen can be lost or
 * counted twice by a restart. A failed save leaves them pending; the next
 * save carries them.
 */
export class CounterLedger {
  private readonly collectors = new Map<string, CollectorCounts>();

  /**
   * With histories (remote_write on, otlp_metrics on: one per pipe), every
   * cycle's buckets are also queued as timed samples, kept in the same file
   * as the counters they were counted with, and handed to each pipe's sender
   * once that file is on disk.
   */
  constructor(private readonly histories: readonly HistoryQueues[] = []) {}

  /** The collector's watermarks, a copy for CollectContext. */
  watermarks(collector: string): Readonly<Record<string, number>> {
    return Object.fromEntries(this.of(collector).watermarks);
  }

  /**
   * Adds a cycle's increments to the totals and replaces the watermarks it
   * reports (others are kept); with a history, queues the cycle's samples
   * (`cycle`: what else of the output they need, and the cycle's time, which
   * stamps gauges without a bucket).
   */
  apply(collector: string, output: Pick<CollectOutput, 'increments' | 'watermarks'>, cycle?: CycleHistory): ApplyResult {
    const counts = this.of(collector);
    const input = cycle === undefined ? undefined : { ...cycle, increments: output.increments, watermarks: output.watermarks };
    // Queued before the increments are added: the history's samples count up from each series' total before them.
    if (input !== undefined) {
      const context = { before: (key: string) => counts.counters.total(key), startOf: (key: string) => counts.counters.start(key) };
      for (const history of this.histories) history.add(collector, input, context);
    }
    let rejected = 0;
    const starts = input === undefined ? undefined : seriesStarts(input);
    for (const inc of output.increments) {
      const key = seriesKey(inc.name, inc.labels);
      const ok = Number.isFinite(inc.value) && inc.value >= 0 && counts.counters.add(inc.name, inc.labels, inc.value, inc.timestampMs, key);
      if (!ok) rejected++;
      // The start the history's points were given, kept with the total (a series from an older file gets it now).
      else if (starts !== undefined && counts.counters.start(key) === undefined) counts.counters.startAt(key, starts(key));
    }
    for (const [key, ms] of Object.entries(output.watermarks)) counts.watermarks.set(key, ms);
    return { rejected };
  }

  /** The values of `label` (a target's: domain, package) among the collector's counter series. */
  targets(collector: string, label: string): Set<string> {
    return this.of(collector).counters.labelValues(label);
  }

  /**
   * Drops the counters and watermarks of the series whose `label` is one of
   * `values` (targets forgotten): gone from saved() at once, from the file
   * at the next save. A target counted again starts from 0 at first sight.
   */
  forget(collector: string, label: string, values: ReadonlySet<string>): void {
    if (values.size === 0) return;
    const counts = this.of(collector);
    counts.counters.drop(label, values);
    for (const key of [...counts.watermarks.keys()]) {
      if ([...values].some((v) => keyHasLabel(key, label, v))) counts.watermarks.delete(key);
    }
  }

  /**
   * The collector's saved totals, read-only and live: what the FamilyStore
   * exposes, so the totals are held here only. The same object on every call.
   */
  saved(collector: string): SavedCounters {
    return this.of(collector).counters.saved;
  }

  private fileOf(collector: string, histories: Partial<Record<HistoryQueues['pipe']['member'], HistoryFile>>): LedgerFile {
    const counts = this.of(collector);
    return {
      ...histories,
      collector,
      watermarks: Object.fromEntries(counts.watermarks),
      counters: counts.counters.fileEntries(),
    };
  }

  /** Replaces the collector's state with a file's content (all of it saved). */
  restore(collector: string, file: LedgerFile): void {
    const counts = this.of(collector);
    counts.watermarks.clear();
    for (const [key, ms] of Object.entries(file.watermarks)) counts.watermarks.set(key, ms);
    counts.counters.restore(file.counters.map((c) => ({ name: c.name, labels: c.labels, value: c.value, timestampMs: c.timestampMs, startMs: c.startMs })));
    for (const history of this.histories) history.restore(collector, file[history.pipe.member]);
  }

  /** Reads what the histories need before any ledger file (the receivers' confirmations); a damaged file is the history's to report. */
  async prepare(): Promise<void> {
    for (const history of this.histories) await history.load();
  }

  /**
   * Reads the collector's state file: true when one was found, false for a
   * fresh start (no file). A damaged file throws StateError; nothing is reset
   * here (restoreLedger applies state_recovery).
   */
  async load(store: LedgerStorage, collector: string): Promise<boolean> {
    await this.prepare();
    const file = await store.load(ledgerFileName(collector), ledgerFileSchema);
    if (file === undefined) {
      for (const history of this.histories) history.restore(collector, undefined);
      return false;
    }
    if (file.collector !== collector) {
      throw new StateError(store.pathOf(ledgerFileName(collector)), `belongs to collector "${file.collector}", not "${collector}"`, {
        damaged: true,
      });
    }
    this.restore(collector, file);
    return true;
  }

  /**
   * Writes the collector's watermarks and counters in one atomic file, then
   * makes what it wrote visible. Increments applied while the write is under
   * way stay pending: they were not in the file.
   */
  async save(store: LedgerStorage, collector: string): Promise<void> {
    const { counters } = this.of(collector);
    const taken = counters.writing();
    const written = this.histories.map((history) => ({ history, ...history.writing(collector) }));
    await store.save(ledgerFileName(collector), this.fileOf(collector, Object.fromEntries(written.map(({ history, file }) => [history.pipe.member, file]))));
    counters.written(taken);
    for (const { history, upTo } of written) history.committed(collector, upTo);
  }

  private of(collector: string): CollectorCounts {
    let counts = this.collectors.get(collector);
    if (!counts) {
      counts = { watermarks: new Map(), counters: new CounterTotals() };
      this.collectors.set(collector, counts);
    }
    return counts;
  }
}

/**
 * Whether a seriesKey (keys.ts) holds `label="value"`. Values are JSON-quoted
 * there: a quote inside one is escaped, so no value can fake a label.
 */
function keyHasLabel(key: string, label: string, value: string): boolean {
  const pair = `${label}=${JSON.stringify(value)}`;
  return [`{${pair},`, `,${pair},`, `{${pair}}`, `,${pair}}`].some((s) => key.includes(s));
}

function sample(name: string, labels: Labels, value: number, timestampMs: number | undefined): Sample {
  return timestampMs === undefined ? { name, labels, value } : { name, labels, value, timestampMs };
}
