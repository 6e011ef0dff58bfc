// `shard:` — which share of the account this replica collects, when several
// replicas split one account between them. The placement rules themselves
// live in src/daemon/wiring/collectors.ts; this description is their user-facing
// summary, so the two must change together.
import { z } from 'zod';
import { integer } from '../fields.js';

/** An integer field whose message also names the pod-name form EDGE_SHARD_INDEX accepts. */
const shardIndex = () =>
  z
    .number({
      // Only the type message; ranges keep the common wording.
      error: (issue) =>
        issue.code === 'invalid_type' ? 'expected an integer (EDGE_SHARD_INDEX also takes a pod name ending in one, e.g. edge-exporter-2)' : undefined,
    })
    .refine(Number.isSafeInteger, { error: 'expected an integer' })
    .meta({ type: 'integer' });

export const shardSchema = z
  .strictObject({
    index: shardIndex()
      .min(0)
      .default(0)
      .describe(
        "This replica's shard, 0 to count - 1 (default 0). EDGE_SHARD_INDEX wins over the file and may be a " +
          'Kubernetes StatefulSet pod name such as `edge-exporter-2`: its trailing integer is the index, so ' +
          '`valueFrom.fieldRef: metadata.name` works without templating.',
      ),
    count: integer()
      .min(1)
      .default(1)
      .describe('Replicas the account is split over; 1 = unsharded (default 1). EDGE_SHARD_COUNT wins over the file.'),
  })
  .refine((s) => s.index < s.count, { path: ['index'], error: 'must be less than shard.count' });

export const SHARD_DESCRIPTION =
  'Splitting one account over several replicas (a StatefulSet: same config, EDGE_SHARD_INDEX from the pod name, ' +
  'EDGE_SHARD_COUNT = replicas). Each domain and each package belongs to exactly one shard, chosen by a stable hash ' +
  'of its name after `targets` include/exclude (jump consistent hash of FNV-1a: growing `count` by one moves only ' +
  'about 1/count of the names). Every shard runs `access` for its domains, `usage` for its packages, the ' +
  '`cc_attack` counter for its domains when `cc_attack.per_domain`, and forwards the WAF deny events of its domains ' +
  '(its share of `waf_events.domains` when set; otherwise of the discovered domains, so a domain created upstream ' +
  'is forwarded from the `targets.refresh` that lists it). Shard 0 alone runs, over every domain, what is not ' +
  'additive across shards or has no domain label: `inventory` (the account as a whole), `topn` (per-shard rankings ' +
  'cannot be merged into the account top N), `cc_attack` account-wide and its peak and ranking gauges, and ' +
  '`waf_trend` (its {action, severity} counts would otherwise be the same series on every shard; it costs six ' +
  'requests a cycle however many domains). Together the shards export exactly the series and events of one ' +
  'unsharded replica, each on one replica, but for `edge_waf_rule_info`: a description, not a count, exposed the ' +
  'same by every shard that read a deny event of the rule (join it through `max by (rule_id, description, ' +
  'category)`). Each shard needs its own `state_dir`: the first start records the shard ' +
  "in `<state_dir>/shard.json`, and a replica with another index refuses to start there (two shards would overwrite " +
  "each other's counters and WAF checkpoint); a changed `count` (scaling) is accepted and recorded. " +
  'With named accounts (`accounts:`, or `account.name` set) a target is placed by `<account>/<name>`, so two accounts\' ' +
  'targets of one name are placed apart like any two targets, and each account\'s account-wide collectors run on the ' +
  'shard its name hashes to rather than all on shard 0.';
