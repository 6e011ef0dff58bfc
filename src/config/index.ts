// Configuration: one zod schema (types, defaults, descriptions), loaded once at
// start-up from YAML plus the environment. Nothing else reads process.env.
export { configSchema } from './schema.js';
export type { Config, ConfigInput } from './schema.js';
export { loadConfig, readTokenFile } from './load.js';
export type { LoadConfigOptions, TokenFileRead } from './load.js';
export { ConfigError, formatProblem, isConfigError } from './errors.js';
export type { ConfigProblem } from './errors.js';
export { ENV_OVERRIDES } from './env.js';
export type { Env } from './env.js';
export { parseDuration } from './duration.js';
export { parseHostPort } from './fields.js';
export type { HostPort } from './fields.js';
export { renderConfigDocs } from './docs.js';
export { COLLECTOR_KEYS, delayMs, resolveCollectorOptions } from './collector-options.js';
export type {
  AccessOptions,
  CcAttackOptions,
  CollectorKey,
  InventoryOptions,
  ResolvedCollectorOptions,
  TopnOptions,
  UsageOptions,
  WafTrendOptions,
  WithDefaults,
} from './collector-options.js';
export type { CollectorsConfig } from './sections/collectors.js';
export type { TargetsConfig } from './sections/targets.js';
export type { ShardConfig } from './sections/shard.js';
export type { MetricsConfig } from './sections/metrics.js';
export type { LimitsConfig } from './sections/limits.js';
export { compileMetricPattern, compileNameRegex, PatternError } from './patterns.js';
export { cronProblem } from './cron.js';
export { insecureTlsKeys, NO_PROXY_ROUTE, tlsFiles } from './proxy.js';
export type { ProxyRoute } from './proxy.js';
