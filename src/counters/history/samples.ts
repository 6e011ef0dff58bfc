// A cycle's output as samples with their own times, for the history pushed
// over remote-write. Pure. A counter gets one sample per bucket counted this
// cycle, stamped at the bucket's end, whose value is the total after that
// bucket: the total before the cycle plus the buckets so far. Audit
// corrections are not buckets: they join the total and show in the next
// bucket's sample (a sample on a bucket boundary, never one in between). A
// series seen for the first time gets its 0 at the end of the last settled
// bucket, so the first real bucket is an increase from there. Gauges are
// stamped with their bucket's start (inventory gauges, which have none, with
// the collection time) and only when newer than the last one of the series,
// as a receiver refuses a second value at a time it holds. OTLP metrics'
// points are the same samples with a start (pointSampler).
import { seriesKey, type Labels } from '../../collectors/series/keys.js';
import type { CollectOutput, Sample } from '../../collectors/collector.js';

/** One sample of one series with its own time, as pushed over remote-write. */
export interface TimedSample {
  /** Metric name, as on /metrics. */
  readonly name: string;
  /** Labels as on /metrics (the remote-write sender adds the external labels). */
  readonly labels: Labels;
  /** Epoch milliseconds. */
  readonly timestampMs: number;
  readonly value: number;
  /**
   * OTLP metrics only: where the value starts counting (epoch ms): a delta
   * point's bucket start, a cumulative point's series start; a gauge's own
   * time. Remote-write has no such field.
   */
  readonly startMs?: number;
}

/** A timed sample with its series key, which pages keep apart. */
export interface KeyedSample extends TimedSample {
  readonly key: string;
  /** The family of a gauge sample (its time is remembered per series and family); absent for a counter's. */
  readonly gaugeFamily?: string;
}

/** What a cycle hands the history: its output, and the time it ran. */
export type HistoryInput = Pick<CollectOutput, 'increments' | 'watermarks' | 'gauges' | 'counted' | 'corrected' | 'bucketMs'> & { readonly now: number };

/** What a pipe's samples of a cycle are made from besides the cycle: each series' total before it, its last gauge time, its start. */
export interface SampleContext {
  /** The series' total before the cycle's increments (undefined for a series never counted). */
  readonly before: (key: string) => number | undefined;
  /** The last gauge time of a series (or its family's floor), undefined when there is none. */
  readonly lastGauge: (key: string, family: string) => number | undefined;
  /** The start the ledger keeps for a counter series, undefined for a series it has none for (new, or from an older file). */
  readonly startOf: (key: string) => number | undefined;
}

/** How a pipe turns a cycle into its samples (remote-write's, or OTLP metrics' points in one temporality). Pure. */
export type Sampler = (input: HistoryInput, context: SampleContext) => KeyedSample[];

/** Remote-write's: counters' running totals at each bucket's end, gauges newer than their series' last. */
export const remoteWriteSampler: Sampler = (input, { before, lastGauge }) => [...counterSamples(input, before), ...gaugeSamples(input, lastGauge)];

export type Temporality = 'cumulative' | 'delta';

/**
 * OTLP metrics' points. `cumulative`: remote-write's samples, each with the
 * series' start (kept by the ledger, never moved); a correction joins the
 * next point's total, as on /metrics. `delta`: each bucket's own increment
 * from its start to its end, and each correction the audit made, in a point
 * of its own over the bucket it corrected (never a negative one: the audit
 * only corrects upward). Gauges as remote-write's, starting at their own time.
 */
export function pointSampler(temporality: Temporality): Sampler {
  return (input, { before, lastGauge, startOf }) => {
    const gauges = gaugeSamples(input, lastGauge).map((s) => ({ ...s, startMs: s.timestampMs }));
    if (temporality === 'cumulative') {
      const starts = seriesStarts(input);
      const counters = counterSamples(input, before).map((s) => ({ ...s, startMs: startOf(s.key) ?? starts(s.key) }));
      return [...counters, ...gauges];
    }
    return [...deltaSamples(input, before), ...gauges];
  };
}

/**
 * Where a counter series first counted by this cycle starts: its first
 * bucket's start, else (a series seen with its 0 only) the start of the
 * settled bucket its 0 closes, else the cycle's time. The ledger keeps it
 * with the series' total, so it never moves. The first buckets are gathered
 * once, on the first call: `counted` holds a map per target, and asking
 * each of them for each series was quadratic in the targets.
 */
