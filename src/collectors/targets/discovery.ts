// Which domains and packages the collectors ask about: listed in config, or
// discovered with listDomains (paged to the end) and getPackages, then
// narrowed by include/exclude regexes. Discovery is refreshed when due (the
// engine asks before each run); a failed refresh keeps the last good list and
// is retried sooner, so an upstream that was down at start-up is picked up on
// the next cycle rather than after a whole refresh period. With `shard`, each
// replica keeps its share of the filtered lists (shard.ts), so every domain
// and package is collected by exactly one replica.
import type { ReadClient } from '../../api/index.js';
import { compileNameRegex } from '../../config/patterns.js';
import type { TargetsConfig } from '../../config/sections/targets.js';
import { errorFields, failureMessage, InternalError } from '../../shared/errors.js';
import { ownedBy, UNSHARDED, type Shard } from './shard.js';
import type { CollectorLogger, TargetCounts, TargetLists, Targets } from '../collector.js';

/** What the engine needs: the current lists, and a refresh when one is due. */
export interface TargetSource {
  current(): Targets;
  /** Refreshes every kind whose refresh is due at `now`; never throws (a failure keeps the last good list). */
  refreshIfDue(now: number, signal?: AbortSignal): Promise<unknown>;
  /**
   * The error that has kept a kind from ever being listed, if any. An empty
   * list that was never loaded is not "no targets": a collector needing it
   * must fail rather than report success with nothing collected.
   */
  unavailable(kind: TargetKind): unknown;
}

export type TargetKind = keyof TargetLists;
export type DiscoveryClient = Pick<ReadClient, 'listDomains' | 'getPackages'>;

interface TargetRefresh {
  readonly kind: TargetKind;
  readonly ok: boolean;
  /** Names after filtering: the new list, or the one kept after a failure. */
  readonly count: number;
  /** Of those, the names this shard owns. */
  readonly owned: number;
  readonly error?: unknown;
}

interface TargetDiscoveryOptions {
  readonly client: DiscoveryClient;
  readonly config: TargetsConfig;
  readonly log: CollectorLogger;
  /** Wait after a failed refresh before trying again (default 30s, at most `config.refresh`). */
  readonly retryMs?: number;
  /** This replica's shard: current() holds only the names it owns (default unsharded). */
  readonly shard?: Shard;
  /** Called after the first refresh and after every one that changed a list, with the lists then current. */
  readonly onChange?: (targets: Targets) => void;
}

/** Most pages walked when the upstream gives no total, against a server that ignores paging. */
const MAX_PAGES = 10_000;
const DEFAULT_RETRY_MS = 30_000;

interface KindState {
  /** Every name after filtering, whichever shard owns it. */
  names: readonly string[];
  /** The names this shard owns. */
  owned: readonly string[];
  /** Set until the first successful listing (static lists never have it). */
  neverLoaded: { error: unknown } | undefined;
  dueAt: number;
  inFlight: Promise<TargetRefresh> | undefined;
  readonly fetch: ((signal?: AbortSignal) => Promise<string[]>) | undefined;
  readonly include: readonly RegExp[];
  readonly exclude: readonly RegExp[];
}

export class TargetDiscovery implements TargetSource {
  private readonly onChange: ((targets: Targets) => void) | undefined;
  /** A list changed since onChange was last called (or it never was). */
  private changed: boolean;
  private readonly kinds: Record<TargetKind, KindState>;
  private readonly refreshMs: number;
  private readonly retryMs: number;
  private readonly log: CollectorLogger;
  private readonly sharded: boolean;
  private readonly owns: (name: string) => boolean;

  constructor(options: TargetDiscoveryOptions) {
    const { client, config } = options;
    const shard = options.shard ?? UNSHARDED;
    this.refreshMs = config.refresh;
    this.retryMs = Math.min(options.retryMs ?? DEFAULT_RETRY_MS, config.refresh);
    this.log = options.log;
    this.sharded = shard.count > 1;
    this.owns = ownedBy(shard);
    this.onChange = options.onChange;
    // Static lists never refresh: the first refreshIfDue reports them.
    this.changed = true;
    const d = config.domains;
    const p = config.packages;
    this.kinds = {
      domains: kindState(d, this.owns, (signal) => listAllDomains(client, { states: d.states, pageSize: d.page_size }, signal)),
      packages: kindState(p, this.owns, (signal) => listPackages(client, signal)),
    };
  }

  current(): Targets {
    const { domains, packages } = this.kinds;
    const share = { domains: domains.owned, packages: packages.owned };
    return this.sharded ? { ...share, all: { domains: domains.names, packages: packages.names } } : share;
  }

  unavailable(kind: TargetKind): unknown {
    return this.kinds[kind].neverLoaded?.error;
  }

  refreshIfDue(now: number, signal?: AbortSignal): Promise<TargetRefresh[]> {
    return this.refreshDue(now, signal).then((refreshes) => {
      if (this.changed) {
        this.changed = false;
        this.onChange?.(this.current());
      }
      return refreshes;
    });
  }

