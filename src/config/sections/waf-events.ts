// `waf_events:` — forwarding WAF deny events as OpenTelemetry logs, and
// `otlp:` — where those logs go. Both live here because they are one pipeline
// (poll -> convert -> deliver -> checkpoint); the header rules are declared
// here once and enforced again by the converter, so a secret header is
// refused at load and can never be forwarded even if a caller bypasses config.
import { z } from 'zod';
import { SEVERITY_LEVELS, WAF_COMPARISONS, WAF_FILTER_FIELDS } from '../../api/schemas/waf-log.js';
import { MAX_LAG_MS, MAX_RANGE_MS, MAX_REQUEST_TIMEOUT_MS, duration, durationOrAuto } from '../duration.js';
import { HEADER_NAME_RE, headerMap, httpUrl, integer, outboundFields, proxyExclusive } from '../fields.js';

/** Request headers that never leave the daemon, whatever the allow-list says. */
export const NEVER_FORWARDED_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie'];
/** Default allow-list of request headers forwarded as `http.request.header.<name>`. */
export const DEFAULT_FORWARDED_HEADERS: readonly string[] = ['host', 'user-agent', 'referer', 'x-forwarded-for', 'content-type'];

type SeverityLevel = (typeof SEVERITY_LEVELS)[number];
/** English aliases of the upstream's severity words, for YAML that is easier to type. */
const toLevel = (s: SeverityLevel | 'high' | 'medium' | 'low'): SeverityLevel =>
  s === 'high' ? '高风险' : s === 'medium' ? '中风险' : s === 'low' ? '低风险' : s;

const headerName = () =>
  z
    .string()
    .regex(HEADER_NAME_RE, { error: 'expected an HTTP header name' })
    .transform((name) => name.toLowerCase());

const otherFilterSchema = z
  .strictObject({
    one_val: z.enum(WAF_FILTER_FIELDS).describe('Field filtered (the WAF log query\'s documented oneVal set).'),
    two_val: z.enum(WAF_COMPARISONS).describe('Comparison: eq, ne, or contain (a wildcard match on the first value only).'),
    three_val: z.array(z.string()).min(1).describe('Values compared.'),
  })
  .refine((f) => f.two_val !== 'contain' || f.three_val.length === 1, {
    path: ['three_val'],
    error: 'contain compares only the first value: give exactly one',
  })
  .transform((f) => ({ oneVal: f.one_val, twoVal: f.two_val, threeVal: f.three_val }));

const auditSchema = z.strictObject({
  enabled: z.boolean().default(true).describe(
    'Compare, per bucket of the upstream\'s logTread grid, the deny events it counts for this daemon\'s share with those ' +
      'delivered, and read short buckets again to deliver what is missing (default true; one logTread request per check). ' +
      'It takes the upstream\'s counts to equal its records: `edge-exporter doctor` (waf_audit) compares them on the account.',
  ),
  interval: duration({ min: 10_000, max: MAX_LAG_MS }).prefault('1m').describe('Least time between two checks; a check runs once a poll has caught up (default 1m).'),
  lookback: duration({ min: 10 * 60_000, max: MAX_LAG_MS })
    .prefault('1h')
    .describe(
      'A short bucket is read again while its end is no older than this; a bucket is final once it is older and its count ' +
        'has held still for 10 minutes; counts are still compared until twice this (and a check) after a bucket\'s end, and events found missing there are ' +
        'reported, not read. Twice it must fit in upstream_retention (default 1h).',
    ),
  max_kept_ids: integer().min(1000).max(100_000_000).default(2_000_000).describe(
    'Most delivered ids kept in memory (8 bytes each, as hashes) to tell delivered records from missing ones inside the ' +
      'look-back; past it the oldest minutes\' leave memory, and a recovery there reads them from their files in ' +
      '`<state_dir>/waf-events-delivered/` (default 2000000: 16 MB).',
  ),
});

