// Readings: where the vendor document is silent the simulator answers one
// way by default, and each reading switches it to another plausible answer,
// so the exporter can be tested against both. Every reading is off by
// default; with all of them off the simulator answers exactly as it always
// did. They change at run time (/__admin/readings) and survive reset(), like
// the clock, because they describe the upstream, not the account's data.
import { parseUtcOffset } from '../api/time.js';
import { DAY_MS } from '../api/time.js';
import { EdgeError } from '../shared/errors.js';

export type BandwidthUnit = 'bits_per_second' | 'bytes_per_second';
export type PathForm = 'both' | 'prefixed' | 'bare';

export interface LateRevision {
  /** Age past a bucket's end from which it is reported revised. */
  readonly afterMs: number;
  /** The revised value is floor(final × factor). */
  readonly factor: number;
}

export interface WafLateIngest {
  /** Share of the deny records that arrive late, (0, 1]. */
  readonly fraction: number;
  /** Each late record becomes visible between minMs and maxMs (inclusive) after its time. */
  readonly minMs: number;
  readonly maxMs: number;
}

export interface Readings {
  /** WAF logTread buckets of this fixed size, reported whole (undefined: sized by the range). */
  readonly logTreadBucketMs: number | undefined;
  /** WAF record timeStamp without a zone offset, in platform wall-clock time. */
  readonly naiveTimestamps: boolean;
  /** Unit of every bandwidth value. */
  readonly bandwidthUnit: BandwidthUnit;
  /** Totals that should equal the sum of their points are reported × this, rounded down. */
  readonly totalsSkew: number;
  /** A statistics bucket is revised once more this long after its end. */
  readonly lateRevision: LateRevision | undefined;
  /** Range parameters are ignored: the WAF query answers the last hour, statistics the last 60 buckets. */
  readonly ignoreRanges: boolean;
  /** The upstream's clock runs this many ms behind the simulator's (negative: ahead). */
  readonly clockOffsetMs: number;
  /** UTC offset request times are read in (undefined: the platform zone). */
  readonly paramsZone: string | undefined;
  /** WAF record timeStamps are this many ms earlier than the time that selects them. */
  readonly recordTimeLagMs: number;
  /** Which spellings of operations 9-13 (documented without /prod-api) are served. */
  readonly pathForm: PathForm;
  /** Time-series points whose value is 0 are left out (only buckets with data are listed). */
  readonly omitZeroBuckets: boolean;
  /** With logTreadBucketMs: only buckets that begin inside [beginTime, endTime) are listed, not the one containing beginTime. */
  readonly logTreadStrictRange: boolean;
  /** An unknown path is answered 404 by the framework in front (Spring Boot's default error body), not with the platform's envelope. */
  readonly gatewayNotFound: boolean;
  /** A deterministic share of the deny WAF records is ingested this late instead of within the usual lag. */
  readonly wafLateIngest: WafLateIngest | undefined;
  /** Every listed logTread bucket holding a record reports count + this (at least 0): counts from another index than the records. */
  readonly logTreadCountDelta: number;
  /** With logTreadBucketMs: a bucket is listed only once it is complete (its end no later than now). */
  readonly logTreadCompleteOnly: boolean;
}

export const DEFAULT_READINGS: Readings = Object.freeze({
  logTreadBucketMs: undefined,
  naiveTimestamps: false,
  bandwidthUnit: 'bits_per_second',
  totalsSkew: 1,
  lateRevision: undefined,
  ignoreRanges: false,
  clockOffsetMs: 0,
  paramsZone: undefined,
  recordTimeLagMs: 0,
  pathForm: 'both',
  omitZeroBuckets: false,
  logTreadStrictRange: false,
  gatewayNotFound: false,
  wafLateIngest: undefined,
  logTreadCountDelta: 0,
  logTreadCompleteOnly: false,
});

export type ReadingKey = keyof Readings;
export const READING_KEYS = Object.keys(DEFAULT_READINGS) as ReadingKey[];

const MINUTE_MS = 60_000;
const BANDWIDTH_UNITS: readonly BandwidthUnit[] = ['bits_per_second', 'bytes_per_second'];
const PATH_FORMS: readonly PathForm[] = ['both', 'prefixed', 'bare'];

/** A reading that is not one of its allowed values (HTTP 400 from the admin route). */
export class ReadingError extends EdgeError {
  readonly code = 'EDGE_SIM_READING';
}

/** A change of readings: a value sets a key, null (or undefined) puts it back to its default. */
export type ReadingsPatch = { -readonly [K in ReadingKey]?: Readings[K] | null };

/**
 * Validates a patch, also one parsed from admin JSON; unknown keys are refused
 * so a typo cannot pass silently. Throws ReadingError.
 */
export function checkReadings(raw: unknown): ReadingsPatch {
  if (!isRecord(raw)) throw new ReadingError('readings must be an object');
  const unknown = Object.keys(raw).filter((k) => !(READING_KEYS as string[]).includes(k));
  if (unknown.length > 0) throw new ReadingError(`unknown readings ${unknown.join(', ')} (known: ${READING_KEYS.join(', ')})`);
  const patch: ReadingsPatch = {};
  for (const key of READING_KEYS) {
    const v = raw[key];
    if (v === undefined) continue;
    if (v === null) patch[key] = null;
    else assign(patch, key, v);
  }
  return patch;
}

