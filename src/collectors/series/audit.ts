// The audit: buckets already counted, read again and compared with what the
// counter holds for them. An upstream that revises a bucket after `delay`
// leaves the counter short for good unless someone looks again; the audit
// looks again, every `every`, at the buckets counted within `lookback`, counts
// each as match or revised, and with `correct` adds an upward revision to the
// counter (a downward one is reported, never subtracted: a counter never goes
// down). What the counter holds per bucket is kept in memory only: buckets
// counted before a restart are not audited.
import { seconds, type Mismatch } from '../contract/checks.js';
import type { AuditTally, Sample } from '../collector.js';
import type { CounterSpec } from './answer.js';
import { bucketMs, type AuditOptions, type AutoDelay, type Grid } from './options.js';
import { layoutIn, readBuckets, type CountedRange } from './read-buckets.js';
import type { BucketRange, TimeSpan } from './window.js';
import { shouldLogSuggestion, suggestDelay, withRevision, type RevisionAges, type SuggestionLogged } from './suggest-delay.js';

/** For collectors built without audit options (tests, tools). */
export const NO_AUDIT: AuditOptions = { everyMs: 0, lookbackMs: 0, correct: false };

interface Held {
  /** First bucket whose value is known (buckets from here to `to` without an entry held zero). */
  since: number;
  to: number;
  readonly values: Map<number, number>;
}

/** What the audit of one answer found. */
interface AuditOutcome extends Omit<AuditTally, 'suggestedDelayMs'> {
  /** Upward revisions to add (only with `correct`). */
  readonly corrections: Sample[];
  /** The same per series key and bucket, as [bucket start, added] (CollectOutput.corrected). */
  readonly corrected: ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>;
  /** One late_revision per revised bucket. */
  readonly revisions: Mismatch[];
}

/** What the audit keeps of a collector's counting from cycle to cycle (in memory only). */
export class AuditRecord {
  private readonly held = new Map<string, Held>();
  private lastAuditAt: number | undefined;
  private ages: RevisionAges = new Map();
  private logged: SuggestionLogged | undefined;
  /** Under `delay: auto`, the delay in force once an audit has suggested one. */
  private autoMs: number | undefined;
  /** When the clock look-back (lookback.ts) last asked: the record lives as long as its collector. */
  private lookBackAt: number | undefined;

  constructor(private readonly options: AuditOptions) {}

  /** When the clock look-back last asked; undefined: never. */
  lastLookBack(): number | undefined {
    return this.lookBackAt;
  }

  lookedBack(now: number): void {
    this.lookBackAt = now;
  }

  /** Remembers what the counters now hold for the buckets counted this cycle. */
  record(counted: ReadonlyMap<string, CountedRange> | undefined, now: number, grid: Grid): void {
    if (this.options.everyMs <= 0 || counted === undefined) return;
    const size = bucketMs(grid);
    const oldest = now - this.options.lookbackMs - size;
    for (const [key, range] of counted) {
      let entry = this.held.get(key);
      // A gap (a restart, max_backfill given up) starts afresh: buckets before it are unknown.
      if (entry === undefined || entry.to + size !== range.from) {
        entry = { since: range.from, to: range.from - size, values: new Map() };
        this.held.set(key, entry);
      }
      for (const [bucket, value] of range.values) entry.values.set(bucket, value);
      entry.to = range.to;
      for (const bucket of entry.values.keys()) if (bucket < oldest) entry.values.delete(bucket);
      entry.since = Math.max(entry.since, oldest);
    }
  }

  /** Whether this cycle audits; the first cycle only starts the clock. Marks the audit as done when it answers true. */
  due(now: number): boolean {
    if (this.options.everyMs <= 0) return false;
    if (this.lastAuditAt === undefined) this.lastAuditAt = now;
    if (now - this.lastAuditAt < this.options.everyMs) return false;
    this.lastAuditAt = now;
    return true;
  }

  /** The buckets to read again for these series: from the oldest held within lookback to the newest counted. */
  range(keys: readonly string[]): BucketRange | undefined {
    let first: number | undefined;
    let last: number | undefined;
    for (const key of keys) {
      const e = this.held.get(key);
      if (e === undefined || e.to < e.since) continue;
      first = first === undefined ? e.since : Math.min(first, e.since);
      last = last === undefined ? e.to : Math.max(last, e.to);
    }
    return first === undefined || last === undefined ? undefined : { first, last };
  }

