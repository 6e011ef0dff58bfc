// What /metrics serves of every account at once: each account's families and
// self-metrics (its own FamilyStore and SelfMetrics, as a daemon of one
// account had them), joined family by family with `account` as each series'
// first label when accounts are named; and the daemon's own self-metrics (its
// build, config and push pipes, DAEMON_SELF_METRICS) and process metrics
// beside them, without it. Without named accounts the one account's series
// are served exactly as they are. The joined series of a family are made
// again only when one account's change, so the exposition's per-family cache
// keeps working (it compares series arrays by identity).
import { ACCOUNT_LABEL } from '../../counters/index.js';
import type { FamilyStore } from './family-store.js';
import { SELF_PREFIX } from './naming.js';
import type { SelfMetrics } from './self-metrics.js';
import { DAEMON_SELF_METRICS } from './self-metric-defs.js';
import { renderCache, serializeCached, type ExpositionFormat, type FamilyDef, type FamilySnapshot, type SeriesSnapshot } from './serialize.js';

/** One account's exports. */
interface AccountExports {
  readonly name: string;
  readonly families: FamilyStore;
  readonly self: SelfMetrics;
}

interface Joined {
  /** Each account's series as its store gave them. */
  readonly parts: readonly (readonly SeriesSnapshot[])[];
  /** The same with `account` first. */
  readonly labelled: readonly (readonly SeriesSnapshot[])[];
  readonly series: readonly SeriesSnapshot[];
}

export class AccountsView {
  private accounts: readonly AccountExports[] = [];
  /** The stores and generations last read, and the generation they were given. */
  private seen: { readonly stores: readonly FamilyStore[]; readonly generations: readonly number[] } = { stores: [], generations: [] };
  private changes = 0;
  private readonly defs = new WeakMap<FamilyDef, FamilyDef>();
  private readonly joined = new Map<string, Joined>();
  private readonly rendered = renderCache();

  /** `labelled`: accounts are named (`accounts:` or `account.name`), so every account's series carries `account`. */
  constructor(private readonly daemon: SelfMetrics, private readonly labelled: boolean) {}

  /** Makes `accounts` the ones served, in name order (a reload adds, removes or rebuilds some). */
  set(accounts: readonly AccountExports[]): void {
    this.accounts = [...accounts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.changes++;
  }

  /** Changes whenever an account's families do, or the accounts served. */
  get generation(): number {
    const stores = this.accounts.map((a) => a.families);
    const generations = stores.map((s) => s.generation);
    const same = stores.length === this.seen.stores.length && stores.every((s, i) => s === this.seen.stores[i] && generations[i] === this.seen.generations[i]);
    if (!same) {
      this.seen = { stores, generations };
      this.changes++;
    }
    return this.changes;
  }

  /** The data families of every account, joined. */
  snapshot(): readonly FamilySnapshot[] {
    return this.join(this.accounts.map((a) => a.families.snapshot()), 'data');
  }

  /** A data family's definition as served (with `account` first when labelled). */
  def(name: string): FamilyDef | undefined {
    for (const account of this.accounts) {
      const def = account.families.def(name);
      if (def !== undefined) return this.labelledDef(def);
    }
    return undefined;
  }

  /** Every self family, the accounts' joined, then the process metrics: what OTLP metrics pushes of them. */
  async selfSnapshot(): Promise<FamilySnapshot[]> {
    const own = await this.daemon.snapshot();
    const accounts = this.join(await Promise.all(this.accounts.map((a) => a.self.snapshot())), 'self');
    const byName = new Map(accounts.map((f) => [f.def.name, f]));
    // The process metrics and the daemon's own families as they are; every other self family is the accounts'.
    return own.map((family) => (ownFamily(family.def.name) ? family : byName.get(family.def.name) ?? { def: this.labelledDef(family.def), series: [] }));
  }

  /**
   * The self-metrics and the process metrics in `format`, without `# EOF`
   * (the exposition's SelfSource). A family whose series did not change since
   * the last scrape (the same array: SelfFamily's, or the joined one) is not
   * rendered again, as SelfMetrics.render does for one account.
   */
  async render(format: ExpositionFormat): Promise<string> {
    return serializeCached(await this.selfSnapshot(), format, this.rendered);
  }

  /**
   * Families by name over every account's list; a family keeps its place in
   * the first list holding it. `kind` keeps the data and self caches apart.
   */
  private join(lists: readonly (readonly FamilySnapshot[])[], kind: 'data' | 'self'): FamilySnapshot[] {
    const byName = new Map<string, { def: FamilyDef; parts: (readonly SeriesSnapshot[])[] }>();
    lists.forEach((list, i) => {
      for (const family of list) {
        if (kind === 'self' && ownFamily(family.def.name)) continue;
        let entry = byName.get(family.def.name);
        if (entry === undefined) byName.set(family.def.name, (entry = { def: family.def, parts: lists.map(() => []) }));
        entry.parts[i] = family.series;
      }
    });
    return [...byName.values()].map(({ def, parts }) => ({ def: this.labelledDef(def), series: this.joinedSeries(`${kind}:${def.name}`, parts) }));
  }

  private joinedSeries(key: string, parts: readonly (readonly SeriesSnapshot[])[]): readonly SeriesSnapshot[] {
    if (!this.labelled) return parts[0] ?? [];
    const last = this.joined.get(key);
    if (last !== undefined && last.parts.length === parts.length && last.parts.every((p, i) => p === parts[i])) return last.series;
    // Only the accounts whose series changed are labelled again: one account's cycle would otherwise copy every
    // account's series of the family (measured in docs/benchmarks.md, "Several accounts in one daemon").
    const labelled = parts.map((list, i) => {
      const account = this.accounts[i]?.name ?? '';
      const kept = last?.parts[i] === list ? last.labelled[i] : undefined;
      return kept ?? list.map((s) => ({ ...s, labelValues: [account, ...s.labelValues] }));
    });
    const series = labelled.flat();
    this.joined.set(key, { parts, labelled, series });
    return series;
  }

  private labelledDef(def: FamilyDef): FamilyDef {
    if (!this.labelled) return def;
    let out = this.defs.get(def);
    if (out === undefined) this.defs.set(def, (out = { ...def, labels: [ACCOUNT_LABEL, ...def.labels] }));
    return out;
  }
}

/** A family the daemon serves of its own, never by account: the process metrics and DAEMON_SELF_METRICS. */
function ownFamily(name: string): boolean {
  return !name.startsWith(SELF_PREFIX) || DAEMON_SELF_METRICS.has(name);
}
