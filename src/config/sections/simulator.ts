// `simulator:` — the bundled stand-in for the platform, for demos and tests.
import { z } from 'zod';
import { DURATION_HINT, MAX_LAG_MS, MAX_RANGE_MS, duration, formatDuration, parseDuration } from '../duration.js';
import { integer, listenAddress, utcOffset } from '../fields.js';
import { DAY_MS, MINUTE_MS } from '../../api/time.js';


/** A duration that may be negative ('-10m', or a negative integer of ms). */
function signedDuration() {
  return z
    .union([z.string(), z.number()], { error: DURATION_HINT })
    .transform((value, ctx) => {
      const negative = typeof value === 'string' && value.trim().startsWith('-');
      const ms = typeof value === 'number' ? value : parseDuration(negative ? value.trim().slice(1) : value);
      if (ms === undefined || !Number.isSafeInteger(ms)) {
        ctx.addIssue({ code: 'custom', message: `${DURATION_HINT}, optionally with a leading -` });
        return z.NEVER;
      }
      // Bounded like every duration: a clock a day off already fails every range check the exporter makes.
      if (ms > MAX_LAG_MS) {
        ctx.addIssue({ code: 'custom', message: `expected a duration of at most ${formatDuration(MAX_LAG_MS)} either way` });
        return z.NEVER;
      }
      return negative ? -ms : ms;
    })
    .meta({ 'x-type': 'duration', minimum: -MAX_LAG_MS, maximum: MAX_LAG_MS });
}

/**
 * The simulator's readings (docs/upstream-notes.md, "Alternative readings the
 * simulator can play"): snake_case here as everywhere in the file, mapped to
 * the simulator's reading keys. Every one is off by default.
 */
const readingsSchema = z
  .strictObject({
    log_tread_bucket: duration({ min: MINUTE_MS, max: DAY_MS })
      .refine((ms) => ms % MINUTE_MS === 0, { error: 'expected whole minutes, at most 1d' })
      .optional()
      .describe(
        'WAF logTread buckets always this size (whole minutes up to 1d; 1d starts at platform midnight), each reported whole ' +
          'even where it reaches outside the range (default: none, the size follows the range).',
      ),
    naive_timestamps: z
      .boolean()
      .default(false)
      .describe('WAF record timeStamps without a zone offset, in platform wall-clock time (default false: with +08:00).'),
    bandwidth_unit: z
      .enum(['bits_per_second', 'bytes_per_second'])
      .default('bits_per_second')
      .describe('Unit of every bandwidth value the statistics operations answer (default bits_per_second).'),
    totals_skew: z
      .number()
      .positive()
      .default(1)
      .describe('Totals that should equal the sum of their points (usage/access totalMap, logTread count) are reported × this, rounded down (default 1: exact).'),
    late_revision: z
      .strictObject({
        after: duration({ min: 0, max: MAX_RANGE_MS }).describe('Age past a bucket\'s end from which it is reported revised.'),
        factor: z.number().positive().describe('The revised value is floor(settled value × factor); above 1 revises upward.'),
      })
      .optional()
      .describe('A statistics bucket is revised once more, `after` past its end (default: none).'),
    ignore_ranges: z
      .boolean()
      .default(false)
      .describe('Range parameters are ignored: the WAF log query answers the last hour, statistics the 60 buckets up to now (default false).'),
    clock_offset: signedDuration()
      .prefault('0ms')
      .describe("How far the upstream's clock runs behind the simulator's; negative runs ahead, e.g. -10m (default 0ms)."),
    params_zone: utcOffset()
      .optional()
      .describe('UTC offset request times (beginTime, endTime, ...) are read in; responses stay in the platform zone (default: the platform zone).'),
    record_time_lag: duration({ min: 0, max: MAX_LAG_MS })
      .prefault('0ms')
      .describe('WAF record timeStamps run this far behind the time that selects them (default 0ms).'),
    path_form: z
      .enum(['both', 'prefixed', 'bare'])
      .default('both')
      .describe('Spellings served for operations 9-13: both, only /prod-api/cdn/..., or only /cdn/... (default both).'),
    omit_zero_buckets: z
      .boolean()
      .default(false)
      .describe('Time-series points whose value is 0 are left out: only buckets with data are listed (default false).'),
    log_tread_strict_range: z
      .boolean()
      .default(false)
      .describe(
        'With log_tread_bucket: only the logTread buckets that begin inside [beginTime, endTime) are listed, not the one containing beginTime ' +
          '(default false).',
      ),
    gateway_not_found: z
      .boolean()
      .default(false)
      .describe(
        'An unknown path is answered 404 with Spring Boot\'s default error body ({timestamp, status, error, path}) instead of the envelope ' +
          '{code: 404, msg} (default false: the envelope).',
      ),
    waf_late_ingest: z
      .strictObject({
        fraction: z.number().positive().max(1).describe('Share of the deny records that arrive late, above 0 and at most 1.'),
        min: duration({ min: 0, max: MAX_LAG_MS }).describe('Least time after a late record\'s own time at which it becomes visible.'),
        max: duration({ min: 0, max: MAX_LAG_MS }).describe('Most time after a late record\'s own time at which it becomes visible (at least min).'),
      })
      .refine((l) => l.max >= l.min, { error: 'expected max at least min', path: ['max'] })
      .optional()
      .describe(
        'A fixed share of the deny WAF records (the same records whatever the query) becomes visible to logs and logTread only ' +
          'min..max after its time instead of within the usual ingest lag (default: none).',
      ),
    log_tread_count_delta: integer()
      .default(0)
      .describe('Every listed logTread bucket holding a record reports its count plus this (at least 0; may be negative); logs are unchanged (default 0).'),
    log_tread_complete_only: z
      .boolean()
      .default(false)
      .describe('With log_tread_bucket: a logTread bucket is listed only once complete (its end no later than now) (default false).'),
  })
  .transform((r) => ({
    logTreadBucketMs: r.log_tread_bucket,
    naiveTimestamps: r.naive_timestamps,
    bandwidthUnit: r.bandwidth_unit,
    totalsSkew: r.totals_skew,
    lateRevision: r.late_revision === undefined ? undefined : { afterMs: r.late_revision.after, factor: r.late_revision.factor },
    ignoreRanges: r.ignore_ranges,
    clockOffsetMs: r.clock_offset,
    paramsZone: r.params_zone,
    recordTimeLagMs: r.record_time_lag,
    pathForm: r.path_form,
    omitZeroBuckets: r.omit_zero_buckets,
    logTreadStrictRange: r.log_tread_strict_range,
    gatewayNotFound: r.gateway_not_found,
    wafLateIngest: r.waf_late_ingest === undefined ? undefined : { fraction: r.waf_late_ingest.fraction, minMs: r.waf_late_ingest.min, maxMs: r.waf_late_ingest.max },
    logTreadCountDelta: r.log_tread_count_delta,
    logTreadCompleteOnly: r.log_tread_complete_only,
  }));