  /** Compares one answer with what the counters hold, and takes in the upward revisions it corrects. */
  compare<R>(specs: readonly CounterSpec<R>[], answer: R, span: TimeSpan, grid: Grid, now: number): AuditOutcome {
    const size = bucketMs(grid);
    const out = { match: 0, revised: 0, corrections: [] as Sample[], corrected: new Map<string, Array<readonly [number, number]>>(), revisions: [] as Mismatch[] };
    for (const spec of specs) {
      const entry = this.held.get(spec.key);
      const layout = entry === undefined ? undefined : layoutIn(spec, answer, span, size);
      if (entry === undefined || layout === undefined) continue;
      const from = Math.max(entry.since, span.begin);
      const read = readBuckets(layout, span, grid, { pos: from, to: Math.min(entry.to, span.end - size) });
      let up = 0;
      const byBucket: Array<readonly [number, number]> = [];
      for (let bucket = from; bucket <= read.reach; bucket += size) {
        const held = entry.values.get(bucket) ?? 0;
        const seen = read.values.get(bucket) ?? 0;
        if (Math.abs(seen - held) <= Math.abs(held) * 1e-9) {
          out.match++;
          continue;
        }
        out.revised++;
        out.revisions.push(revision(spec, bucket, held, seen, now - (bucket + size)));
        this.ages = withRevision(this.ages, now, now - (bucket + size));
        if (seen > held && this.options.correct) {
          up += seen - held;
          byBucket.push([bucket, seen - held]);
          entry.values.set(bucket, seen);
        }
      }
      if (up > 0) {
        out.corrections.push({ name: spec.family, labels: spec.labels, value: up });
        out.corrected.set(spec.key, byBucket);
      }
    }
    return out;
  }

  /** The shortest delay that would have caught every revision seen over the last day (`delayMs` when none was). */
  suggestion(now: number, delayMs: number): number {
    return suggestDelay(this.ages, now, delayMs);
  }

  /** The delay in force: `delayMs`, or under `delay: auto` the last suggestion within its bounds (`delayMs` until the first audit). */
  delayInForce(delayMs: number, auto: AutoDelay | undefined): number {
    return auto === undefined ? delayMs : (this.autoMs ?? within(delayMs, auto));
  }

  /**
   * Under `delay: auto`, puts the suggestion in force within its bounds; returns the new delay when it changed.
   * The watermarks keep the count exact across the change: a longer delay waits until buckets settle past the
   * watermark (none is counted twice), a shorter one counts from the watermark on (none is skipped).
   */
  adopt(suggestedMs: number, delayMs: number, auto: AutoDelay | undefined): number | undefined {
    if (auto === undefined) return undefined;
    const before = this.delayInForce(delayMs, auto);
    this.autoMs = within(suggestedMs, auto);
    return this.autoMs === before ? undefined : this.autoMs;
  }

  /** Whether the suggestion is to be logged now (see shouldLogSuggestion); remembers it when so. */
  logSuggestion(now: number, suggestedMs: number, delayMs: number, bucketMs: number): boolean {
    if (!shouldLogSuggestion(this.logged, suggestedMs, delayMs, now, bucketMs)) return false;
    this.logged = { at: now, suggestedMs };
    return true;
  }
}

function within(ms: number, auto: AutoDelay): number {
  return Math.min(auto.ceilingMs, Math.max(auto.floorMs, ms));
}

function revision<R>(spec: CounterSpec<R>, bucket: number, held: number, seen: number, ageMs: number): Mismatch {
  // The bucket had not settled at `delay`; by this age it had. Whole minutes, rounded up.
  const suggest = seconds(Math.ceil(ageMs / 60_000) * 60_000);
  return {
    check: 'late_revision', field: spec.metric,
    assumed: 'a bucket is final once it ended `delay` ago',
    seen: `${spec.family} bucket ${new Date(bucket).toISOString()} counted as ${held}, ${seen} now (${held < seen ? 'up' : 'down'}); a delay of ${suggest} would have read the revised value`,
    configKey: 'delay', suggest,
  };
}
