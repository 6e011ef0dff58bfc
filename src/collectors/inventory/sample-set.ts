// What the pure conversions share: a builder that collects the samples of a
// fixed set of families (an empty family is a result too: "no domains now"),
// expands state sets, reads platform-zone times, drops duplicate rows, and
// records the rows it could not read instead of throwing, so one odd row never
// hides the rest of a list.
import type { PlatformClock } from '../../api/index.js';
import type { MetricDef, Sample } from '../collector.js';
import { UNKNOWN_STATE, type StateSetDef } from './metrics.js';
import { DAY_MS } from '../../api/time.js';
import { InternalError } from '../../shared/errors.js';

/** A value a conversion skipped or mapped to `unknown`; the collector logs these. */
export interface ConvertIssue {
  readonly family: string;
  /** Identity of the row (domain, oid, cert_id, ...). */
  readonly key: string;
  readonly field: string;
  readonly value: unknown;
  readonly reason: string;
}

export interface Converted {
  /** Every family the conversion owns, in definition order, empty ones included. */
  readonly families: ReadonlyMap<string, readonly Sample[]>;
  readonly issues: readonly ConvertIssue[];
}

/** How a bare `yyyy-MM-dd` is read where the field may hold a date without a time. */
type BareDate = 'start-of-day' | 'end-of-day';

/**
 * Epoch ms of a platform-zone `yyyy-MM-dd HH:mm:ss`, or of a bare date
 * (00:00, or its last second for an end date). Undefined when unreadable.
 */
export function parsePlatformTime(text: string, tz: PlatformClock, bareDate: BareDate): number | undefined {
  const trimmed = text.trim();
  try {
    return tz.parseDateTime(trimmed);
  } catch {
    // Not a full time; a date alone is tried next.
  }
  try {
    const midnight = tz.parseDate(trimmed);
    return bareDate === 'start-of-day' ? midnight : midnight + DAY_MS - 1000;
  } catch {
    return undefined;
  }
}

export class SampleSet {
  private readonly samples = new Map<string, Sample[]>();
  private readonly problems: ConvertIssue[] = [];

  constructor(private readonly defs: readonly MetricDef[]) {
    for (const def of defs) this.samples.set(def.name, []);
  }

  addGauge(def: MetricDef, labels: Readonly<Record<string, string>>, value: number): void {
    this.list(def).push({ name: def.name, labels: ordered(def, labels), value });
  }

  /** One series per documented state; an undocumented code becomes state="unknown" = 1. */
  stateSet(def: StateSetDef, labels: Readonly<Record<string, string>>, code: string | number, key: string): void {
    const text = String(code).trim();
    const current = def.states.find((s) => s.code === text)?.state;
    if (current === undefined) {
      this.issue({ family: def.name, key, field: def.source.field, value: code, reason: `undocumented code, exported as ${def.stateLabel}="${UNKNOWN_STATE}"` });
    }
    for (const s of def.states) this.addGauge(def, { ...labels, [def.stateLabel]: s.state }, s.state === current ? 1 : 0);
    if (current === undefined) this.addGauge(def, { ...labels, [def.stateLabel]: UNKNOWN_STATE }, 1);
  }

  /**
   * A platform-zone time as Unix seconds. null, undefined and '' mean "not
   * set" and give no sample; an unreadable text gives none either, and an issue.
   */
  timestamp(def: MetricDef, labels: Readonly<Record<string, string>>, text: string | null | undefined, key: string, tz: PlatformClock, bareDate: BareDate = 'start-of-day'): void {
    if (text === null || text === undefined || text.trim() === '') return;
    const ms = parsePlatformTime(text, tz, bareDate);
    if (ms === undefined) {
      this.issue({ family: def.name, key, field: def.source.field, value: text, reason: 'not a yyyy-MM-dd HH:mm:ss or yyyy-MM-dd time' });
      return;
    }
    this.addGauge(def, labels, ms / 1000);
  }

  issue(issue: ConvertIssue): void {
    this.problems.push(issue);
  }

  /**
   * Rows in order with later repeats of a key dropped: a list paged while the
   * upstream adds rows shifts them across pages, and a repeated row would
   * repeat a series (an invalid exposition) or, with changed labels, put two
   * series of one state set at 1.
   */
  unique<R>(rows: readonly R[], key: (row: R) => string, family: string, field: string): R[] {
    const seen = new Set<string>();
    return rows.filter((row) => {
      const k = key(row);
      if (!seen.has(k)) {
        seen.add(k);
        return true;
      }
      this.issue({ family, key: k, field, value: k, reason: 'duplicate row, first one kept' });
      return false;
    });
  }

  build(): Converted {
    const families = new Map<string, readonly Sample[]>();
    for (const def of this.defs) families.set(def.name, this.list(def));
    return { families, issues: this.problems };
  }

  private list(def: MetricDef): Sample[] {
    const list = this.samples.get(def.name);
    if (list === undefined) throw new InternalError(`${def.name} is not one of this conversion's families`);
    return list;
  }
}

/** Labels in the definition's order; a missing or extra label is a bug in the conversion. */
function ordered(def: MetricDef, labels: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of def.labels) {
    const value = labels[name];
    if (value === undefined) throw new InternalError(`${def.name}: label ${name} missing`);
    out[name] = value;
  }
  if (Object.keys(labels).length !== def.labels.length) throw new InternalError(`${def.name}: unexpected labels ${Object.keys(labels).join(', ')}`);
  return out;
}

/** Combines conversions of one resource (layer-4 list and details). */
export function merge(...parts: readonly Converted[]): Converted {
  const families = new Map<string, readonly Sample[]>();
  for (const part of parts) for (const [name, samples] of part.families) families.set(name, samples);
  return { families, issues: parts.flatMap((p) => p.issues) };
}
