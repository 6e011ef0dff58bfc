// `otlp_metrics:` — every metric family pushed as OTLP metrics (issue 37).
// Off by default. The receiver's keys follow `otlp:` (endpoint, protocol,
// headers, timeout and the same OTEL_* variables, METRICS_ in place of LOGS_);
// the queue's follow `remote_write:` (max_*_per_send, batch_send_deadline,
// min/max_backoff, max_pending_*), so the two pushes read alike.
import { z } from 'zod';
import { MAX_LAG_MS, MAX_REQUEST_TIMEOUT_MS, duration } from '../duration.js';
import { headerMap, httpUrl, integer, MAX_PENDING_PER_PIPE, outboundFields, proxyExclusive, urlHasCredentials } from '../fields.js';

/** The OpenTelemetry default: where metrics go when neither otlp_metrics.endpoint nor otlp.endpoint says. */
const DEFAULT_OTLP_METRICS_ENDPOINT = 'http://localhost:4318/v1/metrics';

/** Headers the exporter sets itself: a config that names them is refused rather than silently overridden. */
const RESERVED_HEADERS: readonly string[] = ['content-type', 'content-encoding', 'content-length', 'host'];

const CREDENTIALS_MESSAGE = 'must not carry credentials (put them in otlp_metrics.headers, e.g. Authorization)';

/**
 * The metrics URL a logs URL implies: the same with `/v1/metrics` for its
 * trailing `/v1/logs`, so a receiver set once (otlp.endpoint) takes both
 * signals; any other logs URL (or none) implies nothing, and the OTel
 * default applies.
 */
export function metricsUrlOf(logsUrl: string | undefined): string {
  const url = logsUrl?.replace(/\/+$/, '');
  return url?.endsWith('/v1/logs') === true ? `${url.slice(0, -'/v1/logs'.length)}/v1/metrics` : DEFAULT_OTLP_METRICS_ENDPOINT;
}

export const otlpMetricsSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('Push every metric family over OTLP (default false).'),
    endpoint: httpUrl()
      .optional()
      .describe(
        'OTLP/HTTP metrics URL, used as is. Default: otlp.endpoint (the logs URL) with `/v1/metrics` in place of its ' +
          `trailing \`/v1/logs\`, so one receiver set there takes both; when otlp.endpoint is unset or ends otherwise, ` +
          `${DEFAULT_OTLP_METRICS_ENDPOINT} (the OpenTelemetry default). While enabled it must not carry credentials ` +
          '(user:password@), derived or not: they go in headers.',
      ),
    protocol: z.enum(['http/protobuf', 'http/json']).default('http/protobuf').describe('Encoding: http/protobuf or http/json (default http/protobuf).'),
    compression: z
      .enum(['none', 'gzip'])
      .default('none')
      .describe(
        'Request body compression: none or gzip (default none, as the OpenTelemetry SDKs). gzip cuts a protobuf request to about a ' +
          'ninth (docs/benchmarks.md, "OTLP metrics"); every OTLP/HTTP receiver must accept it.',
      ),
    headers: headerMap({ names: RESERVED_HEADERS, message: (name) => `${name} is set by the exporter` })
      .default({})
      .describe(
        'Headers sent with every export, e.g. an API key or X-Scope-OrgID for Mimir; values support ${ENV} (default none). ' +
          `${RESERVED_HEADERS.join(', ')} are set by the exporter and refused here.`,
      ),
    timeout: duration({ max: MAX_REQUEST_TIMEOUT_MS }).prefault('10s').describe('Per export request, at most 1h (default 10s).'),
    temporality: z
      .enum(['cumulative', 'delta'])
      .default('cumulative')
      .describe(
        'What a counter\'s point for a bucket carries. cumulative (default): the counter\'s total after that bucket, what ' +
          'Prometheus\' OTLP receiver and Mimir take by default. delta: the bucket\'s own increment.',
      ),
    interval: duration({ min: 1000 })
      .prefault('60s')
      .describe(
        'How often the families that have no upstream bucket (the exporter\'s own edge_exporter_*, the process metrics, the ' +
          'WAF events counter) are pushed, as a snapshot of their values then; at least 1s (default 60s, as the OpenTelemetry SDK).',
      ),
    max_points_per_send: integer().min(1).max(100_000).default(2_000).describe('Most data points in one export request (default 2000).'),
    batch_send_deadline: duration({ min: 0, max: MAX_LAG_MS })
      .prefault('5s')
      .describe('Longest a point waits for others to fill a request before it is sent anyway (default 5s).'),
    min_backoff: duration({ min: 1, max: MAX_LAG_MS }).prefault('30ms').describe('First wait before a retry; doubled after each failure (default 30ms).'),
    max_backoff: duration({ min: 1, max: MAX_LAG_MS }).prefault('5s').describe('Longest wait between retries (default 5s).'),
    max_pending_points: integer()
      .min(1_000)
      .max(MAX_PENDING_PER_PIPE)
      .default(1_000_000)
      .describe(
        'Most points kept waiting for the receiver, in memory and in the state directory (default 1000000). At most 4000000: they are saved in the collectors\' state files, each one JSON string, which Node limits to 512 MiB. Beyond it the oldest ' +
          'are dropped and counted (edge_exporter_otlp_metrics_points_failed_total{reason="overflow"}).',
      ),
    ...outboundFields('otlp_metrics', 'receiver'),
  })
  .superRefine((m, ctx) => {
    // Only while enabled: OTEL_EXPORTER_OTLP_ENDPOINT sets this key for the logs too, and a URL with credentials that
    // works for otlp must not stop a daemon that pushes no metrics.
    if (m.enabled && m.endpoint !== undefined && urlHasCredentials(m.endpoint)) ctx.addIssue({ code: 'custom', path: ['endpoint'], message: CREDENTIALS_MESSAGE });
    if (m.max_backoff < m.min_backoff) ctx.addIssue({ code: 'custom', path: ['max_backoff'], message: 'must be at least min_backoff' });
    proxyExclusive('otlp_metrics')(m, ctx);
  });

