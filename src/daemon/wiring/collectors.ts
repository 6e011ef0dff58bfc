// Every collector the daemon knows, built from the resolved config: the one
// place that maps config keys onto collector options, and says of each whether
// its figures are per target or account-wide; where each runs when the account
// is sharded follows from that, in the sharding room (collectors/targets/
// placement.ts). The docs generator reads allCollectors() for docs/metrics.md
// (daemon/docs.ts).
//
// Per target: a collector whose series carry a `domain` or `package` label:
// access (domains), usage (packages), and the cc-attack counter when
// per_domain. Account-wide: a figure without such a label, or not additive
// over parts of the account:
// - inventory: it describes the account as a whole (and ignores targets).
// - topn: a ranking is not additive; top-N lists of parts cannot be merged
//   into the account's top N (the N+1st of one part may beat another's 1st),
//   and `__other__` would be wrong on each.
// - cc-attack account-wide, and its peak and ranking gauges in per_domain mode:
//   peaks and rankings are not additive either.
// - waf-trend: its counts are additive over disjoint domain sets, but its
//   series ({action, severity}) carry no domain label, so parts would be the
//   same series on several replicas, summed only by queries that know to drop
//   `instance`; and it is six requests per cycle whatever the number of
//   domains, so splitting it saves nothing and multiplies requests.
import type { ResolvedCollectorOptions } from '../../config/index.js';
import { createAccessCollector } from '../../collectors/access/index.js';
import { createCcAttackCollector } from '../../collectors/cc-attack/index.js';
import { createInventoryCollector } from '../../collectors/inventory/index.js';
import { holdsAccount, placeCollectors, UNSHARDED, type Collector, type Placement, type Shard } from '../../collectors/index.js';
import { scheduleOf, type PolledCollector } from '../../engine/index.js';
import type { SeriesOptions } from '../../collectors/series/index.js';
import { createTopnCollector } from '../../collectors/topn/index.js';
import { createUsageCollector } from '../../collectors/usage/index.js';
import { createWafTrendCollector } from '../../collectors/waf-trend/index.js';

type Resolved = ResolvedCollectorOptions;
type Bucketed = Resolved['access'] | Resolved['usage'] | Resolved['topn'] | Resolved['cc_attack'] | Resolved['waf_trend'];

interface Built {
  readonly enabled: boolean;
  readonly placement: Placement;
  readonly polled: PolledCollector;
}

function series(options: Bucketed): SeriesOptions {
  return {
    interval: options.interval, delayMs: options.delay, maxBackfillMs: options.max_backfill, timestamps: options.timestamps,
    audit: { everyMs: options.audit.every, lookbackMs: options.audit.lookback, correct: options.audit.correct },
    ...(options.auto_delay === undefined ? {} : { autoDelay: options.auto_delay }),
  };
}

const BUILDERS: ReadonlyArray<(r: Resolved, shard: Shard) => Built> = [
  (r) => ({
    enabled: r.access.enabled,
    placement: 'per-target',
    polled: {
      collector: createAccessCollector({
        ...series(r.access), api: r.access.api, summaryWindowMs: r.access.summary_window,
        bandwidthUnit: r.units.bandwidth, requestTimeUnit: r.units.request_time,
      }),
      schedule: scheduleOf(r.access),
    },
  }),
  (r) => ({
    enabled: r.usage.enabled,
    placement: 'per-target',
    polled: {
      collector: createUsageCollector({ ...series(r.usage), summaryWindowMs: r.usage.summary_window, bandwidthUnit: r.units.bandwidth }),
      schedule: scheduleOf(r.usage),
    },
  }),
  (r) => ({
    enabled: r.topn.enabled,
    placement: 'account-wide',
    polled: {
      collector: createTopnCollector({ ...series(r.topn), dimensions: r.topn.dimensions, by: r.topn.by, top: r.topn.top, other: r.topn.other, windowMs: r.topn.window }),
      schedule: scheduleOf(r.topn),
    },
  }),
  (r, shard) => ({
    enabled: r.cc_attack.enabled,
    // Per domain its counter is per target, and its gauges are produced only where the account's figures are; otherwise it is all one figure.
    placement: r.cc_attack.per_domain ? 'per-target' : 'account-wide',
    polled: {
      collector: createCcAttackCollector({
        ...series(r.cc_attack),
        perDomain: r.cc_attack.per_domain,
        summaryWindowMs: r.cc_attack.summary_window,
        accountGauges: holdsAccount(shard),
      }),
      schedule: scheduleOf(r.cc_attack),
    },
  }),
  (r) => ({
    enabled: r.waf_trend.enabled,
    placement: 'account-wide',
    polled: { collector: createWafTrendCollector(series(r.waf_trend)), schedule: scheduleOf(r.waf_trend) },
  }),
  (r) => ({
    enabled: r.inventory.enabled,
    placement: 'account-wide',
    polled: {
      collector: createInventoryCollector({ details: r.inventory.details, cacheWindowMs: r.inventory.cache_window }),
      schedule: scheduleOf(r.inventory),
    },
  }),
];

/** The enabled collectors `shard` runs (placement.ts), with their schedules. */
export function buildCollectors(resolved: Resolved, shard: Shard = UNSHARDED): PolledCollector[] {
  return placeCollectors(BUILDERS.map((build) => build(resolved, shard)).filter((b) => b.enabled), shard);
}

/** Every collector with every family it can export, for the generated docs. */
export function allCollectors(resolved: Resolved): Collector[] {
  return BUILDERS.map((build) => build(resolved, UNSHARDED).polled.collector);
}
