// A time-series collector's counting, cycle after cycle, on generated
// answers: the plans and request ranges the collector would make, one answer
// per range (or a failed request), the pure conversion, and the ledger that
// keeps the counters. The answers come from a "truth" that fixes each
// bucket's final value once it has settled; before that (and outside the
// asked range, and in the future) the upstream may say anything. Checked
// after every cycle: counters finite and never lower, watermarks never back
// and never past the last settled bucket, feeding the same answers again
// adds nothing; in the exact mode also that every settled bucket counted is
// counted exactly once, with its final value.
import fc from 'fast-check';
import { expect } from 'vitest';
import { platformClock } from '../../src/api/index.js';
import { INTERVAL_MS, lastSettledStart, type BucketInterval, type Plan } from '../../src/collectors/buckets.js';
import { CounterTotals } from '../../src/counters/ledger.js';
import {
  planSeries, requestWindow, type BucketRange, type CounterSpec, type Grid, type Piece, type RequestWindow, type TargetResult,
} from '../../src/collectors/series/index.js';
import type { CollectorLogger, Sample } from '../../src/collectors/collector.js';
import { anyFinite, looseNumberInput } from './hostile.js';

export const tz = platformClock('+08:00');
/** 2026-03-02 12:00:00 in the platform zone. */
export const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);

export const silentLog: CollectorLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, child: () => silentLog };

/** A point as the upstream may write it: ms or a numeric string, value, numeric string or null. */
export type InputPoint = [number | string, number | string | null];

export interface CycleOptions {
  readonly interval: BucketInterval;
  readonly delayMs: number;
  readonly maxBackfillMs: number;
  readonly maxBuckets: number;
  readonly gaugeWindowMs: number | undefined;
  readonly timestamps: boolean;
  readonly now: number;
}

/** What one collector contributes: its counter series, how answers look, how it converts. */
export interface SeriesHarness<R> {
  readonly specs: readonly CounterSpec<R>[];
  /** The raw body of one answer: points per spec in spec order; undefined leaves the series out. */
  body(points: ReadonlyArray<readonly InputPoint[] | undefined>): unknown;
  /** The client's parsing (the answer schema) and the collector's own reading of it. */
  read(body: unknown, range: BucketRange): R;
  convert(plans: ReadonlyMap<string, Plan>, pieces: readonly Piece<R>[], grid: Grid, options: CycleOptions): TargetResult;
  /** The ranges the collector asks for in a cycle (default: the window's back-fill chunks and main range). */
  ranges?(plans: ReadonlyMap<string, Plan>, window: RequestWindow, grid: Grid, options: CycleOptions): BucketRange[];
}

interface Scenario {
  readonly interval: BucketInterval;
  readonly delayBuckets: number;
  readonly maxBuckets: number;
  readonly gaugeWindowBuckets: number | undefined;
  readonly timestamps: boolean;
  /** Watermark persisted by an earlier run (ms before the first cycle), possibly off the grid. */
  readonly persisted: number | undefined;
  readonly start: number;
  /** Time between cycles, ms; 0 repeats a cycle at the same instant. */
  readonly steps: readonly number[];
  readonly salt: number;
  /** Back-fill limit in buckets; undefined is unlimited (the exact mode needs every bucket). */
  readonly backfillBuckets: number | undefined;
}

const intervals = fc.constantFrom<BucketInterval>('1m', '5m', '1h', '1d');

/** Cycles spanning at most a few hundred buckets, so answers stay small. */
export function scenario(exact: boolean): fc.Arbitrary<Scenario> {
  return intervals.chain((interval) => {
    const size = INTERVAL_MS[interval];
    const step = fc.oneof(
      fc.constant(0),
      fc.integer({ min: 1, max: 3 * size }),
      fc.integer({ min: 1, max: 40 * size }),
    );
    return fc.record({
      interval: fc.constant(interval),
      delayBuckets: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 2.5, noNaN: true })),
      maxBuckets: fc.integer({ min: 1, max: 30 }),
      gaugeWindowBuckets: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
      timestamps: fc.boolean(),
      persisted: fc.option(fc.integer({ min: 0, max: 30 * size }), { nil: undefined }),
      start: fc.integer({ min: 0, max: 400 * 86_400_000 }),
      steps: fc.array(step, { minLength: 1, maxLength: 6 }),
      salt: fc.integer(),
      backfillBuckets: exact ? fc.constant(undefined) : fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
    });
  });
}

function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ b;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The final value of a bucket of a series, deterministic in (salt, series,
 * bucket): mostly integers, some exact fractions, numeric strings, gaps
 * (null) and negative values (which the counting rejects).
 */
