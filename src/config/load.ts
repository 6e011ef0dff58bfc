// Loading is one pass at start-up: read the file, parse YAML, interpolate
// ${VAR}, apply the EDGE_* overrides, merge each `accounts:` entry over the
// top level, read the token and proxy files, validate with the schema. Every
// problem found is collected and thrown as one ConfigError.
// This is the only module that reads process.env.
import { readFileSync } from 'node:fs';
import { redactSecrets } from '../log/redact.js';
import { OUTBOUND_NAMES, proxyCredentials } from '../outbound/index.js';
import { applyEnvOverrides, interpolate } from './env.js';
import type { Env, EnvOverride, PathProblem } from './env.js';
import { ConfigError } from './errors.js';
import type { ConfigProblem } from './errors.js';
import { accountEnv, isInheritedProblem, topLevelAccountProblems, withAccountDefaults } from './account-input.js';
import { loadAccounts } from './accounts.js';
import type { AccountFiles } from './accounts.js';
import { tokenFromUpstream } from './token-file.js';
import { PROXY_VARIABLES, readAccountProxyFiles, readProxyFiles, withProxyFiles } from './proxy-files.js';
import { resolveProxies } from './endpoints.js';
import { dottedPath, issueMessage, issueProblems } from './issues.js';
import { configJsonSchema } from './json-schema.js';
import { configSchema } from './schema.js';
import type { Config } from './schema.js';
import { serverFileProblems } from './server-files.js';
import { loadWebConfig } from './web-config.js';
import { clientFileProblems } from './client-files.js';
import { parseYaml } from './yaml-source.js';
import type { YamlSource } from './yaml-source.js';
import { errnoText } from '../shared/errno-text.js';

export interface LoadConfigOptions {
  /** Path of the YAML file; also names the source in messages when `text` is given. */
  file?: string;
  /** YAML text, used instead of reading `file`. With neither, the config is empty (environment only). */
  text?: string;
  /** Environment for ${VAR} and the EDGE_* overrides; defaults to process.env. */
  env?: Env;
  /**
   * Also read the files the HTTP server needs (server.basic_auth.password_file,
   * server.tls.*) and the outbound clients' TLS files (upstream.tls.*,
   * otlp.tls.*, otlp_metrics.tls.*, remote_write.tls.*), as `run` and check-config do; `call`
   * serves nothing (default false; the clients still read theirs when built).
   */
  serverFiles?: boolean;
  /**
   * `run --web.config.file`: an exporter-toolkit web config, read and checked
   * with its certificate files and kept as `web_config`; refused when it sets
   * TLS or basic auth that the `server:` section sets too.
   */
  webConfigFile?: string;
}

const INLINE_SOURCE = '<config>';

/** Reads, interpolates, overrides and validates the configuration; throws ConfigError listing every problem. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const source = options.file ?? INLINE_SOURCE;
  const yaml = parseYaml(options.text ?? (options.file === undefined ? '' : readConfigFile(options.file)));
  if (yaml.errors.length > 0) {
    // The document is unreadable, so only the environment's token is known to mask.
    const secrets = secretsIn(undefined, env);
    throw new ConfigError(
      source,
      yaml.errors.map((e) => ({ path: '', message: redactSecrets(e.message, secrets), ...e.position })),
    );
  }

  const interpolated = interpolate(yaml.data ?? {}, env);
  // With accounts: the upstream variables are refused, not applied (account-input.ts).
  const upstreamEnv = accountEnv(interpolated.value, env);
  const { document: overridden, applied } = applyEnvOverrides(interpolated.value, upstreamEnv.env);
  const document = withAccountDefaults(overridden);
  const tokenFile = tokenFromUpstream(document, ['upstream']);
  const serverFiles = options.serverFiles === true ? [...serverFileProblems(document), ...clientFileProblems(document)] : [];
  const proxyFiles = readProxyFiles(document);
  const accountFiles = readAccountFiles(document);
  const parsed = configSchema.safeParse(document, { error: issueMessage });

  const interpolationPaths = new Set(interpolated.problems.map((p) => dottedPath(p.path)));
  const schemaProblems = parsed.success
    ? []
    : issueProblems(parsed.error.issues, configJsonSchema()).filter((p) => !interpolationPaths.has(dottedPath(p.path)));
  const found = [
    ...interpolated.problems,
    ...topLevelAccountProblems(overridden),
    ...schemaProblems,
    ...tokenFile.problems,
    ...serverFiles,
    ...proxyFiles.problems,
    ...accountFiles.problems,
  ];
  // A top-level value an entry inherits is reported once, at the top-level key.
  const problems = found.filter((p) => !isInheritedProblem(p, overridden, found));

  if (problems.length > 0 || upstreamEnv.refused.length > 0 || !parsed.success) {
    const secrets = [...secretsIn(document, env), ...(tokenFile.token === undefined ? [] : [tokenFile.token]), ...proxyFiles.secrets, ...accountFiles.secrets];
    const located = problems.map((p) => locate(p, yaml, applied, secrets));
    const refused = upstreamEnv.refused.map((r) => ({ path: dottedPath(r.path), message: r.message, env: r.name }));
    throw new ConfigError(source, [...located, ...refused].sort(byPosition));
  }
  const { accounts: entries, ...parsedConfig } = parsed.data;
  const withProxies = { ...parsedConfig, ...withProxyFiles(parsed.data, proxyFiles.urls), proxies: resolveProxies(parsed.data, proxyFiles.urls, env) };
  const single = tokenFile.token === undefined ? withProxies : { ...withProxies, upstream: { ...withProxies.upstream, token: tokenFile.token } };
  const config: Config = entries === undefined ? single : { ...single, accounts: loadAccounts(single, entries, accountFiles.files, proxyFiles.urls, env) };
  return options.webConfigFile === undefined ? config : withWebConfig(config, options.webConfigFile, source, yaml);
}

/** Each entry's token_file and proxy_url_file, read as the top level's are; `files` by the entry's index. */
function readAccountFiles(document: unknown): { files: AccountFiles[]; problems: PathProblem[]; secrets: string[] } {
  const entries = get(document, 'accounts');
  const proxyFiles = readAccountProxyFiles(document);
  const tokens = Array.isArray(entries) ? entries.map((_, i) => tokenFromUpstream(document, ['accounts', i, 'upstream'])) : [];
  const files = tokens.map((t, i) => ({
    ...(t.token === undefined || t.problems.length > 0 ? {} : { token: t.token }),
    ...(proxyFiles.urls[i] === undefined ? {} : { proxyUrl: proxyFiles.urls[i] }),
  }));
  const secrets = [...tokens.flatMap((t) => (t.token === undefined ? [] : [t.token])), ...proxyFiles.secrets];
  return { files, problems: [...tokens.flatMap((t) => t.problems), ...proxyFiles.problems], secrets };
}

