// One of the exporter's own metric families, its series updated in place as events are recorded.
import { seriesKey, type Labels } from '../../collectors/index.js';
import { compareSeries, type FamilyDef, type FamilySnapshot, type SeriesSnapshot } from './serialize.js';

/** The gauges that measure time since a moment (`…_lag_seconds`, `…_age_seconds`). */
export const LIVE = /_(lag|age)_seconds$/;

interface Cell {
  readonly labelValues: readonly string[];
  /** A counter's total, a gauge's value, a histogram's count. */
  value: number;
  /** Histograms: observations at or below each bound, cumulative. */
  readonly cumulative: number[];
  sum: number;
  /** A live gauge's moment, epoch ms: its value is the seconds since it, set by `age` at each scrape. */
  sinceMs?: number;
}

/**
 * The series of one SELF_METRICS family. A record call only updates a cell;
 * the sorted snapshot the serializer reads is rebuilt on the first scrape
 * after a change, so recording stays cheap however often it happens.
 */
export class SelfFamily {
  private readonly cells = new Map<string, Cell>();
  private series: readonly SeriesSnapshot[] | undefined;

  constructor(readonly def: FamilyDef) {
    // A family without labels has its one series from the start, at 0 (as prom-client had it).
    if (def.labels.length === 0 && def.type !== 'histogram') this.cell({});
  }

  set(labels: Labels, value: number): void {
    this.cell(labels).value = value;
  }

  /**
   * A live gauge (`…_lag_seconds`, `…_age_seconds`): keeps the moment it measures
   * from, not a difference, so the value `age` gives at a scrape never stands still.
   */
  since(labels: Labels, epochMs: number): void {
    this.cell(labels).sinceMs = epochMs;
  }

  /** Sets every live gauge's value to the seconds from its moment to `nowMs` (never below 0). */
  age(nowMs: number): void {
    for (const cell of this.cells.values()) {
      if (cell.sinceMs === undefined) continue;
      cell.value = Math.max(0, nowMs - cell.sinceMs) / 1000;
      this.series = undefined;
    }
  }

  /**
   * Each series' labels and value at `nowMs`, for the status page: a live gauge's measured as `age` would, and
   * left out while it has no moment yet. Reads only; what a scrape serves is not touched.
   */
  read(nowMs: number): { readonly labels: Labels; readonly value: number }[] {
    return [...this.cells.values()]
      .filter((c) => !LIVE.test(this.def.name) || c.sinceMs !== undefined)
      .map((c) => ({
        labels: Object.fromEntries(this.def.labels.map((l, i) => [l, c.labelValues[i] ?? ''])),
        value: c.sinceMs === undefined ? c.value : Math.max(0, nowMs - c.sinceMs) / 1000,
      }));
  }

  /** A counter's increase; 0 makes the series exist, so increase() sees its first real increment. */
  add(labels: Labels, amount: number): void {
    this.cell(labels).value += amount;
  }

  observe(labels: Labels, value: number): void {
    const cell = this.cell(labels);
    cell.value += 1;
    cell.sum += value;
    (this.def.buckets ?? []).forEach((bound, i) => {
      if (value <= bound) cell.cumulative[i] = (cell.cumulative[i] ?? 0) + 1;
    });
  }

  /** Replaces every series: for the families read from the store when scraped. */
  replace(entries: Iterable<readonly [Labels, number]>): void {
    this.cells.clear();
    this.series = undefined;
    for (const [labels, value] of entries) this.set(labels, value);
  }

  /** Removes one series (a target the collectors forgot); nothing when it does not exist. */
  delete(labels: Labels): void {
    if (this.cells.delete(seriesKey(this.def.name, labels))) this.series = undefined;
  }

  /** Removes the series whose value of `label` is not in `keep` (a collector a reload removed). */
  retain(label: string, keep: ReadonlySet<string>): void {
    const at = this.def.labels.indexOf(label);
    if (at < 0) return;
    for (const [key, cell] of this.cells) {
      if (!keep.has(cell.labelValues[at] ?? '')) {
        this.cells.delete(key);
        this.series = undefined;
      }
    }
  }

  snapshot(): FamilySnapshot {
    this.series ??= [...this.cells.values()]
      .map((c): SeriesSnapshot => (this.def.type === 'histogram' ? { labelValues: c.labelValues, value: c.value, histogram: { cumulative: [...c.cumulative], sum: c.sum } } : { labelValues: c.labelValues, value: c.value }))
      .sort(compareSeries);
    return { def: this.def, series: this.series };
  }

  /** The series' cell, created at 0; any call here is a change, so the snapshot is rebuilt. */
  private cell(labels: Labels): Cell {
    this.series = undefined;
    const key = seriesKey(this.def.name, labels);
    let cell = this.cells.get(key);
    if (cell === undefined) {
      const buckets = this.def.buckets ?? [];
      cell = { labelValues: this.def.labels.map((l) => labels[l] ?? ''), value: 0, cumulative: buckets.map(() => 0), sum: 0 };
      this.cells.set(key, cell);
    }
    return cell;
  }
}