/**
 * The cross-section half of the credentials rule: with no endpoint of its
 * own, otlp_metrics takes otlp.endpoint's, credentials and all. Reads input
 * not validated yet (schema.ts's cross-section rules run on it).
 */
export function derivedEndpointProblem(metricsEnabled: unknown, metricsEndpoint: unknown, logsEndpoint: unknown): string | undefined {
  if (metricsEnabled !== true || metricsEndpoint !== undefined || typeof logsEndpoint !== 'string' || !URL.canParse(logsEndpoint)) return undefined;
  return urlHasCredentials(metricsUrlOf(logsEndpoint))
    ? 'derived from otlp.endpoint, which carries credentials: set otlp_metrics.endpoint without them (credentials go in otlp_metrics.headers)'
    : undefined;
}

export const OTLP_METRICS_DESCRIPTION =
  'Every metric family pushed to an OTLP metrics receiver (an OpenTelemetry Collector, or a backend speaking OTLP/HTTP ' +
  'such as Prometheus or Mimir). Counters are OTLP Sums (monotonic), one point per upstream bucket carrying the bucket\'s ' +
  'start and end; gauges are Gauges stamped at the time the value describes; the families with no upstream bucket are ' +
  'pushed every `interval`. Points not yet confirmed wait in a durable queue in the state directory, and the receiver\'s ' +
  'confirmations in `<state_dir>/otlp-metrics-acks.json`, so a restart or kill -9 pushes what is missing. Off by default. ' +
  'The standard variables win over the file, the metrics-specific one over the generic one: ' +
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT (used as is) over OTEL_EXPORTER_OTLP_ENDPOINT (`/v1/metrics` appended); ' +
  'OTEL_EXPORTER_OTLP_METRICS_HEADERS over OTEL_EXPORTER_OTLP_HEADERS (`k=v,k2=v2`, percent-decoded, merged key by key ' +
  'over `headers`); OTEL_EXPORTER_OTLP_[METRICS_]PROTOCOL; OTEL_EXPORTER_OTLP_[METRICS_]TIMEOUT (milliseconds); ' +
  'OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE (`cumulative`, `delta`, or `lowmemory`, which is delta for these ' +
  'counters; any case) onto `temporality`; OTEL_METRIC_EXPORT_INTERVAL (milliseconds) onto `interval`. See docs/otlp-metrics.md.';