/** The config with the web config file added; one place sets TLS and one sets basic auth, so neither silently wins. */
function withWebConfig(config: Config, file: string, source: string, yaml: YamlSource): Config {
  const web = loadWebConfig(file);
  const clash = (key: string, other: string): PathProblem => ({
    path: ['server', key],
    message: `${other} in ${file} (--web.config.file) sets this too; keep one of them`,
  });
  const clashes = [
    ...(config.server.tls && web.tls ? [clash('tls', 'tls_server_config')] : []),
    ...(config.server.basic_auth && web.users ? [clash('basic_auth', 'basic_auth_users')] : []),
  ];
  if (clashes.length > 0) throw new ConfigError(source, clashes.map((p) => locate(p, yaml, [], [])));
  return { ...config, web_config: web };
}

function readConfigFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [{ path: '', message: `cannot read the config file: ${errnoText(err)}` }], { cause: err });
  }
}

/** Every secret value the messages must not show. */
function secretsIn(document: unknown, env: Env): string[] {
  const candidates = [
    env.EDGE_API_TOKEN,
    env.EDGE_REMOTE_WRITE_BEARER_TOKEN,
    get(get(document, 'upstream'), 'token'),
    get(get(document, 'simulator'), 'token'),
    ...accountUpstreams(document).map((upstream) => get(upstream, 'token')),
  ];
  const proxies = [
    ...OUTBOUND_NAMES.map((section) => get(get(document, section), 'proxy_url')),
    ...accountUpstreams(document).map((upstream) => get(upstream, 'proxy_url')),
    ...PROXY_VARIABLES.map((name) => env[name]),
  ];
  return [...candidates.filter((s): s is string => typeof s === 'string'), ...proxies.flatMap(proxyCredentials)];
}

function accountUpstreams(document: unknown): unknown[] {
  const entries = get(document, 'accounts');
  return Array.isArray(entries) ? entries.map((entry: unknown) => get(entry, 'upstream')) : [];
}

/** Adds where the value came from: the overriding variable, or the key's line:col in the file. */
function locate(problem: PathProblem, yaml: YamlSource, applied: readonly EnvOverride[], secrets: readonly string[]): ConfigProblem {
  // A secret pasted where a key belongs is quoted by the path ("unknown key"), so the path is masked too.
  const path = redactSecrets(dottedPath(problem.path), secrets);
  const message = redactSecrets(problem.message, secrets);
  const override = applied.find((o) => o.path.every((segment, i) => problem.path[i] === segment));
  if (override) return { path, message, env: override.name };
  const position = yaml.locate(problem.path);
  return position ? { path, message, line: position.line, col: position.col } : { path, message };
}

/** File order first (as an editor walks them), then problems from the environment or without a position. */
function byPosition(a: ConfigProblem, b: ConfigProblem): number {
  return (a.line ?? Infinity) - (b.line ?? Infinity) || (a.col ?? 0) - (b.col ?? 0);
}

function get(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

