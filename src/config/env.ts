// What the environment can do to the configuration: `${VAR}` / `${VAR:-default}`
// in string values, and a few variables that override file settings outright
// (the twelve-factor way to hand a container its endpoint and secret).

export type Env = Readonly<Record<string, string | undefined>>;
export type YamlPath = readonly (string | number)[];

export interface EnvOverride {
  /** Environment variable name. */
  readonly name: string;
  /** Config key it sets. */
  readonly path: readonly string[];
  /** Keys removed when it is set (a token from the environment replaces a token file). */
  readonly clears: readonly (readonly string[])[];
  /** The value to set from the variable's text and the current value (default: the text itself). */
  readonly value?: (text: string, current: unknown) => unknown;
}

/**
 * Variables that win over the file, applied in this order (a later one wins
 * over an earlier one for the same key). An empty value counts as unset. The
 * OTEL_* ones follow the OTLP exporter specification: the signal-specific
 * variable (LOGS_ for otlp, METRICS_ for otlp_metrics) wins over the generic
 * one, and a generic endpoint is a base URL to which `/v1/logs` or
 * `/v1/metrics` is appended; a generic variable sets both sections.
 */
export const ENV_OVERRIDES: readonly EnvOverride[] = [
  { name: 'EDGE_API_URL', path: ['upstream', 'api_url'], clears: [] },
  { name: 'EDGE_LOGIN_URL', path: ['upstream', 'login_url'], clears: [] },
  { name: 'EDGE_API_TOKEN', path: ['upstream', 'token'], clears: [['upstream', 'token_file']] },
  { name: 'EDGE_SHARD_INDEX', path: ['shard', 'index'], clears: [], value: shardIndex },
  { name: 'EDGE_SHARD_COUNT', path: ['shard', 'count'], clears: [], value: wholeNumber },
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', path: ['otlp', 'endpoint'], clears: [], value: logsEndpoint },
  { name: 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT', path: ['otlp', 'endpoint'], clears: [] },
  { name: 'OTEL_EXPORTER_OTLP_HEADERS', path: ['otlp', 'headers'], clears: [], value: mergeHeaders },
  { name: 'OTEL_EXPORTER_OTLP_LOGS_HEADERS', path: ['otlp', 'headers'], clears: [], value: mergeHeaders },
  { name: 'OTEL_EXPORTER_OTLP_PROTOCOL', path: ['otlp', 'protocol'], clears: [] },
  { name: 'OTEL_EXPORTER_OTLP_LOGS_PROTOCOL', path: ['otlp', 'protocol'], clears: [] },
  // Milliseconds, which is what a bare number means to a duration field.
  { name: 'OTEL_EXPORTER_OTLP_TIMEOUT', path: ['otlp', 'timeout'], clears: [] },
  { name: 'OTEL_EXPORTER_OTLP_LOGS_TIMEOUT', path: ['otlp', 'timeout'], clears: [] },
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', path: ['otlp_metrics', 'endpoint'], clears: [], value: metricsEndpoint },
  { name: 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', path: ['otlp_metrics', 'endpoint'], clears: [] },
  { name: 'OTEL_EXPORTER_OTLP_HEADERS', path: ['otlp_metrics', 'headers'], clears: [], value: mergeHeaders },
  { name: 'OTEL_EXPORTER_OTLP_METRICS_HEADERS', path: ['otlp_metrics', 'headers'], clears: [], value: mergeHeaders },
  { name: 'OTEL_EXPORTER_OTLP_PROTOCOL', path: ['otlp_metrics', 'protocol'], clears: [] },
  { name: 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL', path: ['otlp_metrics', 'protocol'], clears: [] },
  { name: 'OTEL_EXPORTER_OTLP_TIMEOUT', path: ['otlp_metrics', 'timeout'], clears: [] },
  { name: 'OTEL_EXPORTER_OTLP_METRICS_TIMEOUT', path: ['otlp_metrics', 'timeout'], clears: [] },
  { name: 'OTEL_EXPORTER_OTLP_COMPRESSION', path: ['otlp_metrics', 'compression'], clears: [] },
  { name: 'OTEL_EXPORTER_OTLP_METRICS_COMPRESSION', path: ['otlp_metrics', 'compression'], clears: [] },
  { name: 'OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE', path: ['otlp_metrics', 'temporality'], clears: [], value: temporality },
  { name: 'OTEL_METRIC_EXPORT_INTERVAL', path: ['otlp_metrics', 'interval'], clears: [] },
  { name: 'EDGE_REMOTE_WRITE_URL', path: ['remote_write', 'url'], clears: [] },
  { name: 'EDGE_REMOTE_WRITE_BEARER_TOKEN', path: ['remote_write', 'bearer_token'], clears: [['remote_write', 'bearer_token_file']] },
  { name: 'EDGE_REMOTE_WRITE_HEADERS', path: ['remote_write', 'headers'], clears: [], value: mergeHeaders },
];

/**
 * EDGE_SHARD_INDEX: a number, or a pod name whose trailing integer is the
 * index (`edge-exporter-2` -> 2), so a StatefulSet hands each pod its ordinal
 * through `fieldRef: metadata.name` with no templating. Anything else is
 * passed on as text for the schema to report against the variable.
 */
function shardIndex(text: string): unknown {
  const match = /(\d+)$/.exec(text.trim());
  return match?.[1] === undefined ? text : Number(match[1]);
}

/** A variable holding a number: digits become one, anything else stays text for the schema to report. */
function wholeNumber(text: string): unknown {
  const trimmed = text.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : text;
}

/** The signal path appended to a generic OTLP/HTTP base endpoint. */
function logsEndpoint(base: string): string {
  return `${base.replace(/\/+$/, '')}/v1/logs`;
}

function metricsEndpoint(base: string): string {
  return `${base.replace(/\/+$/, '')}/v1/metrics`;
}

/**
 * OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE, case-insensitive as the
 * specification says. Its `lowmemory` is delta for synchronous monotonic
 * counters, which is what every counter pushed here is (one increment per
 * upstream bucket); anything else is passed on for the schema to report.
 */
function temporality(text: string): string {
  const word = text.trim().toLowerCase();
  return word === 'lowmemory' ? 'delta' : word;
}

/**
 * OTEL_EXPORTER_OTLP_*HEADERS: `key=value,key2=value2`, each part percent-decoded,
 * merged over the headers already set. A malformed list is passed on as text,
 * so the schema reports it against the variable without echoing the value.
 */
function mergeHeaders(text: string, current: unknown): unknown {
  const parsed: Record<string, string> = {};
  for (const item of text.split(',')) {
    if (item.trim() === '') continue;
    const eq = item.indexOf('=');
    if (eq <= 0) return text;
    try {
      const key = decodeURIComponent(item.slice(0, eq).trim());
      if (key === '') return text;
      parsed[key] = decodeURIComponent(item.slice(eq + 1).trim());
    } catch {
      return text;
    }
  }
  return isPlain(current) ? { ...current, ...parsed } : parsed;
}

export interface PathProblem {
  readonly path: YamlPath;
  readonly message: string;
}

type Plain = Record<string, unknown>;

const isPlain = (value: unknown): value is Plain =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// `$${` is a literal `${`; `${NAME}` or `${NAME:-default}` a reference; any other `${` is a mistake.
const REFERENCE_RE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{/g;

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string value (never in
 * keys, numbers or booleans). Problems name the variable, never a value.
 */
export function interpolate(value: unknown, env: Env, path: YamlPath = []): { value: unknown; problems: PathProblem[] } {
  const problems: PathProblem[] = [];
  const walk = (node: unknown, at: YamlPath): unknown => {
    if (typeof node === 'string') return interpolateString(node, env, at, problems);
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...at, i]));
    if (isPlain(node)) return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, [...at, k])]));
    return node;
  };
  return { value: walk(value, path), problems };
}

