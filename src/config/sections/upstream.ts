// `upstream:` — where the platform's management API is and how to talk to it.
import { z } from 'zod';
import { OPERATION_NAMES } from '../../api/operations.js';
import { BANDWIDTH_UNITS, DEFAULT_UNITS, REQUEST_TIME_UNITS } from './units.js';
import { MAX_REQUEST_TIMEOUT_MS, duration } from '../duration.js';
import { httpUrl, integer, outboundFields, proxyExclusive, secret, utcOffset } from '../fields.js';

const retrySchema = z
  .strictObject({
    attempts: integer()
      .min(1)
      .default(4)
      .describe('Total attempts per read, including the first (default 4; 1 disables retries).'),
    min_delay: duration({ min: 0 })
      .prefault('250ms')
      .describe('Backoff before the first retry; doubles per attempt with jitter (default 250ms).'),
    max_delay: duration()
      .prefault('10s')
      .describe('Upper bound of one backoff delay (default 10s).'),
  })
  .superRefine(
    (retry: { min_delay?: unknown; max_delay?: unknown } | null, ctx) => {
      // Runs even when the block failed, so it may be `retry:` left empty (null): already reported.
      if (typeof retry !== 'object' || retry === null) return;
      const { min_delay: min, max_delay: max } = retry;
      if (typeof min === 'number' && typeof max === 'number' && min > max) {
        ctx.addIssue({ code: 'custom', path: ['min_delay'], message: 'must not be greater than upstream.retry.max_delay' });
      }
    },
    { when: () => true },
  );

export const upstreamSchema = z
  .strictObject({
    api_url: httpUrl()
      .optional()
      .describe(
        'Base address of the management API, e.g. https://api.example.com (no default). ' +
          'When absent the embedded simulator is used (simulator.enabled must be true). Env: EDGE_API_URL.',
      ),
    login_url: httpUrl()
      .optional()
      .describe('Host the account logs in on, used only for the WAF log query (describeLogV2) (default: upstream.api_url). Env: EDGE_LOGIN_URL.'),
    token: secret()
      .optional()
      .describe('Access token sent in the Authorization header (no default). Supports ${ENV} interpolation. Env: EDGE_API_TOKEN.'),
    token_file: z
      .string()
      .min(1)
      .optional()
      .describe(
        'File whose content (trimmed) is the access token, relative to the working directory (no default). ' +
          'Read again when the upstream answers 401 (a rotated token is used without a restart) and on reload. ' +
          'Mutually exclusive with upstream.token.',
      ),
    auth_scheme: z
      .enum(['bearer', 'raw'])
      .default('bearer')
      .describe(
        'How the Authorization header carries the token: `bearer` sends `Bearer <token>`, `raw` sends the token as is ' +
          '(default bearer). The WAF log query (describeLogV2) always uses Bearer.',
      ),
    timezone: utcOffset()
      .default('+08:00')
      .describe('Fixed UTC offset of the wall-clock times the platform reads and writes (default +08:00).'),
    units: z
      .strictObject({
        bandwidth: z
          .enum(BANDWIDTH_UNITS)
          .default(DEFAULT_UNITS.bandwidth)
          .describe(
            `What the upstream's bandwidth values are in: ${BANDWIDTH_UNITS.join(', ')} (default ${DEFAULT_UNITS.bandwidth}). ` +
              'A bandwidth_unit mismatch names the value that fits the data.',
          ),
        request_time: z
          .enum(REQUEST_TIME_UNITS)
          .default(DEFAULT_UNITS.request_time)
          .describe(`What the upstream's average request time is in: ${REQUEST_TIME_UNITS.join(', ')} (default ${DEFAULT_UNITS.request_time}).`),
      })
      .prefault({})
      .describe('Units of upstream values the document does not state; the metrics are always in base units (bytes/s, seconds).'),
    timeout: duration({ max: MAX_REQUEST_TIMEOUT_MS })
      .prefault('15s')
      .describe('Time limit of one HTTP attempt, headers and body, at most 1h (default 15s).'),
    max_body_bytes: integer()
      .positive()
      .default(33_554_432)
      .describe('Largest response body accepted, in bytes (default 33554432 = 32 MiB).'),
    concurrency: integer().positive().default(8).describe('Requests in flight at once, across all operations (default 8).'),
    connections: integer().positive().default(16).describe('Pooled keep-alive connections per origin (default 16).'),
    order_rate_limit: z
      .number()
      .positive()
      .default(10)
      .describe('Requests per second for the live-order operations, the documented per-user limit (default 10).'),
    rate_limit: z
      .number()
      .positive()
      .optional()
      .describe(
        'Requests per second to the upstream, all operations together, with a burst of as many; above 1 counted in whole requests ' +
          '(default: none of the daemon\'s own until the upstream answers 429, then half the rate it was sending, recovering gradually). ' +
          'Requests wait for the budget in order, none is dropped. Size it from the requests per hour the daemon states at start-up and in doctor.',
      ),
    rate_limits: z
      .partialRecord(z.enum(OPERATION_NAMES), z.number().positive().describe('Requests per second of the operation.'))
      .default({})
      .describe('Per-operation request budget, keyed by operation name, on top of upstream.rate_limit (default: none).'),
    retry: retrySchema
      .prefault({})
      .describe('Retries of failed reads (timeouts, network errors, 5xx); writes are never retried.'),
    paths: z
      .partialRecord(
        z.enum(OPERATION_NAMES),
        z.string().startsWith('/', { error: 'expected a path starting with /' }).describe('Request path of the operation.'),
      )
      .default({})
      .describe('Per-operation path override, keyed by operation name (default: the built-in path of each operation).'),
    ...outboundFields('upstream', 'upstream'),
  })
  .superRefine(
    (upstream: { token?: unknown; token_file?: unknown; proxy_url?: unknown; proxy_url_file?: unknown } | null | undefined, ctx) => {
      // Runs even when the section failed, so it may be `upstream:` left empty (null) or an entry's missing one: already reported.
      if (typeof upstream !== 'object' || upstream === null) return;
      if (upstream.token !== undefined && upstream.token_file !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['token_file'],
          message: 'upstream.token and upstream.token_file are mutually exclusive: set only one',
        });
      }
      proxyExclusive('upstream')(upstream, ctx);
    },
    { when: () => true },
  )
  .transform((upstream) => ({ ...upstream, login_url: upstream.login_url ?? upstream.api_url }));
