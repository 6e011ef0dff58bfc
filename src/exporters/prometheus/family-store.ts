// Every metric family the exporter serves: the latest published series of the data families (the SampleSink
// collectors publish into; counter totals stay in the ledger, read through SavedCounters) and the self-metric families.
import type { SavedCounters, MetricDef, Sample, SampleSink } from '../../collectors/index.js';
import { MetricDefinitionError, SELF_PREFIX, capLabelValue, metricDefProblems, wellFormedLabelValue } from './naming.js';
import { SelfFamily } from './self-family.js';
import { baseName, compareSeries, compareStrings, type FamilyDef, type FamilySnapshot, type SeriesSnapshot } from './serialize.js';
import { ArgumentError } from '../../shared/errors.js';

interface FamilyStoreOptions {
  /** Longest label value kept, in UTF-16 code units including the '…' marker (lone surrogates become U+FFFD first). Default 128. */
  readonly maxLabelValueLength?: number;
  /** Most series one family keeps; the rest are dropped and counted (see `publish`). Default 10000. */
  readonly maxSeriesPerFamily?: number;
}

export const DEFAULT_MAX_LABEL_VALUE_LENGTH = 128;
export const DEFAULT_MAX_SERIES_PER_FAMILY = 10_000;

/** Why a published sample was not stored (the `reason` label of the rejected-samples self-metric). */
export type SampleRejectReason =
  | 'unknown_family'
  | 'wrong_type'
  | 'wrong_family'
  | 'owner_conflict'
  | 'label_mismatch'
  | 'invalid_value'
  | 'duplicate_series';

export interface FamilyStats {
  readonly family: string;
  /** Series currently exposed. */
  readonly series: number;
  /** Series the cap dropped, summed over every publish since start. */
  readonly dropped: number;
}

interface StoredFamily {
  readonly def: MetricDef;
  /** The collector that first published the family; others may not overwrite it. */
  owner: string | undefined;
  series: readonly SeriesSnapshot[];
  dropped: number;
}

type Update = Parameters<SampleSink['publish']>[1];

/** A collector's counters as the ledger holds them, and the version last read into the families (NaN: not read since published). */
interface Attached {
  readonly saved: SavedCounters;
  read: number;
}

export class FamilyStore implements SampleSink {
  private readonly families = new Map<string, StoredFamily>();
  private readonly selfFamilies = new Map<string, SelfFamily>();
  private readonly rejected = new Map<SampleRejectReason, number>();
  private readonly maxLabelValueLength: number;
  private readonly maxSeriesPerFamily: number;
  private changes = 0;
  /** Per collector: the saved counters its counter families are read from, when it published them. */
  private readonly attached = new Map<string, Attached>();

  constructor(options: FamilyStoreOptions = {}) {
    this.maxLabelValueLength = positiveInteger('maxLabelValueLength', options.maxLabelValueLength ?? DEFAULT_MAX_LABEL_VALUE_LENGTH);
    this.maxSeriesPerFamily = positiveInteger('maxSeriesPerFamily', options.maxSeriesPerFamily ?? DEFAULT_MAX_SERIES_PER_FAMILY);
  }

  /** Increases on every change, a ledger's saved totals included, so a cached rendering knows when it is stale. */
  get generation(): number {
    this.sync();
    return this.changes;
  }

  /**
   * Makes the data families exactly `defs`, for a config reload: a family no
   * longer defined, or defined differently, goes with its series (and the
   * saved counters of a collector left owning none); an identical one keeps its
   * series, so a scrape during the reload still finds every counter. Throws
   * MetricDefinitionError listing every problem, changing nothing, when a
   * name or label breaks the naming rules, a name is defined twice
   * differently, or two families would produce the same sample name in
   * OpenMetrics.
   */
  define(defs: readonly MetricDef[]): void {
    checkDefs(defs);
    const wanted = new Map(defs.map((def) => [def.name, def]));
    for (const [name, stored] of this.families) {
      const def = wanted.get(name);
      if (def === undefined || !sameDef(def, stored.def)) this.families.delete(name);
    }
    const owners = new Set([...this.families.values()].map((stored) => stored.owner));
    for (const collector of this.attached.keys()) if (!owners.has(collector)) this.attached.delete(collector);
    for (const def of defs) {
      if (!this.families.has(def.name)) this.families.set(def.name, { def, owner: undefined, series: [], dropped: 0 });
    }
    this.changes++;
  }

