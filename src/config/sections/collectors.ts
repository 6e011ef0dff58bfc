// `collectors:` — what each collector polls, how often, and how it counts
// buckets. `defaults` holds the keys most users set once; a collector's own
// block overrides them (resolveCollectorOptions in ../collector-options.ts
// merges the two). `interval` of a bucketed collector is the API bucket size
// and, unless `schedule` (cron) is set, also how often it runs.
import { z } from 'zod';
import { INTERVALS } from '../../api/schemas/common.js';
import { MOST_DIMENSIONS, MOST_METRICS } from '../../api/schemas/statistics.js';
import { cronExpression } from '../cron.js';
import { MAX_AUDIT_LOOKBACK_MS, MAX_LAG_MS, MAX_RANGE_MS, duration, durationOrAuto } from '../duration.js';
import { integer } from '../fields.js';

/** The section's description in docs/config.md: what an operator must know about collector state. */
export const COLLECTORS_DESCRIPTION =
  'What each collector polls, how often, and how it counts buckets. Each runs once at start-up, then on its schedule, ' +
  'never twice at once. Its counters and watermarks persist together in `<state_dir>/ledger-<collector>.json` after ' +
  'every successful cycle, before they are published; a damaged file stops start-up with its path (restore it, or ' +
  'remove it to restart those counters from 0) instead of silently resetting counters (see state_recovery). A cycle ' +
  'counts as up when it produced output, even if some requests failed (they are logged), or when nothing failed.';

const TOPN_DEFAULT_DIMENSIONS = ['url', 'ip', 'referer', 'status', 'country_name'] as const;

/** Audit keys; in collectors.defaults with defaults, in a collector's block each optional (the defaults fill in). */
const auditKeys = {
  every: duration({ min: 0 })
    .describe('How often the audit re-reads counted buckets: one request per counted target (a domain or package; the account for account-wide cc_attack; six for waf_trend) each time; 0 turns it off (default 15m).'),
  lookback: duration({ max: MAX_AUDIT_LOOKBACK_MS })
    .describe('How far back the audit re-reads: every counted bucket that ended within this long is compared again, at most 7d: what was counted is held in memory (default 1h).'),
  correct: z
    .boolean()
    .describe('Add an upward revision to the counter, so increase() reaches the upstream\'s final totals; a downward one is reported, never subtracted (default true).'),
};

const auditDefaults = z
  .strictObject({
    every: auditKeys.every.prefault('15m'),
    lookback: auditKeys.lookback.prefault('1h'),
    correct: auditKeys.correct.default(true),
  })
  .prefault({})
  .describe(
    'Re-reads buckets already counted and compares them with what was counted (edge_exporter_audit_buckets_total); ' +
      'a changed bucket is a late_revision. Costs one request per target every `every`.',
  );

/**
 * Bounds of `delay: auto`: it starts at the floor (the default delay) until the audit has seen a revision, and
 * never exceeds the ceiling (the audit's default lookback: a revision later than the lookback is never seen).
 */
export const AUTO_DELAY_BOUNDS = { floorMs: 5 * 60_000, ceilingMs: 60 * 60_000 } as const;

/** A duration, or `auto`: the audit's suggested delay in force within AUTO_DELAY_BOUNDS. */
const delayValue = () => durationOrAuto({ min: 0, max: MAX_LAG_MS });
const AUTO_DELAY_TEXT =
  '`auto` puts edge_exporter_suggested_delay_seconds in force after each audit, between 5m and 1h, starting at 5m; ' +
  'it is not kept across restarts (a restart starts again at 5m) and needs the audit on.';

const defaultsSchema = z.strictObject({
  audit: auditDefaults,
  delay: delayValue()
    .prefault('5m')
    .describe(`A bucket is counted only once it ended this long ago; the upstream revises recent buckets (default 5m). ${AUTO_DELAY_TEXT}`),
  max_backfill: duration({ min: 0, max: MAX_RANGE_MS })
    .prefault('6h')
    .describe('Buckets missed while the exporter or the upstream was down are back-filled up to this far back, at most 31d (default 6h).'),
  timestamps: z
    .boolean()
    .default(false)
    .describe("Attach each sample's bucket time as its timestamp (default false: Prometheus stamps scrape time)."),
  jitter: duration({ min: 0 })
    .prefault('5s')
    .describe(
      'Upper bound of the fixed per-collector offset after each schedule boundary, derived from the collector name, ' +
        'so collectors do not all call the upstream at :00 (default 5s; 0 disables).',
    ),
});

