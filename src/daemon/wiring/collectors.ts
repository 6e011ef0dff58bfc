// Every collector the daemon knows, built from the resolved config: the one
// place that maps config keys onto collector options, and the one place that
// decides where each collector runs when the account is sharded. The docs
// generator reads allCollectors() for docs/metrics.md (daemon/docs.ts).
//
// Sharding (the `shard` config; its description is the user-facing summary of
// these rules). Together the shards must export exactly what one unsharded
// replica would, each series on one replica only, so:
// - A collector whose series carry a `domain` or `package` label runs on every
//   shard, for the targets that shard owns: access (domains), usage (packages),
//   and the cc-attack counter when per_domain.
// - A figure without such a label runs on shard 0 only, over every target:
//   - inventory: it describes the account as a whole (and ignores targets).
//   - topn: a ranking is not additive; per-shard top-N lists cannot be merged
//     into the account's top N (the N+1st of one shard may beat another's 1st),
//     and `__other__` would be wrong on each.
//   - cc-attack account-wide, and its peak and ranking gauges in per_domain mode:
//     peaks and rankings are not additive either.
//   - waf-trend: its counts are additive over disjoint domain sets, but its
//     series ({action, severity}) carry no domain label, so per-shard parts
//     would be the same series on several replicas, summed only by queries that
//     know to drop `instance`; and it is six requests per cycle whatever the
//     number of domains, so splitting it saves nothing and multiplies requests.
import type { ResolvedCollectorOptions } from '../../config/index.js';
import { createAccessCollector } from '../../collectors/access/index.js';
import { createCcAttackCollector } from '../../collectors/cc-attack/index.js';
import { createInventoryCollector } from '../../collectors/inventory/index.js';
import { checkShard, UNSHARDED, type CollectContext, type Collector, type Shard } from '../../collectors/index.js';
import { scheduleOf, type PolledCollector } from '../../engine/index.js';
import type { SeriesOptions } from '../../collectors/series/index.js';
import { createTopnCollector } from '../../collectors/topn/index.js';
import { createUsageCollector } from '../../collectors/usage/index.js';
import { createWafTrendCollector } from '../../collectors/waf-trend/index.js';

type Resolved = ResolvedCollectorOptions;
type Bucketed = Resolved['access'] | Resolved['usage'] | Resolved['topn'] | Resolved['cc_attack'] | Resolved['waf_trend'];

/** Where a collector runs: on every shard for its own targets, or on shard 0 alone for the whole account. */
type Placement = 'per-shard' | 'shard-0';

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

/** The collector asked about every target, whichever shard owns it (the lists are the same when unsharded). */
function accountWide(collector: Collector): Collector {
  const collect = (ctx: CollectContext) =>
    collector.collect({
      // Field by field: ctx may be a class instance.
      client: ctx.client, now: ctx.now, signal: ctx.signal, tz: ctx.tz, log: ctx.log,
      targets: ctx.targets.all ?? ctx.targets, watermarks: ctx.watermarks, enabled: (family) => ctx.enabled(family),
    });
  return { ...collector, collect };
}

const BUILDERS: ReadonlyArray<(r: Resolved, shard: Shard) => Built> = [
  (r) => ({
    enabled: r.access.enabled,
    placement: 'per-shard',
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
    placement: 'per-shard',
    polled: {
      collector: createUsageCollector({ ...series(r.usage), summaryWindowMs: r.usage.summary_window, bandwidthUnit: r.units.bandwidth }),
      schedule: scheduleOf(r.usage),
    },
  }),
  (r) => ({
    enabled: r.topn.enabled,
    placement: 'shard-0',
    polled: {
      collector: accountWide(
        createTopnCollector({ ...series(r.topn), dimensions: r.topn.dimensions, by: r.topn.by, top: r.topn.top, other: r.topn.other, windowMs: r.topn.window }),
      ),
      schedule: scheduleOf(r.topn),
    },
  }),
  (r, shard) => ({
    enabled: r.cc_attack.enabled,
    // Per domain its counter is split by domain and its account gauges stay on shard 0; account-wide it is all one figure.
    placement: r.cc_attack.per_domain ? 'per-shard' : 'shard-0',
    polled: {
      collector: createCcAttackCollector({
        ...series(r.cc_attack),
        perDomain: r.cc_attack.per_domain,
        summaryWindowMs: r.cc_attack.summary_window,
        accountGauges: shard.index === 0,
      }),
      schedule: scheduleOf(r.cc_attack),
    },
  }),
  (r) => ({
    enabled: r.waf_trend.enabled,
    placement: 'shard-0',
    polled: { collector: accountWide(createWafTrendCollector(series(r.waf_trend))), schedule: scheduleOf(r.waf_trend) },
  }),
  (r) => ({
    enabled: r.inventory.enabled,
    placement: 'shard-0',
    polled: {
      collector: createInventoryCollector({ details: r.inventory.details, cacheWindowMs: r.inventory.cache_window }),
      schedule: scheduleOf(r.inventory),
    },
  }),
];

/** The enabled collectors this shard runs, with their schedules. */
export function buildCollectors(resolved: Resolved, shard: Shard = UNSHARDED): PolledCollector[] {
  checkShard(shard);
  return BUILDERS.map((build) => build(resolved, shard))
    .filter((b) => b.enabled && (b.placement === 'per-shard' || shard.index === 0))
    .map((b) => b.polled);
}

/** Every collector with every family it can export, for the generated docs. */
export function allCollectors(resolved: Resolved): Collector[] {
  return BUILDERS.map((build) => build(resolved, UNSHARDED).polled.collector);
}