  /**
   * A family of the exporter's self-metrics (`edge_exporter_*`): held here
   * beside the published ones and rendered by the same serializer, but
   * recorded in place (SelfFamily) rather than published by a collector. Its changes do not move
   * `generation`: they happen with every upstream request, and would otherwise
   * invalidate the cached rendering of every data family. Idempotent per definition.
   */
  selfFamily(def: FamilyDef): SelfFamily {
    const existing = this.selfFamilies.get(def.name);
    if (existing !== undefined) {
      if (!sameDef(existing.def, def)) throw new MetricDefinitionError([`${def.name}: registered twice with different definitions`]);
      return existing;
    }
    if (!def.name.startsWith(SELF_PREFIX)) throw new MetricDefinitionError([`${def.name}: a self-metric is named ${SELF_PREFIX}*`]);
    const family = new SelfFamily(def);
    this.selfFamilies.set(def.name, family);
    return family;
  }

  /** The definition of a data or self family by name; undefined for one not defined (or no longer). */
  def(name: string): FamilyDef | undefined {
    return this.families.get(name)?.def ?? this.selfFamilies.get(name)?.def;
  }

  /** The self-metric families in name order, the empty ones too (a dashboard or absent() may look for them). */
  selfSnapshot(): readonly FamilySnapshot[] {
    return [...this.selfFamilies.values()].sort((a, b) => compareStrings(a.def.name, b.def.name)).map((family) => family.snapshot());
  }

  /**
   * Replaces all of `collector`'s counter series with `counters` (absolute
   * values; a counter family of the collector absent from the update is
   * emptied), and each gauge family in `gauges` wholesale. Samples that do not
   * fit a registered family are rejected and counted, never stored. A
   * SavedCounters is read at the next reading of the store (every reader
   * syncs first) and again whenever its version moves: a collector that
   * publishes after every save (the WAF forwarder, once per batch) costs one
   * reading per scrape, not a check and sort of every series per save.
   */
  publish(collector: string, update: Update): void {
    if (isSaved(update.counters)) this.attached.set(collector, { saved: update.counters, read: Number.NaN });
    else {
      this.attached.delete(collector);
      this.readCounters(collector, update.counters);
    }

    for (const [name, samples] of update.gauges) {
      const stored = this.claim(collector, name, 'gauge', samples.length);
      if (stored === undefined) continue;
      const own = samples.filter((s) => s.name === name);
      this.reject('wrong_family', samples.length - own.length);
      this.replace(stored, collector, own);
    }
    this.changes++;
  }

  /**
   * The counter families hold no totals of their own: their series are the
   * saved counters' samples, checked, capped and sorted, re-read when the ledger saves.
   * Rejected and dropped series are counted at each reading, as at each publish.
   */
  private sync(): void {
    for (const [collector, attached] of this.attached) {
      if (attached.saved.version === attached.read) continue;
      attached.read = attached.saved.version;
      this.readCounters(collector, attached.saved);
      this.changes++;
    }
  }

  private readCounters(collector: string, samples: Iterable<Sample>): void {
    const counters = new Map<StoredFamily, Sample[]>();
    for (const sample of samples) {
      const stored = this.claim(collector, sample.name, 'counter', 1);
      if (stored === undefined) continue;
      const list = counters.get(stored);
      if (list === undefined) counters.set(stored, [sample]);
      else list.push(sample);
    }
    for (const stored of this.families.values()) {
      if (stored.def.type === 'counter' && stored.owner === collector && !counters.has(stored)) stored.series = [];
    }
    for (const [stored, samples] of counters) this.replace(stored, collector, samples);
  }

  /** Registered families in name order with their current series (sorted by label values). */
  snapshot(): readonly FamilySnapshot[] {
    this.sync();
    return [...this.families.values()]
      .sort((a, b) => compareStrings(a.def.name, b.def.name))
      .map((stored) => ({ def: stored.def, series: stored.series }));
  }

  /** Series of `family` dropped by the series cap, summed over every publish. */
  droppedSeries(family: string): number {
    this.sync();
    return this.families.get(family)?.dropped ?? 0;
  }

  /** Samples rejected since start, by reason. */
  rejectedSamples(): ReadonlyMap<SampleRejectReason, number> {
    this.sync();
    return this.rejected;
  }

  stats(): readonly FamilyStats[] {
    return this.snapshot().map(({ def }) => {
      const stored = this.families.get(def.name);
      return { family: def.name, series: stored?.series.length ?? 0, dropped: stored?.dropped ?? 0 };
    });
  }

