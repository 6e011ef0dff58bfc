// Configuration: one zod schema (types, defaults, descriptions), loaded once at
// start-up from YAML plus the environment. Nothing else reads process.env.
export { configSchema } from './schema.js';
export type { Config, ConfigInput } from './schema.js';
export { loadConfig } from './load.js';
export type { LoadConfigOptions } from './load.js';
export { ConfigError, formatProblem, isConfigError } from './errors.js';
export type { ConfigProblem } from './errors.js';
export { ENV_OVERRIDES } from './env.js';
export type { Env } from './env.js';
export { parseDuration } from './duration.js';
export { parseHostPort } from './fields.js';
export type { HostPort } from './fields.js';
export { renderConfigDocs } from './docs.js';