function interpolateString(text: string, env: Env, path: YamlPath, problems: PathProblem[]): string {
  return text.replace(REFERENCE_RE, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$${') return '${';
    if (name === undefined) {
      problems.push({ path, message: 'malformed ${...} reference: write ${NAME} or ${NAME:-default}, or $${ for a literal ${' });
      return match;
    }
    const current = env[name];
    if (fallback !== undefined) return current === undefined || current === '' ? fallback : current;
    if (current === undefined) {
      problems.push({ path, message: `environment variable ${name} is not set (write \${${name}:-default} for a fallback)` });
      return '';
    }
    return current;
  });
}

/**
 * Applies {@link ENV_OVERRIDES} to the parsed document. Returns the new
 * document and the overrides that took effect, so problems with those values
 * can be blamed on the variable instead of a file position.
 */
export function applyEnvOverrides(document: unknown, env: Env): { document: unknown; applied: EnvOverride[] } {
  if (!isPlain(document)) return { document, applied: [] };
  let result: Plain = document;
  const applied: EnvOverride[] = [];
  for (const override of ENV_OVERRIDES) {
    const text = env[override.name];
    if (text === undefined || text === '') continue;
    const value = override.value ? override.value(text, getIn(result, override.path)) : text;
    const next = setIn(result, override.path, value);
    if (next === undefined) continue; // a non-mapping in the way: the schema reports it
    result = override.clears.reduce<Plain>((doc, key) => setIn(doc, key, undefined) ?? doc, next);
    // The variable that set a key last is the one a problem with it is blamed on.
    const earlier = applied.findIndex((o) => o.path.join('.') === override.path.join('.'));
    if (earlier >= 0) applied.splice(earlier, 1);
    applied.push(override);
  }
  return { document: result, applied };
}

function getIn(root: Plain, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, key) => (isPlain(node) ? node[key] : undefined), root);
}

/** Copy of `root` with `path` set (or removed when `value` is undefined); undefined if a non-mapping is in the way. */
function setIn(root: Plain, path: readonly string[], value: unknown): Plain | undefined {
  const [head, ...rest] = path;
  if (head === undefined) return undefined;
  if (rest.length === 0) {
    const { [head]: _removed, ...others } = root;
    return value === undefined ? others : { ...others, [head]: value };
  }
  const child = root[head] ?? {};
  if (!isPlain(child)) return undefined;
  const updated = setIn(child, rest, value);
  return updated === undefined ? undefined : { ...root, [head]: updated };
}