export const wafEventsSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('Forward WAF deny events as OpenTelemetry logs (default false).'),
    interval: duration({ min: 1000 }).prefault('30s').describe('How often the log query is polled; a poll never overlaps the previous one (default 30s).'),
    delay: duration({ min: 0, max: MAX_LAG_MS })
      .prefault('2m')
      .describe("A window ends this long before now; must exceed the upstream's log ingest lag (the simulator's is up to 90s) (default 2m)."),
    overlap: durationOrAuto({ min: 0, max: MAX_LAG_MS })
      .prefault('5m')
      .describe(
        'Each range is read once more (its final pass) when it is `delay` + this old, so records ingested up to `delay` + ' +
          'this late are still read, then; duplicates are dropped by requestId (default 5m). `auto` starts at 5m and puts ' +
          'edge_exporter_waf_suggested_overlap_seconds in force after each audit check (the overlap that would have let the ' +
          'final pass read every record the audit recovered over the last day), at most `audit.lookback`; it needs the ' +
          'audit on and is not kept across restarts.',
      ),
    max_window: duration({ min: 1000, max: MAX_RANGE_MS })
      .prefault('15m')
      .describe('Longest time range read in one window; a backlog is caught up window by window (default 15m).'),
    max_window_events: integer()
      .min(100)
      .max(10_000_000)
      .default(25_000)
      .describe(
        'Most new events one window takes: a window holding more is cut off there (what it read is delivered) and read ' +
          'again half as long; once this many requestIds are kept for de-duplication (a flood), new windows wait until they ' +
          'are `delay` + `overlap` old, so the ids stay bounded by this, not by a backlog or the event rate (default 25000).',
      ),
    start_from: duration({ min: 0, max: MAX_RANGE_MS })
      .prefault('1h')
      .describe('With no checkpoint yet (first start), forwarding begins this long before now (default 1h).'),
    // 500, not 100: a fifth of the requests, envelopes and per-request work for the same records. Not 1000: under the
    // daemon's flags (--max-semi-space-size=4) a page of 1000 parsed records outlives the young generation and the GC
    // helpers' CPU rose; 500 did best there (section 12.4 of `git show 7888197:docs/benchmarks.md`). An upstream capping it lower is read whole (fetch.ts).
    page_size: integer().min(1).max(10_000).default(500).describe(
      'Log records per page, 1 to 10000 (default 500). An upstream that answers fewer per page is still read whole; ' +
        'set it to the upstream\'s maximum if it has one.',
    ),
    severity: z
      .enum([...SEVERITY_LEVELS, 'high', 'medium', 'low'])
      .transform(toLevel)
      .optional()
      .describe('Only events of this severity: 高风险/high, 中风险/medium, 低风险/low (default: all).'),
    domains: z.array(z.string().min(1)).optional().describe('Only these domains (default: every domain of the account).'),
    other_filter: z
      .array(otherFilterSchema)
      .prefault([])
      .describe('Extra WAF log filters, each {one_val, two_val, three_val}, all of which must match (default none).'),
    max_rate: z
      .number()
      .positive()
      .optional()
      .describe('Most deny events forwarded per second; beyond it `over_rate` decides (default: unlimited).'),
    over_rate: z
      .enum(['delay', 'summarize'])
      .default('delay')
      .describe(
        'Above `max_rate`: delay forwards every event later, paced to the rate (the checkpoint lag grows); summarize folds ' +
          'the events past the rate into one record per minute, domain, rule and client address carrying edge.waf.count ' +
          '(default delay).',
      ),
    upstream_retention: duration({ min: 60_000, max: MAX_RANGE_MS })
      .prefault('3d')
      .describe(
        "How long the upstream keeps WAF logs: an assumption (its document does not say); set it from the vendor (a longer one: 31d, the longest range). Exposed as " +
          'edge_exporter_waf_upstream_retention_seconds for the alert EdgeExporterWafBehindRetention (default 3d).',
      ),
    audit: auditSchema.prefault({}).describe('The delivery audit: the upstream\'s own deny counts against what was delivered.'),
    headers: z
      .array(headerName())
      .superRefine((names, ctx) => {
        names.forEach((name, i) => {
          if (NEVER_FORWARDED_HEADERS.includes(name)) {
            ctx.addIssue({ code: 'custom', path: [i], message: `${name} is never forwarded (credentials): remove it from the list` });
          }
        });
      })
      .prefault([...DEFAULT_FORWARDED_HEADERS])
      .describe(
        `Request headers forwarded as http.request.header.<name>, case-insensitive (default ${DEFAULT_FORWARDED_HEADERS.join(', ')}). ` +
          `${NEVER_FORWARDED_HEADERS.join(', ')} are refused.`,
      ),
  })
  .refine((c) => c.max_window >= c.interval, { path: ['max_window'], error: 'must be at least `interval`' })
  .refine((c) => c.overlap !== 'auto' || c.audit.enabled, { path: ['overlap'], error: 'auto is what the audit finds: set audit.enabled: true' })
  // The audit's counts reach back twice the look-back: records the upstream no longer keeps would all look missing.
  .refine((c) => 2 * c.audit.lookback <= c.upstream_retention, { path: ['audit', 'lookback'], error: 'twice it must fit in `upstream_retention`' })
  // Summarize without a rate would summarize nothing, silently.
  .refine((c) => c.over_rate !== 'summarize' || c.max_rate !== undefined, { path: ['over_rate'], error: 'summarize applies above `max_rate`: set max_rate' });

