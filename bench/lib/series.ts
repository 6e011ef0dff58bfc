// Realistic published state for the scrape and memory benchmarks: the access
// collector's families for D domains (15 series per domain: traffic edge and
// origin, requests, 5 status classes as counters; bandwidth, its peak and p95
// per source and the request time as gauges), fed the way the poller feeds
// them: increments and watermarks into what a CounterLedger holds per
// collector (a CounterTotals and a watermark map), then the absolute counters
// plus the gauges published into a FamilyStore.
import { accessCounters } from '../../src/collectors/access/convert.js';
import {
  ACCESS_V2_FAMILIES, DOMAIN_BANDWIDTH, DOMAIN_BANDWIDTH_P95, DOMAIN_BANDWIDTH_PEAK, DOMAIN_REQUEST_TIME, SOURCES,
} from '../../src/collectors/access/metrics.js';
import { CounterTotals } from '../../src/counters/ledger.js';
import type { Sample } from '../../src/collectors/collector.js';
import { FamilyStore } from '../../src/exporters/prometheus/index.js';

export const SERIES_PER_DOMAIN = 15;
const COLLECTOR = 'access';

export interface Published {
  readonly store: FamilyStore;
  /** The collector's totals, as its ledger holds them. */
  readonly counters: CounterTotals;
  readonly watermarks: Map<string, number>;
  readonly domains: readonly string[];
  /** Series the store holds after the publish. */
  readonly series: number;
}

/** Domains for about `series` series; names as long as typical customer hostnames (30-40 characters). */
export function domainsFor(series: number): string[] {
  const count = Math.ceil(series / SERIES_PER_DOMAIN);
  return Array.from({ length: count }, (_, i) => `www-${String(i).padStart(6, '0')}.customer-${i % 389}.example.com`);
}

/** Deterministic spread of magnitudes, so values print with realistic digit counts (not all `0`). */
export function value(seed: number, scale: number, fraction: boolean): number {
  const x = Math.sin(seed * 12.9898) * 43758.5453;
  const unit = x - Math.floor(x);
  return fraction ? unit * scale : Math.floor(unit * scale);
}

function gauges(domains: readonly string[], cycle: number): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>();
  const windowed = [DOMAIN_BANDWIDTH, DOMAIN_BANDWIDTH_PEAK, DOMAIN_BANDWIDTH_P95];
  for (const [f, def] of windowed.entries()) {
    out.set(def.name, domains.flatMap((domain, i) =>
      SOURCES.map((source, s) => ({ name: def.name, labels: { domain, source }, value: value(i * 31 + s + f * 7 + cycle, 1e9, true) }))));
  }
  out.set(DOMAIN_REQUEST_TIME.name, domains.map((domain, i) => ({ name: DOMAIN_REQUEST_TIME.name, labels: { domain }, value: value(i + cycle, 2, true) })));
  return out;
}

/** One cycle's counter increments and watermarks for every domain, as the access collector reports them. */
function counted(domains: readonly string[], cycle: number, bucketStart: number): { increments: Sample[]; watermarks: Record<string, number> } {
  const increments: Sample[] = [];
  const watermarks: Record<string, number> = {};
  for (const [i, domain] of domains.entries()) {
    for (const [k, spec] of accessCounters(domain).entries()) {
      increments.push({ name: spec.family, labels: spec.labels, value: value(i * 17 + k + cycle, spec.family.includes('bytes') ? 1e12 : 1e7, false) });
      watermarks[spec.key] = bucketStart;
    }
  }
  return { increments, watermarks };
}

/** Applies one more cycle to the ledger and publishes it, as the poller does after a successful run. */
export function publishCycle(p: Pick<Published, 'store' | 'counters' | 'watermarks' | 'domains'>, cycle: number): void {
  const bucketStart = Date.UTC(2025, 0, 1) + cycle * 60_000;
  const { increments, watermarks } = counted(p.domains, cycle, bucketStart);
  for (const inc of increments) p.counters.add(inc.name, inc.labels, inc.value);
  for (const [key, ms] of Object.entries(watermarks)) p.watermarks.set(key, ms);
  const counters = p.counters.counted().map(({ name, labels, value }): Sample => ({ name, labels, value }));
  p.store.publish(COLLECTOR, { counters, gauges: gauges(p.domains, cycle) });
}

/**
 * A store holding about `series` series. The per-family cap is raised:
 * 100k series of these families put 33k series in edge_domain_responses_total,
 * so such a deployment sets limits.series_per_family above the 10k default.
 */
export function publishSeries(series: number): Published {
  const store = new FamilyStore({ maxSeriesPerFamily: 1_000_000 });
  store.define(ACCESS_V2_FAMILIES);
  const published = { store, counters: new CounterTotals(), watermarks: new Map<string, number>(), domains: domainsFor(series) };
  if (series > 0) publishCycle(published, 0);
  return { ...published, series: store.stats().reduce((sum, f) => sum + f.series, 0) };
}