function truth(salt: number, spec: number, bucket: number): number | string | null {
  const h = mix(mix(salt, spec), Math.floor(bucket / 60_000));
  switch (h % 10) {
    case 0: return null;
    case 1: return -((h % 100) + 1);
    case 2: return (h % 4000) / 4;
    case 3: return ` ${h % 1000} `;
    default: return h % 1_000_000;
  }
}

/** What a final value adds to a counter: gaps and negative values add nothing. */
function contribution(value: number | string | null): number {
  const n = value === null ? NaN : Number(value);
  return Number.isFinite(n) && n >= 0 ? n : 0;
}

interface PieceNoise {
  readonly failed: boolean;
  /** Series left out of the answer (a covering answer must carry the series). */
  readonly omitted: ReadonlySet<number>;
}

/**
 * The points of one series for one answer. Exact mode: every asked bucket up
 * to now, settled ones with their final value (sometimes duplicated, also as
 * strings), plus noise the counting must ignore: revisions of unsettled
 * buckets, points in the future and points outside the asked range.
 * Hostile mode adds noise that may change what is counted: off-grid points,
 * absurd values and settled buckets left out or given other values.
 */
function seriesPoints(g: fc.GeneratorValue, exact: boolean, s: Scenario, spec: number, range: BucketRange, now: number, lastSettled: number): InputPoint[] {
  const size = INTERVAL_MS[s.interval];
  const noisy = looseNumberInput(exact ? fc.integer({ min: -5, max: 10_000 }) : anyFinite);
  const out: InputPoint[] = [];
  for (let t = range.first; t <= range.last && t <= now; t += size) {
    if (t > lastSettled) out.push([t, g(() => fc.option(noisy, { nil: null }))]);
    else if (!exact && g(() => fc.integer({ min: 0, max: 9 })) === 0) continue;
    else out.push([t, exact ? truth(s.salt, spec, t) : g(() => fc.oneof(fc.constant(truth(s.salt, spec, t)), noisy))]);
  }
  const settled = out.filter(([t]) => Number(t) <= lastSettled);
  for (const dup of g(() => fc.subarray(settled, { maxLength: Math.min(3, settled.length) }))) out.push([String(dup[0]), dup[1] === null ? null : String(dup[1])]);
  const extra = g(() => fc.array(fc.tuple(fc.integer({ min: 1, max: 50 }), fc.option(noisy, { nil: null })), { maxLength: 3 }));
  for (const [k, v] of extra) out.push([now + k * size, v]);
  const before = g(() => fc.array(fc.tuple(fc.integer({ min: 1, max: 5 }), fc.option(noisy, { nil: null })), { maxLength: 2 }));
  if (!exact || g(() => fc.boolean())) for (const [k, v] of before) out.push([range.first - k * size, v]);
  if (!exact) {
    const offGrid = g(() => fc.array(fc.tuple(fc.integer({ min: 1, max: size - 1 }), fc.option(noisy, { nil: null })), { maxLength: 2 }));
    for (const [k, v] of offGrid) out.push([range.first + k, v]);
  }
  return g(() => fc.shuffledSubarray(out, { minLength: out.length, maxLength: out.length }));
}

function defaultRanges(_plans: ReadonlyMap<string, Plan>, window: RequestWindow): BucketRange[] {
  return [...window.backfill, { first: window.main.first, last: window.main.last }];
}

/**
 * What CounterLedger.apply does for one collector, without the save the
 * ledger needs before its totals show: the totals in a CounterTotals (the
 * ledger's own), the watermarks replaced key by key.
 */
class Counting {
  readonly totals = new CounterTotals();
  private readonly marks = new Map<string, number>();

  apply(output: { readonly increments: readonly Sample[]; readonly watermarks: Readonly<Record<string, number>> }): void {
    for (const inc of output.increments) if (Number.isFinite(inc.value) && inc.value >= 0) this.totals.add(inc.name, inc.labels, inc.value, inc.timestampMs);
    for (const [key, ms] of Object.entries(output.watermarks)) this.marks.set(key, ms);
  }

  watermarks(): Record<string, number> {
    return Object.fromEntries(this.marks);
  }
}