  private refreshDue(now: number, signal: AbortSignal | undefined): Promise<TargetRefresh[]> {
    const runs = (Object.keys(this.kinds) as TargetKind[]).flatMap((kind) => {
      const state = this.kinds[kind];
      if (state.inFlight) return [state.inFlight];
      if (!state.fetch || state.dueAt > now) return [];
      state.inFlight = this.refreshKind(kind, state, state.fetch, now, signal).finally(() => {
        state.inFlight = undefined;
      });
      return [state.inFlight];
    });
    return Promise.all(runs);
  }

  private async refreshKind(
    kind: TargetKind,
    state: KindState,
    fetch: (signal?: AbortSignal) => Promise<string[]>,
    now: number,
    signal: AbortSignal | undefined,
  ): Promise<TargetRefresh> {
    try {
      const names = filterNames(await fetch(signal), state.include, state.exclude);
      const owned = names.filter(this.owns);
      if (state.neverLoaded !== undefined || names.length !== state.names.length || names.some((n, i) => n !== state.names[i])) {
        this.changed = true;
        this.log.info({ targets: kind, count: names.length, ...(this.sharded ? { owned: owned.length } : {}) }, 'target list updated');
      }
      state.names = names;
      state.owned = owned;
      state.neverLoaded = undefined;
      state.dueAt = now + this.refreshMs;
      return { kind, ok: true, count: names.length, owned: owned.length };
    } catch (error) {
      if (state.neverLoaded) state.neverLoaded = { error };
      state.dueAt = now + this.retryMs;
      this.log.warn(
        { targets: kind, kept: state.names.length, retryInMs: this.retryMs, ...errorFields(error) },
        `${failureMessage(error, 'target discovery')}; keeping the last good list`,
      );
      return { kind, ok: false, count: state.names.length, owned: state.owned.length, error };
    }
  }
}

function kindState(
  config: { readonly static?: readonly string[] | undefined; readonly include: readonly string[]; readonly exclude: readonly string[] },
  owns: (name: string) => boolean,
  discover: (signal?: AbortSignal) => Promise<string[]>,
): KindState {
  const include = config.include.map(compileNameRegex);
  const exclude = config.exclude.map(compileNameRegex);
  const fixed = config.static;
  if (fixed === undefined) {
    return { names: [], owned: [], neverLoaded: { error: new InternalError('not listed yet') }, dueAt: Number.NEGATIVE_INFINITY, inFlight: undefined, fetch: discover, include, exclude };
  }
  const names = filterNames(fixed, include, exclude);
  return { names, owned: names.filter(owns), neverLoaded: undefined, dueAt: Number.POSITIVE_INFINITY, inFlight: undefined, fetch: undefined, include, exclude };
}

/** Distinct names, sorted, that match an include regex (or there are none) and no exclude regex. */
export function filterNames(names: readonly string[], include: readonly RegExp[], exclude: readonly RegExp[]): string[] {
  const kept = names.filter((n) => (include.length === 0 || include.some((re) => re.test(n))) && !exclude.some((re) => re.test(n)));
  return [...new Set(kept)].sort();
}

/**
 * Every domain name, paged to the end. With a `total`, the remaining pages are
 * requested together (the client bounds concurrency); without one, pages are
 * walked until a short page, or one that brings no new name.
 */
export async function listAllDomains(
  client: Pick<ReadClient, 'listDomains'>,
  opts: { readonly states: readonly ('0' | '1' | '2')[]; readonly pageSize: number },
  signal?: AbortSignal,
): Promise<string[]> {
  const page = async (pageNum: number): Promise<{ names: string[]; total: number | undefined }> => {
    const body = { filters: [], searchHeader: { isActive: [...opts.states] }, pageNum, pageSize: opts.pageSize };
    const answer = await client.listDomains(body, { signal });
    return { names: answer.rows.map((r) => r.domainName), total: answer.total };
  };
  const first = await page(1);
  if (first.total !== undefined) {
    const pages = Math.min(MAX_PAGES, Math.ceil(first.total / opts.pageSize));
    const rest = await Promise.all(Array.from({ length: Math.max(0, pages - 1) }, (_, i) => page(i + 2)));
    return first.names.concat(...rest.map((r) => r.names));
  }
  const names = new Set(first.names);
  for (let n = 2, last = first.names.length; last >= opts.pageSize && n <= MAX_PAGES; n++) {
    const next = await page(n);
    const before = names.size;
    for (const name of next.names) names.add(name);
    // A server that ignores pageNum repeats the first page forever.
    last = names.size === before ? 0 : next.names.length;
  }
  return [...names];
}

/** Requests one refresh of every discovered kind makes for `counts` (listDomains pages, one getPackages); static lists make none. */
export function discoveryRequests(config: TargetsConfig, counts: TargetCounts): number {
  const domains = config.domains.static === undefined ? Math.max(1, Math.ceil(counts.domains / config.domains.page_size)) : 0;
  return domains + (config.packages.static === undefined ? 1 : 0);
}

/** Layer-7 package ids: the `value` of each getPackages entry. */
async function listPackages(client: Pick<ReadClient, 'getPackages'>, signal?: AbortSignal): Promise<string[]> {
  const answer = await client.getPackages({}, { signal });
  return answer.data.map((p) => p.value);
}