/** The keys every bucketed collector shares; `name` only feeds the descriptions. */
function bucketed<S extends z.ZodRawShape>(name: string, extra: S) {
  return z.strictObject({
    enabled: z.boolean().default(true).describe(`Run the ${name} collector (default true).`),
    interval: z
      .enum(INTERVALS)
      .default('5m')
      .describe('API bucket size, 1m, 5m, 1h or 1d; also how often the collector runs unless `schedule` is set (default 5m).'),
    schedule: cronExpression()
      .optional()
      .describe(
        'Cron expression overriding the run schedule (no default: runs every `interval`, aligned to its boundaries). ' +
          'Evaluated in upstream.timezone when that is a whole number of hours, else in UTC.',
      ),
    delay: delayValue().optional().describe('Overrides collectors.defaults.delay for this collector; `auto` as there.'),
    max_backfill: duration({ min: 0, max: MAX_RANGE_MS }).optional().describe('Overrides collectors.defaults.max_backfill for this collector.'),
    timestamps: z.boolean().optional().describe('Overrides collectors.defaults.timestamps for this collector.'),
    audit: z
      .strictObject({ every: auditKeys.every.optional(), lookback: auditKeys.lookback.optional(), correct: auditKeys.correct.optional() })
      .optional()
      .describe('Overrides keys of collectors.defaults.audit for this collector.'),
    ...extra,
  });
}

const summaryWindow = () =>
  duration({ max: MAX_RANGE_MS })
    .prefault('1h')
    .describe('Window of the peak and 95th-percentile gauges, ending at the last settled bucket (default 1h).');

export const collectorsSchema = z.strictObject({
  defaults: defaultsSchema.prefault({}).describe('Settings shared by every collector unless its own block overrides them.'),
  access: bucketed('access', {
    api: z
      .enum(['v2', 'v1'])
      .default('v2')
      .describe('Access statistics operation: v2 = describeL7DataV2, v1 = describeL7Data (default v2).'),
    summary_window: summaryWindow(),
  })
    .prefault({})
    .describe('Per-domain traffic, bandwidth, requests, status classes and request time (describeL7DataV2).'),
  usage: bucketed('usage', { summary_window: summaryWindow() })
    .prefault({})
    .describe('Per-package traffic and bandwidth (describeL7UsageData).'),
  topn: bucketed('top-N', {
    dimensions: z
      .array(z.enum(MOST_METRICS))
      .min(1)
      .refine((list) => new Set(list).size === list.length, { error: 'must not repeat a dimension' })
      .default([...TOPN_DEFAULT_DIMENSIONS])
      .describe(`describeL7MostData metricNames to rank (default ${TOPN_DEFAULT_DIMENSIONS.join(', ')}).`),
    by: z
      .array(z.enum(MOST_DIMENSIONS))
      .min(1)
      .refine((list) => new Set(list).size === list.length, { error: 'must not repeat a ranking' })
      .default([...MOST_DIMENSIONS])
      .describe('What to rank by: requestCount, trafficSum (default both).'),
    top: integer().min(1).max(100).default(10).describe('Entries kept per dimension and ranking, 1 to 100 (default 10).'),
    other: z
      .boolean()
      .default(true)
      .describe('Add a key="__other__" series with the total minus the top entries (default true).'),
    window: duration({ max: MAX_RANGE_MS }).prefault('1h').describe('Time range ranked, ending at the last settled bucket (default 1h).'),
  })
    .prefault({})
    .describe('Top-N urls, IPs, referers and more by requests and traffic (describeL7MostData).'),
  cc_attack: bucketed('CC-attack', {
    per_domain: z
      .boolean()
      .default(false)
      .describe('Count attack requests per domain (one request per domain) instead of account-wide (default false).'),
    summary_window: summaryWindow(),
  })
    .prefault({})
    .describe('CC attack trend and the attacked domains and user agents (describeL7CCAttack).'),
  waf_trend: bucketed('WAF trend', {})
    .prefault({})
    .describe('WAF events by action and severity (describeLogV2 logTread).'),
  inventory: z
    .strictObject({
      enabled: z.boolean().default(true).describe('Run the inventory collector (default true).'),
      interval: duration({ min: 10_000 })
        .prefault('5m')
        .describe('How often the lists are read, aligned to its boundaries; not a bucket size, at least 10s (default 5m).'),
      schedule: cronExpression()
        .optional()
        .describe('Cron expression overriding `interval` (no default). Evaluated like the other collectors\' schedules.'),
      cache_window: duration({ max: MAX_RANGE_MS })
        .prefault('24h')
        .describe('Window of the cache refresh/preload record totals (default 24h).'),
      details: z
        .boolean()
        .default(true)
        .describe('Call getPackageDetails for every layer-4 package, for ports used and total (default true).'),
    })
    .prefault({})
    .describe('Packages, layer-4 packages, domains, certificates, cache records and live orders.'),
});

export type CollectorsConfig = z.output<typeof collectorsSchema>;
