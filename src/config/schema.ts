// The configuration's single source of truth: types, defaults, validation and
// the descriptions docs/config.md is generated from. Keys are snake_case, as
// users write them in YAML. A new section is one file under sections/ plus one
// line in `configSchema` below; cross-section rules live in `crossSectionRules`.
import { z } from 'zod';
import type { ProxyRoutes } from '../outbound/index.js';
import { accountProblems } from './account-input.js';
import { ACCOUNTS_DESCRIPTION, accountSchema, accountsSchema } from './sections/accounts.js';
import type { AccountEntry } from './sections/accounts.js';
import { COLLECTORS_DESCRIPTION, collectorsSchema } from './sections/collectors.js';
import { limitsSchema } from './sections/limits.js';
import { serverSchema } from './sections/server.js';
import { SHARD_DESCRIPTION, shardSchema } from './sections/shard.js';
import { logSchema } from './sections/log.js';
import { metricsSchema } from './sections/metrics.js';
import { simulatorSchema } from './sections/simulator.js';
import { targetsSchema } from './sections/targets.js';
import { upstreamSchema } from './sections/upstream.js';
import { REMOTE_WRITE_DESCRIPTION, remoteWriteSchema } from './sections/remote-write.js';
import { derivedEndpointProblem, OTLP_METRICS_DESCRIPTION, otlpMetricsSchema } from './sections/otlp-metrics.js';
import type { WebConfig } from './web-config.js';
import { OTLP_DESCRIPTION, otlpSchema, WAF_EVENTS_DESCRIPTION, wafEventsSchema } from './sections/waf-events.js';

/** Rules spanning sections. Runs even when other fields failed, so every problem is reported at once. */
function crossSectionRules(config: unknown, ctx: z.RefinementCtx): void {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return; // already reported
  for (const problem of accountProblems(config)) ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
  const upstream = field(config, 'upstream');
  const apiUrl = field(upstream, 'api_url');
  const simulatorEnabled = field(field(config, 'simulator'), 'enabled') === true;
  // With accounts: each entry is its own upstream (accountProblems); the top-level one is only their shared default.
  const single = field(config, 'accounts') === undefined;
  if (single && apiUrl === undefined && !simulatorEnabled) {
    ctx.addIssue({
      code: 'custom',
      path: ['upstream', 'api_url'],
      message: 'set upstream.api_url (or EDGE_API_URL), or enable the bundled simulator (simulator.enabled: true)',
    });
  }
  if (single && apiUrl !== undefined && field(upstream, 'token') === undefined && field(upstream, 'token_file') === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['upstream', 'token'],
      message: 'set upstream.token, upstream.token_file or EDGE_API_TOKEN to reach a real account',
    });
  }
  const metrics = field(config, 'otlp_metrics');
  const derived = derivedEndpointProblem(field(metrics, 'enabled'), field(metrics, 'endpoint'), field(field(config, 'otlp'), 'endpoint'));
  if (derived !== undefined) ctx.addIssue({ code: 'custom', path: ['otlp_metrics', 'endpoint'], message: derived });
}

/** Reads `key` of a value that may still be unvalidated input. */
function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

export const configSchema = z
  .strictObject({
    upstream: upstreamSchema
      .prefault({})
      .describe('The platform management API and how to call it; with `accounts:` set, the default each account\'s upstream is merged over.'),
    simulator: simulatorSchema.prefault({}).describe('The bundled simulator, used when upstream.api_url is not set.'),
    log: logSchema.prefault({}).describe("The exporter's own log."),
    collectors: collectorsSchema.prefault({}).describe(COLLECTORS_DESCRIPTION),
    targets: targetsSchema.prefault({}).describe('The domains and packages the collectors ask about.'),
    shard: shardSchema.prefault({}).describe(SHARD_DESCRIPTION),
    metrics: metricsSchema.prefault({}).describe('Metric families to collect; a denied family costs no upstream request.'),
    limits: limitsSchema.prefault({}).describe('Caps on label values and series per family.'),
    server: serverSchema.prefault({}).describe('The HTTP server Prometheus scrapes.'),
    waf_events: wafEventsSchema.prefault({}).describe(WAF_EVENTS_DESCRIPTION),
    otlp: otlpSchema.prefault({}).describe(OTLP_DESCRIPTION),
    otlp_metrics: otlpMetricsSchema.prefault({}).describe(OTLP_METRICS_DESCRIPTION),
    remote_write: remoteWriteSchema.prefault({}).describe(REMOTE_WRITE_DESCRIPTION),
    state_dir: z
      .string()
      .min(1)
      .default('./state')
      .describe(
        'Directory for persisted state (watermarks, checkpoints), relative to the working directory (default ./state). ' +
          'One per replica: shards must not share it (see shard). With `accounts:` set, each account keeps its state in ' +
          '`<state_dir>/accounts/<name>/`; without, in state_dir itself.',
      ),
    state_recovery: z
      .enum(['fail', 'reset'])
      .default('fail')
      .describe(
        'What start-up does with a damaged state file (empty, truncated, not JSON, wrong format version or shape, ' +
          'another collector\'s, a directory in its place). `fail` (default): exit non-zero naming the file, the problem and ' +
          'the ways out, with nothing started or changed. `reset`: rename it to `<name>.json.damaged-<time>` (never deleted), ' +
          'log it at error level, count it in edge_exporter_state_resets_total, and start that part afresh without counting ' +
          'anything twice: a collector\'s counters restart at 0 from the next settled bucket (a counter reset for Prometheus; the ' +
          'buckets since the file\'s last write are given up, not back-filled), WAF event forwarding resumes at now minus ' +
          '`waf_events.delay` (events not forwarded yet before that are skipped, none is sent twice). A file that cannot be ' +
          'read (permissions, disk) and another shard\'s directory still stop start-up.',
      ),
    account: accountSchema.prefault({}).describe('The one account read when `accounts:` is not set.'),
    accounts: accountsSchema.optional().describe(ACCOUNTS_DESCRIPTION),
  })
  .superRefine(crossSectionRules, { when: () => true });

/**
 * The validated configuration: defaults filled, durations in milliseconds,
 * token and proxy_url files read, each outbound client's proxy resolved
 * from its proxy_url and the environment (`proxies`, not a YAML key), and the
 * `run --web.config.file` file when one was given. Each of `accounts` is
 * loaded the same way (its files read, its own `proxies`); resolveAccounts
 * (accounts.ts) turns them into one Config each.
 */
export type Config = Omit<z.output<typeof configSchema>, 'accounts'> & {
  readonly accounts?: readonly LoadedAccount[];
  readonly proxies: ProxyRoutes;
  readonly web_config?: WebConfig;
};

/** An `accounts:` entry as loaded: merged over the top level, its token and proxy_url files read, its clients' proxies resolved. */
export type LoadedAccount = AccountEntry & { readonly proxies: ProxyRoutes };
