// Every collector the daemon knows, built from the resolved config: the one
// place that maps config keys onto collector options. The docs generator
// reads ALL_COLLECTORS for docs/metrics.md.
import type { ResolvedCollectorOptions } from '../config/collector-options.js';
import { createAccessCollector } from './access/index.js';
import { createCcAttackCollector } from './cc-attack/index.js';
import { createInventoryCollector } from './inventory/index.js';
import { scheduleOf } from './poller-schedule.js';
import type { PolledCollector } from './poller.js';
import type { SeriesOptions } from './series/options.js';
import { createTopnCollector } from './topn/index.js';
import type { Collector } from './types.js';
import { createUsageCollector } from './usage/index.js';
import { createWafTrendCollector } from './waf-trend/index.js';

type Resolved = ResolvedCollectorOptions;
type Bucketed = Resolved['access'] | Resolved['usage'] | Resolved['topn'] | Resolved['cc_attack'] | Resolved['waf_trend'];

function series(o: Bucketed): SeriesOptions {
  return { interval: o.interval, delayMs: o.delay, maxBackfillMs: o.max_backfill, timestamps: o.timestamps };
}

const BUILDERS: ReadonlyArray<(r: Resolved) => { enabled: boolean; polled: PolledCollector }> = [
  (r) => ({ enabled: r.access.enabled, polled: { collector: createAccessCollector({ ...series(r.access), api: r.access.api, summaryWindowMs: r.access.summary_window }), schedule: scheduleOf(r.access) } }),
  (r) => ({ enabled: r.usage.enabled, polled: { collector: createUsageCollector({ ...series(r.usage), summaryWindowMs: r.usage.summary_window }), schedule: scheduleOf(r.usage) } }),
  (r) => ({
    enabled: r.topn.enabled,
    polled: {
      collector: createTopnCollector({ ...series(r.topn), dimensions: r.topn.dimensions, by: r.topn.by, top: r.topn.top, other: r.topn.other, windowMs: r.topn.window }),
      schedule: scheduleOf(r.topn),
    },
  }),
  (r) => ({
    enabled: r.cc_attack.enabled,
    polled: { collector: createCcAttackCollector({ ...series(r.cc_attack), perDomain: r.cc_attack.per_domain, summaryWindowMs: r.cc_attack.summary_window }), schedule: scheduleOf(r.cc_attack) },
  }),
  (r) => ({ enabled: r.waf_trend.enabled, polled: { collector: createWafTrendCollector(series(r.waf_trend)), schedule: scheduleOf(r.waf_trend) } }),
  (r) => ({
    enabled: r.inventory.enabled,
    polled: { collector: createInventoryCollector({ details: r.inventory.details, cacheWindowMs: r.inventory.cache_window }), schedule: scheduleOf(r.inventory) },
  }),
];

/** The enabled collectors with their schedules. */
export function buildCollectors(resolved: Resolved): PolledCollector[] {
  return BUILDERS.map((build) => build(resolved)).filter((b) => b.enabled).map((b) => b.polled);
}

/** Every collector with every family it can export, for the generated docs. */
export function allCollectors(resolved: Resolved): Collector[] {
  return BUILDERS.map((build) => build(resolved).polled.collector);
}
