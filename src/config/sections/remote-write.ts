// `remote_write:` — pushing every counted bucket, stamped with its own time,
// to a Prometheus remote-write 1.0 receiver. Off unless `url` is set. Names
// follow Prometheus' own remote_write block where one exists
// (max_samples_per_send, batch_send_deadline, min_backoff, max_backoff), so an
// SRE reads them as they already know them.
import { z } from 'zod';
import { MAX_LAG_MS, MAX_REQUEST_TIMEOUT_MS, duration } from '../duration.js';
import { basicAuth, headerMap, httpUrl, integer, MAX_PENDING_PER_PIPE, outboundFields, proxyExclusive, secret, urlHasCredentials } from '../fields.js';

/** Headers the client sets itself: a config that names them is refused rather than silently overridden. */
const REMOTE_WRITE_RESERVED_HEADERS: readonly string[] = [
  'content-type', 'content-encoding', 'content-length', 'x-prometheus-remote-write-version', 'authorization', 'host',
];
// Prometheus' label name rule; `__`-prefixed names are reserved to it.
const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const basicAuthSchema = basicAuth('remote_write.basic_auth', {
  username: 'User name (no default).',
  passwordFile: 'File whose content (trimmed) is the password, read again for every request (a rotated file needs no reload).',
});

export const remoteWriteSchema = z
  .strictObject({
    url: httpUrl()
      // Credentials in a URL end up in logs and errors; the fields below keep them out of both.
      .refine((url) => !urlHasCredentials(url), { error: 'must not carry credentials (use basic_auth or bearer_token_file)' })
      .optional()
      .describe('Remote-write 1.0 endpoint, e.g. http://prometheus:9090/api/v1/write. Unset (the default): nothing is pushed and nothing is kept for it.'),
    basic_auth: basicAuthSchema.optional().describe('HTTP basic auth. Mutually exclusive with bearer_token and bearer_token_file.'),
    bearer_token: secret().optional().describe('Bearer token; supports ${ENV} interpolation.'),
    bearer_token_file: z.string().min(1).optional().describe('File whose content (trimmed) is the bearer token, read again for every request.'),
    headers: headerMap({
      names: REMOTE_WRITE_RESERVED_HEADERS,
      message: (name) => `${name} is set by the exporter (use basic_auth or bearer_token for credentials)`,
    })
      .default({})
      .describe('Extra headers sent with every request, e.g. X-Scope-OrgID for Mimir; values support ${ENV} (default none).'),
    ...outboundFields('remote_write', 'receiver'),
    timeout: duration({ min: 100, max: MAX_REQUEST_TIMEOUT_MS }).prefault('30s').describe('Per request, at most 1h (default 30s, as Prometheus).'),
    external_labels: z
      .record(z.string(), z.string().min(1))
      .superRefine((labels, ctx) => {
        for (const name of Object.keys(labels)) {
          if (!LABEL_NAME_RE.test(name) || name.startsWith('__')) ctx.addIssue({ code: 'custom', path: [name], message: 'expected a label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)' });
        }
      })
      .default({ job: 'edge-exporter' })
      .describe(
        'Labels added to every pushed series where the series has no label of that name (default {job: edge-exporter}, the scrape job of the ' +
          'bundled set-ups). A store fed both by scrape and by push needs a distinct job here, then picked in the dashboards\' job variable (see docs/remote-write.md).',
      ),
    max_samples_per_send: integer().min(1).max(100_000).default(2_000).describe('Most samples in one request (default 2000, as Prometheus).'),
    batch_send_deadline: duration({ min: 0, max: MAX_LAG_MS })
      .prefault('5s')
      .describe('Longest a counted bucket waits for others to fill a request before it is sent anyway (default 5s, as Prometheus).'),
    min_backoff: duration({ min: 1, max: MAX_LAG_MS }).prefault('30ms').describe('First wait before a retry; doubled after each failure (default 30ms).'),
    max_backoff: duration({ min: 1, max: MAX_LAG_MS }).prefault('5s').describe('Longest wait between retries (default 5s). 5xx, 429 and network errors are retried until they succeed.'),
    max_pending_samples: integer()
      .min(1_000)
      .max(MAX_PENDING_PER_PIPE)
      .default(1_000_000)
      .describe(
        'Most samples kept waiting for the receiver, in memory and in the state files (default 1000000, about an hour of a 1,000-domain ' +
          'account at 1-minute buckets). At most 4000000: they are saved in the collectors\' state files, each one JSON string, which Node limits to 512 MiB. Beyond it the oldest are dropped and counted (edge_exporter_remote_write_samples_failed_total{reason="overflow"}).',
      ),
  })
  .superRefine((rw, ctx) => {
    const auths = [rw.basic_auth, rw.bearer_token, rw.bearer_token_file].filter((a) => a !== undefined).length;
    if (auths > 1) ctx.addIssue({ code: 'custom', path: ['basic_auth'], message: 'set at most one of remote_write.basic_auth, remote_write.bearer_token and remote_write.bearer_token_file' });
    if (rw.max_backoff < rw.min_backoff) ctx.addIssue({ code: 'custom', path: ['max_backoff'], message: 'must be at least min_backoff' });
    proxyExclusive('remote_write')(rw, ctx);
  });

export const REMOTE_WRITE_DESCRIPTION =
  'Prometheus remote-write 1.0 (protobuf, snappy): every bucket a collector counts is pushed as a sample stamped at the bucket\'s end ' +
  '(the counter\'s total after that bucket; same names and labels as /metrics), gauges at their bucket\'s start, inventory gauges at ' +
  'collection time; back-filled buckets in order with their own times. Samples counted but not yet confirmed are kept in each ' +
  'collector\'s state file with its counters, and the receiver\'s confirmations in `<state_dir>/remote-write-acks.json`, so a restart ' +
  'or kill -9 pushes what is missing (a re-sent sample has the same time and value). Off by default. Environment: ' +
  'EDGE_REMOTE_WRITE_URL, EDGE_REMOTE_WRITE_BEARER_TOKEN (over bearer_token and bearer_token_file), EDGE_REMOTE_WRITE_HEADERS ' +
  '(`k=v,k2=v2`, merged over headers). See docs/remote-write.md.';
