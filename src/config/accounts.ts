// The accounts a config reads, each as a whole Config: what the daemon's
// existing wiring builds one account's client, budget, targets and state
// from. Without `accounts:` that is the config itself, named by
// `account.name`; with it, the top level with one entry's upstream, targets,
// overrides, proxies and state directory in place, and no other entry in it,
// so one account's token or proxy credentials never reach another's parts.
// How an entry inherits from the top level is account-input.ts.
import { join } from 'node:path';
import type { ProxyRoutes } from '../outbound/index.js';
import type { Env } from './env.js';
import { resolveProxies } from './endpoints.js';
import type { Config, LoadedAccount } from './schema.js';
import { DEFAULT_ACCOUNT_NAME, type AccountEntry } from './sections/accounts.js';

export interface ResolvedAccount {
  /** `account.name`, or the entry's name. */
  readonly name: string;
  /** The account's whole config, as the daemon consumed one before `accounts:`. */
  readonly config: Config;
}

/**
 * Whether every series carries the `account` label: with `accounts:`, or a
 * one-account config whose `account.name` is not the default. A config that
 * names no account serves its series as before accounts existed, so an
 * upgrade changes no series and no dashboard query.
 */
export function accountsNamed(config: Config): boolean {
  return config.accounts !== undefined || config.account.name !== DEFAULT_ACCOUNT_NAME;
}

/** Where an account keeps its state under the top-level state_dir when `accounts:` is set. */
function accountStateDir(stateDir: string, name: string): string {
  return join(stateDir, 'accounts', name);
}

/**
 * One Config per account, in the order listed. Without `accounts:`, the one
 * account is the config unchanged (its state_dir too, so the state of
 * earlier versions is read where it was written). Pure: every file was read
 * at load.
 */
export function resolveAccounts(config: Config): ResolvedAccount[] {
  if (config.accounts === undefined) return [{ name: config.account.name, config }];
  const { accounts, ...shared } = config;
  return accounts.map((entry) => ({
    name: entry.name,
    config: {
      ...shared,
      account: { name: entry.name },
      upstream: entry.upstream,
      // An entry's sections were merged over the top level's at load; absent means the top level's as it is.
      targets: entry.targets ?? shared.targets,
      collectors: entry.collectors ?? shared.collectors,
      waf_events: entry.waf_events ?? shared.waf_events,
      metrics: entry.metrics ?? shared.metrics,
      proxies: entry.proxies,
      state_dir: accountStateDir(shared.state_dir, entry.name),
    },
  }));
}

/** What load read for one entry (by index): its token_file's token and its proxy_url_file's URL. */
export interface AccountFiles {
  readonly token?: string;
  readonly proxyUrl?: string;
}

/**
 * The parsed entries with their files in place and each one's proxies: the
 * upstream's route from the entry's own proxy_url (or file), the others the
 * top level's, resolved by the one resolver the top level's go through.
 */
export function loadAccounts(
  config: Omit<Config, 'accounts' | 'proxies'>,
  entries: readonly AccountEntry[],
  files: readonly AccountFiles[],
  topUrls: Partial<Record<keyof ProxyRoutes, string>>,
  env: Env,
): LoadedAccount[] {
  return entries.map((entry, i) => {
    const read = files[i] ?? {};
    const upstream = {
      ...entry.upstream,
      ...(read.token === undefined ? {} : { token: read.token }),
      ...(read.proxyUrl === undefined ? {} : { proxy_url: read.proxyUrl }),
    };
    const proxies = resolveProxies({ ...config, upstream }, { ...topUrls, upstream: read.proxyUrl }, env);
    return { ...entry, upstream, proxies };
  });
}