  private claim(collector: string, name: string, type: MetricDef['type'], count: number): StoredFamily | undefined {
    const stored = this.families.get(name);
    const reason: SampleRejectReason | undefined =
      stored === undefined
        ? 'unknown_family'
        : stored.def.type !== type
          ? 'wrong_type'
          : stored.owner !== undefined && stored.owner !== collector
            ? 'owner_conflict'
            : undefined;
    if (reason !== undefined) {
      this.reject(reason, count);
      return undefined;
    }
    return stored;
  }

  /**
   * Over the cap, the first `maxSeriesPerFamily` series in label-value order
   * are kept: the same series survive every cycle, so a counter never flickers
   * in and out (which a by-value choice would cause and rate() would read as resets).
   */
  private replace(stored: StoredFamily, collector: string, samples: readonly Sample[]): void {
    const valid: SeriesSnapshot[] = [];
    for (const sample of samples) {
      const labelValues = this.labelValues(stored.def, sample.labels);
      if (labelValues === undefined) {
        this.reject('label_mismatch', 1);
        continue;
      }
      if (!validValue(stored.def.type, sample.value) || !validTimestamp(sample.timestampMs)) {
        this.reject('invalid_value', 1);
        continue;
      }
      valid.push(
        sample.timestampMs === undefined
          ? { labelValues, value: sample.value }
          : { labelValues, value: sample.value, timestampMs: Math.round(sample.timestampMs) },
      );
    }
    // The label names are the def's, so equal label values are one series; the sort is stable and puts
    // them side by side in publish order. Label values are capped first, so two long values may now
    // collide: the first one published wins. No seriesKey per sample: that was most of a publish's time.
    valid.sort(compareSeries);
    const series: SeriesSnapshot[] = [];
    for (const s of valid) {
      const last = series[series.length - 1];
      if (last !== undefined && compareSeries(last, s) === 0) this.reject('duplicate_series', 1);
      else series.push(s);
    }
    const over = series.length - this.maxSeriesPerFamily;
    if (over > 0) stored.dropped += over;
    stored.series = over > 0 ? series.slice(0, this.maxSeriesPerFamily) : series;
    stored.owner = collector;
  }

  /** The label values in the def's order, capped; undefined unless the label names match exactly. */
  private labelValues(def: MetricDef, labels: Readonly<Record<string, string>>): string[] | undefined {
    if (Object.keys(labels).length !== def.labels.length) return undefined;
    const values: string[] = [];
    for (const name of def.labels) {
      const value = Object.hasOwn(labels, name) ? labels[name] : undefined;
      if (typeof value !== 'string') return undefined;
      values.push(capLabelValue(wellFormedLabelValue(value), this.maxLabelValueLength));
    }
    return values;
  }

  private reject(reason: SampleRejectReason, count: number): void {
    if (count > 0) this.rejected.set(reason, (this.rejected.get(reason) ?? 0) + count);
  }
}

/** Throws MetricDefinitionError listing every problem of `defs` as one set of families. */
function checkDefs(defs: readonly MetricDef[]): void {
  const merged = new Map<string, MetricDef>();
  const problems = defs.flatMap(metricDefProblems);
  for (const def of defs) {
    const existing = merged.get(def.name);
    if (existing !== undefined && !sameDef(existing, def)) problems.push(`${def.name}: registered twice with different definitions`);
    merged.set(def.name, def);
  }
  for (const def of merged.values()) {
    const base = baseName(def);
    if (base !== def.name && merged.has(base)) problems.push(`${def.name}: its OpenMetrics family name ${base} is another family`);
  }
  if (problems.length > 0) throw new MetricDefinitionError(problems);
}

function isSaved(counters: Update['counters']): counters is SavedCounters {
  return !Array.isArray(counters);
}

/** Counters are finite and non-negative (OpenMetrics: a Total is never NaN); gauges may be anything. */
function validValue(type: MetricDef['type'], value: number): boolean {
  if (typeof value !== 'number') return false;
  return type === 'gauge' || (Number.isFinite(value) && value >= 0);
}

function validTimestamp(ms: number | undefined): boolean {
  return ms === undefined || Number.isFinite(ms);
}

function sameDef(a: FamilyDef, b: FamilyDef): boolean {
  return (
    a.type === b.type &&
    a.help === b.help &&
    a.unit === b.unit &&
    a.labels.length === b.labels.length &&
    a.labels.every((label, i) => label === b.labels[i])
  );
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new ArgumentError(`${name} must be a positive integer, got ${value}`);
  return value;
}