function assign(patch: ReadingsPatch, key: ReadingKey, v: unknown): void {
  const bad = (what: string): ReadingError => new ReadingError(`${key} must be ${what}, got ${JSON.stringify(v)}`);
  switch (key) {
    case 'logTreadBucketMs':
      // Whole minutes up to a day keep a 31-day query under the statistics' 50,000-bucket guard.
      if (!isInt(v) || v < MINUTE_MS || v > DAY_MS || v % MINUTE_MS !== 0) throw bad(`a whole number of minutes in ms, ${MINUTE_MS}..${DAY_MS}`);
      patch[key] = v;
      return;
    case 'naiveTimestamps':
    case 'ignoreRanges':
    case 'omitZeroBuckets':
    case 'logTreadStrictRange':
    case 'gatewayNotFound':
    case 'logTreadCompleteOnly':
      if (typeof v !== 'boolean') throw bad('a boolean');
      patch[key] = v;
      return;
    case 'bandwidthUnit': {
      const unit = BANDWIDTH_UNITS.find((u) => u === v);
      if (unit === undefined) throw bad(BANDWIDTH_UNITS.join(' or '));
      patch[key] = unit;
      return;
    }
    case 'pathForm': {
      const form = PATH_FORMS.find((f) => f === v);
      if (form === undefined) throw bad(PATH_FORMS.join(', '));
      patch[key] = form;
      return;
    }
    case 'totalsSkew':
      if (!isPositive(v)) throw bad('a positive number');
      patch[key] = v;
      return;
    case 'clockOffsetMs':
      if (!isInt(v)) throw bad('an integer of ms');
      patch[key] = v;
      return;
    case 'logTreadCountDelta':
      if (!isInt(v)) throw bad('an integer');
      patch[key] = v;
      return;
    case 'recordTimeLagMs':
      if (!isInt(v) || v < 0) throw bad('a non-negative integer of ms');
      patch[key] = v;
      return;
    case 'paramsZone':
      if (typeof v !== 'string' || !isOffset(v)) throw bad('a UTC offset such as +00:00 or +09:00');
      patch[key] = v;
      return;
    case 'lateRevision':
      patch[key] = lateRevision(v);
      return;
    case 'wafLateIngest':
      patch[key] = wafLateIngest(v);
      return;
  }
}

function lateRevision(v: unknown): LateRevision {
  const what = 'lateRevision must be {afterMs: non-negative integer, factor: positive number}';
  if (!isRecord(v)) throw new ReadingError(what);
  const extra = Object.keys(v).filter((k) => k !== 'afterMs' && k !== 'factor');
  if (extra.length > 0 || !isInt(v.afterMs) || v.afterMs < 0 || !isPositive(v.factor)) {
    throw new ReadingError(`${what}, got ${JSON.stringify(v)}`);
  }
  return { afterMs: v.afterMs, factor: v.factor };
}

function wafLateIngest(v: unknown): WafLateIngest {
  const what = 'wafLateIngest must be {fraction: number in (0, 1], minMs: non-negative integer, maxMs: integer >= minMs}';
  if (!isRecord(v)) throw new ReadingError(what);
  const extra = Object.keys(v).filter((k) => k !== 'fraction' && k !== 'minMs' && k !== 'maxMs');
  const { fraction, minMs, maxMs } = v;
  if (extra.length > 0 || !isPositive(fraction) || fraction > 1 || !isInt(minMs) || minMs < 0 || !isInt(maxMs) || maxMs < minMs) {
    throw new ReadingError(`${what}, got ${JSON.stringify(v)}`);
  }
  return { fraction, minMs, maxMs };
}

type MutableReadings = { -readonly [K in ReadingKey]: Readings[K] };

/** The readings after a patch (a fresh object; neither argument changes). */
function applyReadings(base: Readings, patch: ReadingsPatch): Readings {
  const out: MutableReadings = { ...base };
  for (const key of READING_KEYS) {
    if (key in patch) setReading(out, key, patch[key] ?? DEFAULT_READINGS[key]);
  }
  return Object.freeze(out);
}

function setReading<K extends ReadingKey>(target: MutableReadings, key: K, value: Readings[K]): void {
  target[key] = value;
}

/** Readings as JSON: every key present, null where the default is "none". */
export function readingsJson(r: Readings): Record<ReadingKey, unknown> {
  return Object.fromEntries(READING_KEYS.map((k) => [k, r[k] ?? null])) as Record<ReadingKey, unknown>;
}

/** The simulator's current readings: validated on every change, kept across resets. */
export class ReadingsState {
  private current: Readings;

  /** Throws ReadingError for a bad value. */
  constructor(initial: Partial<Readings> = {}) {
    this.current = applyReadings(DEFAULT_READINGS, checkReadings(initial));
  }

  get(): Readings {
    return this.current;
  }

  /** Merges a patch (validated as a whole first, so a bad key changes nothing; throws ReadingError). */
  merge(patch: ReadingsPatch): Readings {
    this.current = applyReadings(this.current, checkReadings(patch));
    return this.current;
  }

  reset(): Readings {
    this.current = DEFAULT_READINGS;
    return this.current;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v);
}

function isPositive(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0;
}

function isOffset(text: string): boolean {
  try {
    parseUtcOffset(text);
    return true;
  } catch {
    return false;
  }
}