/** `overlap: auto` starts at the default overlap and never passes the audit's look-back (nothing later is recovered). */
const AUTO_OVERLAP_FLOOR_MS = 5 * 60_000;

/** The overlap to start with, and under `auto` the bounds the audit's suggestion is put in force within (the forwarder's options). */
export function wafOverlap(waf: Pick<WafEventsConfig, 'overlap' | 'audit'>): { overlapMs: number; autoOverlap?: { floorMs: number; ceilingMs: number } } {
  if (waf.overlap !== 'auto') return { overlapMs: waf.overlap };
  return { overlapMs: AUTO_OVERLAP_FLOOR_MS, autoOverlap: { floorMs: AUTO_OVERLAP_FLOOR_MS, ceilingMs: Math.max(AUTO_OVERLAP_FLOOR_MS, waf.audit.lookback) } };
}

/** The delivery audit as the forwarder takes it (its options, ms), or nothing with `audit.enabled: false`. */
export function wafAudit(waf: Pick<WafEventsConfig, 'audit'>): { audit?: { lookbackMs: number; intervalMs: number; maxHashes: number } } {
  const { enabled, lookback, interval, max_kept_ids } = waf.audit;
  return enabled ? { audit: { lookbackMs: lookback, intervalMs: interval, maxHashes: max_kept_ids } } : {};
}

type WafEventsConfig = z.output<typeof wafEventsSchema>;

export const WAF_EVENTS_DESCRIPTION =
  'WAF deny events forwarded as OpenTelemetry logs (describeLogV2 `logs`, action deny), to `otlp`. The checkpoint ' +
  '(window position and final pass, the requestIds a window may read again, and the denied-request counters) is saved in ' +
  '`<state_dir>/waf-events-checkpoint.json` and its journal `waf-events-checkpoint.journal` (one line appended per ' +
  'batch the receiver confirmed and per window done; folded into the .json when a window is done and the journal ' +
  'holds as much as the .json); a restart resumes there and ' +
  're-sends at most the batch that was in flight (records carry `log.record.uid` = requestId, so a receiver can drop it). ' +
  'With the delivery audit, the delivered ids\' hashes of the look-back are kept in `<state_dir>/waf-events-delivered/`, a file per minute. ' +
  'A damaged checkpoint stops start-up with its path instead of starting over (see state_recovery).';

/** Where WAF events go when otlp.endpoint is not set, except in the demo (see the key's description). */
export const DEFAULT_OTLP_ENDPOINT = 'http://127.0.0.1:4318/v1/logs';

export const otlpSchema = z.strictObject({
  endpoint: httpUrl()
    .optional()
    .describe(
      `OTLP/HTTP logs URL, used as is (default ${DEFAULT_OTLP_ENDPOINT}; in the demo, with the bundled simulator as the upstream, ` +
        'a receiver started beside it that confirms every record and keeps none, so the demo forwards end to end). ' +
        'While nothing listens there, delivery is retried with backoff and polling waits.',
    ),
  protocol: z.enum(['http/protobuf', 'http/json']).default('http/protobuf').describe('Encoding: http/protobuf or http/json (default http/protobuf).'),
  headers: headerMap()
    .default({})
    .describe('Headers sent with every export, e.g. an API key; values support ${ENV} (default none).'),
  timeout: duration({ max: MAX_REQUEST_TIMEOUT_MS }).prefault('10s').describe('Per export request, at most 1h (default 10s).'),
  max_batch: integer().min(1).max(100_000).default(512).describe('Most records per export; also the most re-sent after a crash (default 512).'),
  ...outboundFields('otlp', 'receiver'),
}).superRefine(proxyExclusive('otlp'));

export const OTLP_DESCRIPTION =
  'The OTLP logs receiver (an OpenTelemetry Collector, or a backend speaking OTLP/HTTP). The standard variables win ' +
  'over the file, the logs-specific one over the generic one: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT (used as is) over ' +
  'OTEL_EXPORTER_OTLP_ENDPOINT (`/v1/logs` appended); OTEL_EXPORTER_OTLP_LOGS_HEADERS over OTEL_EXPORTER_OTLP_HEADERS ' +
  '(`k=v,k2=v2`, percent-decoded, merged key by key over `headers`); OTEL_EXPORTER_OTLP_[LOGS_]PROTOCOL; ' +
  'OTEL_EXPORTER_OTLP_[LOGS_]TIMEOUT (milliseconds).';
