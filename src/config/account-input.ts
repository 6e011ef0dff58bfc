// `accounts:` on the input side, before the schema parses the document: each
// entry's sections merged over the top level's (so a shared timeout is
// written once and defaults fill in after the merge, never over it), the
// rules that span an entry and the top level, the upstream variables refused,
// and the problems an inherited value would report twice.
import { ENV_OVERRIDES } from './env.js';
import type { Env, PathProblem, YamlPath } from './env.js';

/** The sections an entry may set; what it does not set comes from the top level. */
const ACCOUNT_SECTIONS = ['upstream', 'targets', 'collectors', 'waf_events', 'metrics'] as const;

/** Upstream keys that make an account who it is: never inherited, refused at the top level while `accounts:` is set. */
const OWN_UPSTREAM_KEYS = ['api_url', 'login_url', 'token', 'token_file'] as const;

/** Keys of which an entry's one replaces every inherited one (they are mutually exclusive). */
const EXCLUSIVE: Readonly<Partial<Record<string, readonly (readonly string[])[]>>> = {
  upstream: [['proxy_url', 'proxy_url_file']],
};

type Plain = Record<string, unknown>;

const isPlain = (value: unknown): value is Plain => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `over` merged over `base`: mappings key by key, at every depth; anything
 * else (a list, a scalar, null) in `over` replaces what `base` holds.
 */
function deepMerge(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (!isPlain(base) || !isPlain(over)) return over;
  const merged: Plain = { ...base };
  for (const [key, value] of Object.entries(over)) merged[key] = deepMerge(base[key], value);
  return merged;
}

/** Whether the document lists accounts; a wrong shape still counts, for the schema to report. */
function hasAccounts(document: unknown): boolean {
  return isPlain(document) && document.accounts !== undefined;
}

/**
 * The document with each entry's sections merged over the top level's. An
 * entry without `upstream` keeps none (the schema reports it missing); the
 * top level's own keys (api_url, token, ...) are never inherited.
 */
export function withAccountDefaults(document: unknown): unknown {
  if (!isPlain(document) || !Array.isArray(document.accounts)) return document;
  const top = document;
  const entries = document.accounts.map((entry: unknown) => {
    if (!isPlain(entry)) return entry;
    const merged: Plain = { ...entry };
    for (const section of ACCOUNT_SECTIONS) {
      const own = entry[section];
      if (section === 'upstream' && own === undefined) continue;
      const value = deepMerge(inherited(section, top[section], own), own);
      if (value !== undefined) merged[section] = value;
    }
    return merged;
  });
  return { ...document, accounts: entries };
}

/** What an entry inherits of a top-level section: none of its own keys, nor the alternatives of a key it sets. */
function inherited(section: string, base: unknown, own: unknown): unknown {
  if (!isPlain(base)) return base;
  const dropped = new Set<string>(section === 'upstream' ? OWN_UPSTREAM_KEYS : []);
  for (const group of EXCLUSIVE[section] ?? []) {
    if (isPlain(own) && group.some((key) => own[key] !== undefined)) group.forEach((key) => dropped.add(key));
  }
  return Object.fromEntries(Object.entries(base).filter(([key]) => !dropped.has(key)));
}

/**
 * What `accounts:` refuses at the top level, on the document as written (load
 * runs it: once parsed, `account` holds its default and upstream.login_url
 * its api_url): `account:`, and the upstream keys each account sets itself.
 */
export function topLevelAccountProblems(document: unknown): PathProblem[] {
  if (!isPlain(document) || document.accounts === undefined) return [];
  const problems: PathProblem[] = [];
  if (document.account !== undefined) {
    problems.push({ path: ['account'], message: 'account.name and accounts: are mutually exclusive: name each account in accounts[i].name' });
  }
  const upstream = document.upstream;
  for (const key of OWN_UPSTREAM_KEYS) {
    if (isPlain(upstream) && upstream[key] !== undefined) {
      problems.push({ path: ['upstream', key], message: `with accounts: set, each account sets its own: move it to accounts[i].upstream.${key}` });
    }
  }
  return problems;
}

/**
 * The rules `accounts:` adds for each entry, on the merged document (schema.ts
 * runs them with the other cross-section rules); they hold on the parsed
 * config too.
 */
export function accountProblems(document: unknown): PathProblem[] {
  if (!isPlain(document) || !Array.isArray(document.accounts)) return [];
  const problems: PathProblem[] = [];
  document.accounts.forEach((entry: unknown, i) => {
    const own = isPlain(entry) ? entry.upstream : undefined;
    if (!isPlain(own)) return; // missing or not a mapping: the schema reports it
    if (own.api_url === undefined) {
      problems.push({ path: ['accounts', i, 'upstream', 'api_url'], message: `required: accounts[${i}] is its own upstream (the top-level api_url is not inherited)` });
    } else if (own.token === undefined && own.token_file === undefined) {
      problems.push({ path: ['accounts', i, 'upstream', 'token'], message: `set accounts[${i}].upstream.token or token_file: each account has its own token` });
    }
  });
  return problems;
}

/** The variables that set the top-level upstream (EDGE_API_URL, ...). */
const UPSTREAM_VARIABLES = ENV_OVERRIDES.filter((o) => o.path[0] === 'upstream');

/**
 * With `accounts:` set, the upstream variables would give every account one
 * URL or token, so they are refused, each naming itself, and left out of the
 * environment the overrides read.
 */
export function accountEnv(document: unknown, env: Env): { env: Env; refused: { name: string; path: YamlPath; message: string }[] } {
  if (!hasAccounts(document)) return { env, refused: [] };
  const set = UPSTREAM_VARIABLES.filter((o) => (env[o.name] ?? '') !== '');
  if (set.length === 0) return { env, refused: [] };
  const refused = set.map((o) => {
    const key = o.path.slice(1).join('.');
    return {
      name: o.name,
      path: o.path,
      // Set at all, the variable is refused, so it cannot be the one an entry interpolates either.
      message: `${o.name} sets the upstream of a config without accounts:; with accounts: set, set accounts[i].upstream.${key} per account ` +
        `(from a variable through \${NAME} if need be, one per account, named other than ${o.name})`,
    };
  });
  const names = new Set(set.map((o) => o.name));
  return { env: Object.fromEntries(Object.entries(env).filter(([name]) => !names.has(name))), refused };
}

/**
 * Whether a problem of an entry's section is the top level's own, inherited:
 * the entry does not set the key (in `document`, before the merge), the top
 * level does and the entry inherits it, and the top-level key has a problem (the same one, or the `${VAR}` that emptied it).
 * It is shown there, once.
 */
export function isInheritedProblem(problem: PathProblem, document: unknown, problems: readonly PathProblem[]): boolean {
  const [root, index, section, ...rest] = problem.path;
  if (root !== 'accounts' || typeof index !== 'number' || typeof section !== 'string') return false;
  const entry = isPlain(document) && Array.isArray(document.accounts) ? (document.accounts[index] as unknown) : undefined;
  if (has(entry, [section, ...rest]) || !has(document, [section, ...rest])) return false;
  if (section === 'upstream' && OWN_UPSTREAM_KEYS.some((key) => key === rest[0])) return false; // never inherited
  const topPath = [section, ...rest].join('.');
  return problems.some((p) => p.path.join('.') === topPath);
}

function has(node: unknown, path: YamlPath): boolean {
  let current = node;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isPlain(current) && typeof segment === 'string') current = current[segment];
    else return false;
    if (current === undefined) return false;
  }
  return true;
}
