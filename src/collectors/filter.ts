// Metric allow/deny patterns, applied before collection: a collector asks
// `enabled(family)` before making the requests that feed only that family,
// and the engine does not run a collector whose families are all denied, so
// a denied family costs no upstream request and no memory.
import { compileMetricPattern } from '../config/patterns.js';
import type { MetricDef } from './collector.js';

/** What collectors and the engine need to know about the metrics config. */
export interface FamilyFilter {
  enabled(family: string): boolean;
}

interface MetricFilterOptions {
  /** Globs (`edge_topn_*`) or anchored regexes (`/edge_(domain|package)_.+/`); empty = every family. */
  readonly allow?: readonly string[];
  /** Same syntax; a family matching any deny pattern is off even when allowed. */
  readonly deny?: readonly string[];
}

export class MetricFilter implements FamilyFilter {
  private readonly allow: readonly RegExp[];
  private readonly deny: readonly RegExp[];
  /** Families are few and asked about every cycle; remember the answers. */
  private readonly decided = new Map<string, boolean>();

  /** Throws PatternError on a bad pattern (the config schema has already rejected those). */
  constructor(options: MetricFilterOptions = {}) {
    this.allow = (options.allow ?? []).map(compileMetricPattern);
    this.deny = (options.deny ?? []).map(compileMetricPattern);
  }

  enabled(family: string): boolean {
    let on = this.decided.get(family);
    if (on === undefined) {
      const allowed = this.allow.length === 0 || this.allow.some((re) => re.test(family));
      on = allowed && !this.deny.some((re) => re.test(family));
      this.decided.set(family, on);
    }
    return on;
  }
}

/** Whether a collector has anything left to do: at least one family enabled (a collector without families always runs). */
export function anyFamilyEnabled(filter: FamilyFilter, families: readonly Pick<MetricDef, 'name'>[]): boolean {
  return families.length === 0 || families.some((f) => filter.enabled(f.name));
}
