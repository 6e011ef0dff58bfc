// Configuration: one zod schema (types, defaults, descriptions), loaded once at
// start-up from YAML plus the environment. Nothing else reads process.env.
export { configSchema } from './schema.js';
export type { Config } from './schema.js';
export { loadConfig } from './load.js';
export { readTokenFile } from './token-file.js';
export { ConfigError } from './errors.js';
export { delayMs, resolveCollectorOptions } from './collector-options.js';
export type { ResolvedCollectorOptions } from './collector-options.js';
export type { CollectorsConfig } from './sections/collectors.js';
export { insecureTlsKeys, otlpMetricsUrl, outboundEndpoint } from './endpoints.js';
export { wafAudit, wafOverlap } from './sections/waf-events.js';
export { accountsNamed, resolveAccounts } from './accounts.js';
export type { ResolvedAccount } from './accounts.js';