/** Runs the scenario's cycles and checks the invariants after each; returns the final counters by series key. */
export function runCycles<R>(harness: SeriesHarness<R>, s: Scenario, g: fc.GeneratorValue, exact: boolean): Map<string, number> {
  const size = INTERVAL_MS[s.interval];
  const grid: Grid = { interval: s.interval, offsetMinutes: tz.offsetMinutes };
  const delayMs = Math.round(s.delayBuckets * size);
  const ledger = new Counting();
  let now = T0 + s.start;
  const keys = harness.specs.map((spec) => spec.key);
  const persisted = s.persisted;
  if (persisted !== undefined) ledger.apply({ increments: [], watermarks: Object.fromEntries(keys.map((k) => [k, now - persisted - size])) });
  const firstWatermark = new Map<string, number>(Object.entries(ledger.watermarks()));
  for (const step of [0, ...s.steps]) {
    now += step;
    const options: CycleOptions = {
      interval: s.interval, delayMs, now, timestamps: s.timestamps, maxBuckets: s.maxBuckets,
      maxBackfillMs: s.backfillBuckets === undefined ? 1e12 : s.backfillBuckets * size,
      gaugeWindowMs: s.gaugeWindowBuckets === undefined ? undefined : s.gaugeWindowBuckets * size,
    };
    const lastSettled = lastSettledStart(now, s.interval, delayMs, grid.offsetMinutes);
    const before = ledger.watermarks();
    const plans = planSeries(keys, { now, watermarks: before, tz, log: silentLog }, options);
    const window = requestWindow({ plans: plans.values(), now, grid, delayMs, gaugeWindowMs: options.gaugeWindowMs, maxBuckets: s.maxBuckets });
    const ranges = (harness.ranges ?? defaultRanges)(plans, window, grid, options);
    const pieces: Piece<R>[] = ranges.map((range) => {
      const noise: PieceNoise = {
        failed: g(() => fc.integer({ min: 0, max: 6 })) === 0,
        omitted: new Set(g(() => fc.subarray(harness.specs.map((_, i) => i), { maxLength: Math.min(1, harness.specs.length) }))),
      };
      if (noise.failed) return { range, answer: undefined };
      const points = harness.specs.map((_, i) => (noise.omitted.has(i) ? undefined : seriesPoints(g, exact, s, i, range, now, lastSettled)));
      return { range, answer: harness.read(harness.body(points), range) };
    });
    const result = harness.convert(plans, pieces, grid, options);
    const counters = new Map(ledger.totals.counted().map((c) => [`${c.name}${JSON.stringify(c.labels)}`, c.value]));
    for (const inc of result.increments) {
      expect(Number.isNaN(inc.value), `increment of ${inc.name}`).toBe(false);
      expect(inc.value).toBeGreaterThanOrEqual(0);
      if (inc.timestampMs !== undefined) expect(Number.isFinite(inc.timestampMs)).toBe(true);
    }
    ledger.apply({ increments: result.increments, watermarks: result.watermarks });
    for (const c of ledger.totals.counted()) {
      expect(Number.isFinite(c.value), `counter ${c.name} is finite`).toBe(true);
      expect(c.value).toBeGreaterThanOrEqual(counters.get(`${c.name}${JSON.stringify(c.labels)}`) ?? 0);
    }
    const after = ledger.watermarks();
    for (const key of keys) {
      const was = before[key];
      const is = after[key];
      if (is === undefined) continue;
      if (was !== undefined) expect(is).toBeGreaterThanOrEqual(was);
      expect(is).toBeLessThanOrEqual(Math.max(lastSettled, was ?? -Infinity));
      if (!firstWatermark.has(key)) firstWatermark.set(key, is);
    }
    // The same answers again, planned from the new watermarks, count nothing and move nothing.
    const again = planSeries(keys, { now, watermarks: after, tz, log: silentLog }, options);
    const replay = harness.convert(again, pieces, grid, options);
    expect(replay.increments.reduce((sum, inc) => sum + inc.value, 0)).toBe(0);
    for (const [key, ms] of Object.entries(replay.watermarks)) expect(ms).toBe(after[key]);
  }
  const totals = new Map(ledger.totals.counted().map((c) => [harness.specs.find((sp) => sameLabels(sp, c.name, c.labels))?.key ?? '?', c.value]));
  if (exact) {
    const final = ledger.watermarks();
    harness.specs.forEach((spec, i) => {
      const from = firstWatermark.get(spec.key);
      const to = final[spec.key];
      if (from === undefined || to === undefined) return;
      let expected = 0;
      for (let b = alignedAfter(from, s.interval); b <= to; b += size) expected += contribution(truth(s.salt, i, b));
      expect(totals.get(spec.key) ?? 0, `${spec.key} counted (${from}, ${to}]`).toBe(expected);
    });
  }
  return totals;
}

/** The first bucket after a (possibly off-grid) watermark, as planCount resumes. */
function alignedAfter(watermark: number, interval: BucketInterval): number {
  const size = INTERVAL_MS[interval];
  const shift = interval === '1d' ? tz.offsetMinutes * 60_000 : 0;
  return Math.floor((watermark + shift) / size) * size - shift + size;
}

function sameLabels<R>(spec: CounterSpec<R>, name: string, labels: Readonly<Record<string, string>>): boolean {
  return spec.family === name && JSON.stringify(Object.entries(spec.labels).sort()) === JSON.stringify(Object.entries(labels).sort());
}
