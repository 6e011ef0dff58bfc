// Where each collector runs when the account is sharded (the `shard` config;
// its description is the user-facing summary of these rules). Together the
// shards must export exactly what one unsharded replica would, each series on
// one replica only, so:
// - a per-target collector (its series carry a `domain` or `package` label)
//   runs on every shard, over the targets that shard owns (discovery.ts);
// - an account-wide one (a figure with no such label, or one not additive
//   over parts of the account) runs on one shard alone, over every target:
//   shard 0, or for a named account the owner of the account's name.
// The collector table (daemon/wiring/collectors.ts) says which each collector
// is, and why; the collectors themselves never learn of shards.
import type { CollectContext, Collector } from '../collector.js';
import { checkShard, shardOf, type Shard } from './shard.js';

export type Placement = 'per-target' | 'account-wide';

/**
 * Whether this replica computes the figures of the whole account: shard 0
 * (the unsharded one too); for a named account, the owner of its name, so
 * several accounts' account-wide collectors spread over the replicas.
 */
export function holdsAccount(shard: Shard): boolean {
  return shard.account === undefined ? shard.index === 0 : shardOf(shard.account, shard.count) === shard.index;
}

/**
 * What this shard runs of `built` (each a collector with its placement and
 * whatever the caller keeps beside it): every per-target one; the
 * account-wide ones on shard 0 alone, each asked about every target.
 * Throws an ArgumentError for an invalid shard.
 */
export function placeCollectors<T extends { readonly collector: Collector }>(
  built: readonly { readonly placement: Placement; readonly polled: T }[], shard: Shard,
): T[] {
  checkShard(shard);
  return built.flatMap(({ placement, polled }) => {
    if (placement === 'per-target') return [polled];
    return holdsAccount(shard) ? [{ ...polled, collector: overEveryTarget(polled.collector) }] : [];
  });
}

/** The collector asked about every target, whichever shard owns it (the lists are the same when unsharded). */
function overEveryTarget(collector: Collector): Collector {
  const collect = (ctx: CollectContext) =>
    collector.collect({
      // Field by field: ctx may be a class instance.
      client: ctx.client, now: ctx.now, signal: ctx.signal, tz: ctx.tz, log: ctx.log,
      targets: ctx.targets.all ?? ctx.targets, watermarks: ctx.watermarks, enabled: (family) => ctx.enabled(family),
    });
  return { ...collector, collect };
}
