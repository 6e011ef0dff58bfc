// Pieces the statistics handlers (4-8) share: which domains a request means,
// series as [ms, value] points, ranked name/value lists, and the request
// fields every statistics operation reads the same way.
import type { SimContext } from '../context.js';
import { INTERVAL_MS, type Interval, type TrafficSample } from '../stats.js';
import type { SeriesPoint } from '../stats-series.js';
import {
  BadRequest, obj, optArr, optStr, optTimeRange, pageOf, strings, timeRange, type Obj, type Paging, type TimeRange,
} from './common.js';

type Point = [number, number];

/** Buckets the ignoreRanges reading answers whatever the request's range. */
const IGNORED_RANGE_BUCKETS = 60;

/**
 * The range a statistics request asks for (params are read and checked in any
 * case). With the ignoreRanges reading, the 60 buckets of `iv` ending at the
 * current one instead: `end` past now, because the series stop at now anyway.
 */
export function statRange(ctx: SimContext, b: Obj, iv: Interval, now: number, optional = false): TimeRange {
  const asked = optional ? optTimeRange(b, ctx.requestTz, now) : timeRange(b, ctx.requestTz);
  if (!ctx.readings().ignoreRanges) return asked;
  const current = ctx.stats.alignDown(iv, now);
  return { begin: current - (IGNORED_RANGE_BUCKETS - 1) * INTERVAL_MS[iv], end: now + 1 };
}

export function pointsOf(series: readonly SeriesPoint[], value: (s: TrafficSample) => number): Point[] {
  return series.map((p) => [p.start, value(p.sample)]);
}

/** `domains`: [] or absent means every domain of the account; unknown names simply have no traffic. */
export function domainsOf(ctx: SimContext, names: readonly string[]): string[] {
  return names.length === 0 ? ctx.stats.domainNames() : [...new Set(names)];
}

export function requestDomains(ctx: SimContext, b: Obj): string[] {
  return domainsOf(ctx, strings(optArr(b, 'domains'), 'domains'));
}

/**
 * Usage `oids` ("domains/packages"): a layer-7 package oid or alias stands for
 * its domains, anything else for the domain of that name. [] means all.
 */
export function oidDomains(ctx: SimContext, oids: readonly string[]): string[] {
  if (oids.length === 0) return ctx.stats.domainNames();
  const out = new Set<string>();
  for (const oid of oids) {
    const pkg = ctx.world.l7Packages.find((p) => p.oid === oid || p.alias === oid);
    if (pkg) ctx.world.domains.filter((d) => d.doid === pkg.alias).forEach((d) => out.add(d.domainName));
    else out.add(oid);
  }
  return [...out];
}

interface Ranked {
  readonly list: Array<{ name: string; value: number }>;
  readonly total: number;
}

/** Sorted by value descending, then name; `total` counts all entries before paging. */
export function ranked(entries: Iterable<readonly [string, number]>, page: Paging): Ranked {
  const all = [...entries]
    .map(([name, value]) => ({ name, value }))
    .sort((a, b) => b.value - a.value || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { list: pageOf(all, page), total: all.length };
}

/** StatisticOtherFilter items: their oneVal/twoVal values are not documented, so they are checked for shape only. */
export function checkOtherFilter(b: Obj): void {
  (optArr(b, 'otherFilter') ?? []).forEach((item, i) => {
    const f = obj(item, `otherFilter[${i}]`);
    optStr(f, 'oneVal');
    optStr(f, 'twoVal');
    strings(optArr(f, 'threeVal'), `otherFilter[${i}].threeVal`);
    strings(optArr(f, 'threeVals'), `otherFilter[${i}].threeVals`);
  });
}

export function nonEmptyActions(b: Obj, required: boolean): readonly unknown[] {
  const raw = optArr(b, 'action');
  if (raw === undefined && !required) return [];
  if (!raw || raw.length === 0) throw new BadRequest('action must hold at least one item');
  return raw;
}