/** The account's request budget the simulator can enforce (src/simulator/budget.ts); off unless present. */
const requestBudgetSchema = z
  .strictObject({
    per_second: integer().min(1).describe('Requests accepted in any one second, all operations together; the rest are answered 429 (no default: required).'),
    retry_after: duration({ min: 0, max: 3_600_000 })
      .refine((ms) => ms % 1000 === 0, { error: 'expected whole seconds, at most 1h' })
      .optional()
      .describe('Wait named in Retry-After (whole seconds) (default: until the budget would accept again, rounded up to a second).'),
    retry_after_form: z
      .enum(['seconds', 'date'])
      .default('seconds')
      .describe('How Retry-After is written: delta-seconds or an HTTP date (default seconds).'),
  })
  .transform((b) => ({
    perSecond: b.per_second,
    ...(b.retry_after === undefined ? {} : { retryAfterSeconds: b.retry_after / 1000 }),
    retryAfterForm: b.retry_after_form,
  }));

export const simulatorSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(false)
    .describe('Run the bundled simulator in-process when upstream.api_url is not set (default false).'),
  listen: listenAddress()
    .default('127.0.0.1:0')
    .describe('HOST:PORT the simulator listens on; port 0 picks a free port (default 127.0.0.1:0).'),
  seed: integer().default(1).describe('Seed of the simulated account, so runs are reproducible (default 1).'),
  domains: integer().min(1).max(100_000).default(20).describe('Number of simulated domains, 1 to 100000 (default 20).'),
  token: z.string().min(1).default('sim-token').describe('Token the simulator accepts (default sim-token).'),
  request_budget: requestBudgetSchema
    .optional()
    .describe(
      'A request budget for the whole account, refused with 429 and Retry-After when exceeded, as a real platform may have one ' +
        '(default: none; the vendor document states a limit only for the order operations).',
    ),
  readings: readingsSchema
    .optional()
    .describe('How the simulator answers where the vendor document is silent; each switches to another plausible answer (default: all off).'),
});