export function seriesStarts(input: Pick<HistoryInput, 'counted' | 'watermarks' | 'now'>): (key: string) => number {
  let firsts: Map<string, number> | undefined;
  return (key) => {
    if (firsts === undefined) {
      firsts = new Map();
      for (const map of input.counted ?? []) {
        for (const [k, range] of map) {
          const first = range.values[0];
          if (first !== undefined && !firsts.has(k)) firsts.set(k, first[0]);
        }
      }
    }
    return firsts.get(key) ?? input.watermarks[key] ?? input.now;
  };
}

/** One counter series of a cycle, as both pipes' counter samples start from it. */
interface CounterSeries {
  readonly key: string;
  readonly name: string;
  readonly labels: Labels;
  /** The series' total before the cycle; undefined for a series never counted. */
  readonly before: number | undefined;
  /** The buckets counted this cycle, in order, as [bucket start, value]; empty when none. */
  readonly buckets: readonly (readonly [number, number])[];
  /** A series seen for the first time without a bucket: the start of the settled bucket its first sample closes, and that sample's value. */
  readonly first?: { readonly bucketStart: number; readonly value: number };
}

/** Each counter series the cycle's increments touch, once, with what its samples are made of. */
function* counterSeries(input: HistoryInput, before: (key: string) => number | undefined): Generator<CounterSeries> {
  const counted = new Map<string, readonly (readonly [number, number])[]>();
  for (const map of input.counted ?? []) for (const [key, range] of map) counted.set(key, range.values);
  const done = new Set<string>();
  for (const inc of input.increments) {
    const key = seriesKey(inc.name, inc.labels);
    if (done.has(key)) continue;
    done.add(key);
    const total = before(key);
    const buckets = counted.get(key) ?? [];
    const watermark = input.watermarks[key];
    const first = buckets.length === 0 && total === undefined && watermark !== undefined ? { bucketStart: watermark, value: inc.value } : undefined;
    yield { key, name: inc.name, labels: inc.labels, before: total, buckets, ...(first === undefined ? {} : { first }) };
  }
}

/** Delta points: a bucket's increment over the bucket, a series' first 0 over the bucket it closes, a correction over the bucket it corrected. */
function deltaSamples(input: HistoryInput, before: (key: string) => number | undefined): KeyedSample[] {
  const out: KeyedSample[] = [];
  const { bucketMs } = input;
  if (bucketMs === undefined) return out;
  for (const { key, name, labels, buckets, first } of counterSeries(input, before)) {
    const point = (start: number, value: number): KeyedSample => ({ key, name, labels, startMs: start, timestampMs: start + bucketMs, value });
    for (const [bucketStart, added] of input.corrected?.get(key) ?? []) out.push(point(bucketStart, added));
    for (const [bucketStart, value] of buckets) out.push(point(bucketStart, value));
    if (first !== undefined) out.push(point(first.bucketStart, first.value));
  }
  return out;
}

/**
 * The counter samples of a cycle. `before(key)` is the series' total before
 * the cycle's increments (undefined for a series never counted).
 */
export function counterSamples(input: HistoryInput, before: (key: string) => number | undefined): KeyedSample[] {
  const out: KeyedSample[] = [];
  const { bucketMs } = input;
  if (bucketMs === undefined) return out;
  for (const { key, name, labels, before: total, buckets, first } of counterSeries(input, before)) {
    let running = total ?? 0;
    for (const [bucketStart, value] of buckets) {
      running += value;
      out.push({ key, name, labels, timestampMs: bucketStart + bucketMs, value: running });
    }
    if (first !== undefined) out.push({ key, name, labels, timestampMs: first.bucketStart + bucketMs, value: first.value });
  }
  return out;
}

/**
 * The gauge samples of a cycle that are newer than the last of their series:
 * `last(key, family)` is that time (or a floor for the family after a
 * restart), undefined when there is none.
 */
export function gaugeSamples(input: HistoryInput, last: (key: string, family: string) => number | undefined): KeyedSample[] {
  const out: KeyedSample[] = [];
  for (const [family, samples] of input.gauges) {
    for (const s of samples) {
      const timestampMs = stampOf(s, input.now);
      const key = seriesKey(s.name, s.labels);
      const previous = last(key, family);
      if (previous !== undefined && timestampMs <= previous) continue;
      out.push({ key, name: s.name, labels: s.labels, timestampMs, value: s.value, gaugeFamily: family });
    }
  }
  return out;
}

function stampOf(s: Sample, now: number): number {
  return s.timestampMs ?? s.bucketStartMs ?? now;
}
