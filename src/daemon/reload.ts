// A reload: what it may change, and how it applies a new config or goes back
// to the previous one. It restarts only what changed (reload-changes.ts),
// account by account: an unchanged account restarts nothing and sends no
// request; a change confined to some collectors' blocks restarts those
// collectors' jobs alone; a change to anything an account's jobs share (its
// upstream, targets, sinks, ...) builds that account's engine and all its
// jobs again over the same state directory, so counters continue from what
// the old engine just saved and no WAF event is sent twice; an account added
// starts, one removed stops. A change to the push pipes every account shares
// rebuilds everything. A few keys are bound to what lives for the whole process (the
// listening socket, the state directory and its lock, the shard that
// directory belongs to, the bundled simulator and its world), so a reload
// that changes one is refused, naming it, and the daemon keeps its running
// config. A restart applies them.
import { isDeepStrictEqual } from 'node:util';
import { accountsNamed, resolveAccounts, type Config, type ResolvedAccount } from '../config/index.js';
import type { SelfMetrics } from '../exporters/prometheus/index.js';
import type { Logger } from '../log/logger.js';
import type { ReloadOutcome, ServerCredentials } from '../server/index.js';
import type { Account, Components } from './accounts.js';
import { stopAccount, stopComponents } from './components.js';
import { changedSections, fingerprint, reloadChanges, type Fingerprint } from './reload-changes.js';
import { readServerCredentials } from './server-secrets.js';
import type { AccountParts } from './wiring/index.js';
import type { Pipes } from './wiring/pipes.js';
import { EdgeError } from '../shared/errors.js';

/** A reload refused before anything was stopped; the message says why. */
export class ReloadRefusedError extends EdgeError {
  readonly code = 'EDGE_RELOAD_REFUSED';
}

interface Fixed {
  readonly key: string;
  readonly value: (config: Config) => unknown;
  /** Compared only when this holds for the running config (e.g. the simulator's keys only while it serves as the upstream). */
  readonly when?: (config: Config) => boolean;
  /** What the refusal says, when more than that the key changed. */
  readonly why?: string;
}

/** Some account reads the bundled simulator (no upstream.api_url of its own). */
const bundled = (config: Config): boolean => resolveAccounts(config).some((a) => a.config.upstream.api_url === undefined);
/** The TLS block in force, from `server.tls` or the web config file. */
const servedTls = (config: Config) => config.server.tls ?? config.web_config?.tls;

const FIXED: readonly Fixed[] = [
  { key: 'server.listen', value: (c) => c.server.listen },
  {
    key: 'server.tls', value: (c) => servedTls(c) !== undefined,
    why: 'turning TLS on or off needs a restart (a reload re-reads the certificate and key files)',
  },
  {
    // Node fixes whether a listener asks for and verifies client certificates when it is created.
    key: 'server.tls.client_auth', value: (c) => servedTls(c)?.client_auth ?? 'none',
    why: 'changing the client certificate mode needs a restart (a reload re-reads the client CA file)',
  },
  { key: 'state_dir', value: (c) => c.state_dir },
  { key: 'shard', value: (c) => c.shard },
  {
    key: 'upstream.api_url', value: bundled,
    why: 'switching between the bundled simulator and a real account needs a restart',
  },
  { key: 'simulator', value: (c) => c.simulator, when: bundled },
  {
    key: 'accounts', value: (c) => ({ list: c.accounts !== undefined, named: accountsNamed(c) }),
    why: 'starting or ending the accounts: list, or naming the one account, changes every series\' labels and where state is kept: a restart applies it',
  },
  {
    key: 'account.name', value: (c) => c.account.name, when: (c) => c.accounts === undefined,
    why: 'renaming the one account changes every series\' account label: a restart applies it',
  },
];

/**
 * The keys `next` changes that only a restart applies, each with a short
 * reason; empty when the reload can proceed. `listenOverridden`: `run
 * --listen` fixes the address, so server.listen in the file does not matter.
 */
function restartOnlyChanges(running: Config, next: Config, listenOverridden: boolean): string[] {
  return FIXED.filter((f) => !(listenOverridden && f.key === 'server.listen'))
    .filter((f) => (f.when?.(running) ?? true) && !isDeepStrictEqual(f.value(running), f.value(next)))
    .map((f) => `${f.key}: ${f.why ?? 'changed; it is applied only by a restart'}`);
}

/** What a reload needs from the daemon: its config source, and how to build, start and publish accounts. */
interface ReloadContext {
  readonly logger: Logger;
  readonly self: SelfMetrics;
  /** Reads the config again; throws ConfigError when it does not validate. */
  readonly read: () => Config;
  /** `run --listen` fixes the address, so server.listen in the file does not matter. */
  readonly listenOverridden: boolean;
  /** Builds everything a config runs (every account and the pipes), not started. */
  readonly build: (config: Config) => Promise<Components>;
  /** Starts built components (nothing under `schedules: false`). */
  readonly start: (components: Components) => Promise<void>;
  /** Builds one account over the running pipes, not started. */
  readonly buildAccount: (account: ResolvedAccount, pipes: Pipes) => Promise<Account>;
  /** Starts one built account (nothing under `schedules: false`). */
  readonly startAccount: (account: Account) => Promise<void>;
  /** Makes `accounts` the ones served and pushed. */
  readonly publish: (components: Components) => void;
}

/** The config and components in force: before a reload, and after it (the new ones, or the previous config's again). */
interface InForce {
  readonly config: Config;
  /** The config's files as they were when it was applied: what the next reload compares against. */
  readonly fingerprint: Fingerprint;
  readonly components: Components;
}

interface Reloaded {
  readonly outcome: ReloadOutcome;
  readonly inForce: InForce;
  /** When applied: what the server takes (basic auth, certificate and key read again). */
  readonly credentials?: ServerCredentials;
}

/**
 * Reads the config again and applies what changed. A config that does not
 * validate, changes a key only a restart applies, or names a file that cannot
 * be read is refused before anything stops, and `running` stays in force. An
 * unchanged one is applied by doing nothing. A change to what every account
 * shares (the push pipes) rebuilds everything; otherwise each account is
 * compared on its own (accounts.ts): an unchanged one keeps running untouched,
 * a new one starts, a removed one stops (its state stays on disk), and a
 * changed one restarts its changed collectors or is rebuilt. When applying
 * fails, what failed goes back to its previous config over the state just
 * saved (everything, or that account alone). Rejects only when that fails too.
 */
export async function applyReload(running: InForce, ctx: ReloadContext): Promise<Reloaded> {
  const { logger: log } = ctx;
  let next: Config;
  let credentials: ServerCredentials;
  try {
    log.info('reloading the configuration');
    next = ctx.read();
    const fixed = restartOnlyChanges(running.config, next, ctx.listenOverridden);
    if (fixed.length > 0) throw new ReloadRefusedError(fixed.join('; '));
    credentials = await readServerCredentials(next);
  } catch (err) {
    return { outcome: refuseReload(err, ctx), inForce: running };
  }
  const applied = fingerprint(next);
  const top = reloadChanges(running.fingerprint, applied);
  const pipesChanged = !isDeepStrictEqual(pipeParts(running.fingerprint), pipeParts(applied));
  const plan = pipesChanged ? undefined : accountChanges(running.components.accounts, resolveAccounts(next));
  if (plan !== undefined && plan.every((p) => p.kind === 'same') && !top.server && !top.log) {
    ctx.self.recordConfigLoad(true, Date.now());
    log.info('configuration unchanged (files it names included); nothing restarted');
    return { outcome: { ok: true }, inForce: running };
  }
  const applyOutcome = plan === undefined ? await rebuildAll(running, next, ctx) : await applyAccounts(running.components, plan, ctx);
  if (!applyOutcome.ok) {
    // Everything was built again on the previous config, reading its files as they are now; after an account's
    // failure only that account was (its Account keeps its own fingerprint), the server and pipes as they were.
    const fingerprintNow = plan === undefined ? fingerprint(running.config) : running.fingerprint;
    return { outcome: refuseReload(applyOutcome.error, ctx), inForce: { config: running.config, fingerprint: fingerprintNow, components: applyOutcome.components } };
  }
  const { components } = applyOutcome;
  for (const account of components.accounts) account.exports.self.retainCollectors(account.parts.collectors);
  ctx.self.recordConfigLoad(true, Date.now());
  const restarted = plan === undefined ? 'everything but the server' : restartedText(plan);
  log.info({ changed: changedSections(running.fingerprint, applied), restarted }, 'configuration reloaded');
  return { outcome: { ok: true }, inForce: { config: next, fingerprint: applied, components }, ...(top.server ? { credentials } : {}) };
}

/** The sections every account's pushes share: a change there rebuilds the pipes, and so everything. */
const PIPE_SECTIONS = ['remote_write', 'otlp_metrics', 'otlp', 'limits', 'proxies', 'state_recovery'] as const;

function pipeParts(f: Fingerprint): unknown[] {
  return PIPE_SECTIONS.map((key) => f.sections[key]);
}

/** What becomes of one account. */
type AccountChange =
  | { readonly kind: 'same'; readonly running: Account }
  | { readonly kind: 'collectors'; readonly running: Account; readonly next: ResolvedAccount; readonly fingerprint: Fingerprint; readonly collectors: readonly string[] }
  | { readonly kind: 'rebuild'; readonly running: Account; readonly next: ResolvedAccount }
  | { readonly kind: 'add'; readonly next: ResolvedAccount }
  | { readonly kind: 'remove'; readonly running: Account };

/** Each account of the running config and the next, by name, compared on its own resolved config and files. */
function accountChanges(running: readonly Account[], next: readonly ResolvedAccount[]): AccountChange[] {
  const byName = new Map(running.map((a) => [a.name, a]));
  const changes: AccountChange[] = next.map((account): AccountChange => {
    const current = byName.get(account.name);
    if (current === undefined) return { kind: 'add', next: account };
    const fp = fingerprint(account.config);
    const diff = reloadChanges(current.fingerprint, fp);
    if (diff.shared) return { kind: 'rebuild', running: current, next: account };
    if (diff.collectors.length > 0) return { kind: 'collectors', running: current, next: account, fingerprint: fp, collectors: diff.collectors };
    return { kind: 'same', running: current };
  });
  const kept = new Set(next.map((a) => a.name));
  return [...changes, ...running.filter((a) => !kept.has(a.name)).map((a): AccountChange => ({ kind: 'remove', running: a }))];
}

/** What restarted, by account; with one account, as before accounts existed: the collectors, or everything. */
function restartedText(plan: readonly AccountChange[]): Record<string, string> | readonly string[] | string {
  const [only] = plan;
  if (plan.length === 1 && only !== undefined) {
    if (only.kind === 'collectors') return only.collectors;
    if (only.kind === 'rebuild') return 'everything but the server';
  }
  const what = { collectors: 'collectors', rebuild: 'rebuilt', add: 'added', remove: 'removed' } as const;
  return Object.fromEntries(plan.flatMap((p) => {
    if (p.kind === 'same') return [];
    const name = p.kind === 'add' ? p.next.name : p.running.name;
    return [[name, p.kind === 'collectors' ? `collectors ${p.collectors.join(', ')}` : what[p.kind]]];
  }));
}

type Applied = { readonly ok: true; readonly components: Components } | { readonly ok: false; readonly error: unknown; readonly components: Components };

/** Stops everything and builds the next config's; on failure the previous config's again (a failure there is the caller's to end on). */
async function rebuildAll(running: InForce, next: Config, ctx: ReloadContext): Promise<Applied> {
  let components: Components | undefined;
  try {
    await stopComponents(running.components);
    components = await ctx.build(next);
    ctx.publish(components);
    await ctx.start(components);
    return { ok: true, components };
  } catch (err) {
    // The previous config's state was just saved and is valid; come back up on it.
    ctx.logger.error({ error: describe(err) }, 'the new configuration failed to start; going back to the previous one');
    if (components) await stopComponents(components);
    const back = await ctx.build(running.config);
    ctx.publish(back);
    await ctx.start(back);
    return { ok: false, error: err, components: back };
  }
}

/**
 * Account by account: the untouched ones keep running as they are (no
 * request sent again, their counters untouched). One that fails to apply goes
 * back to its previous config; the others' changes stay applied, and the
 * outcome names the account that did not.
 */
async function applyAccounts(components: Components, plan: readonly AccountChange[], ctx: ReloadContext): Promise<Applied> {
  const accounts: Account[] = [];
  const failures: { readonly name: string; readonly error: unknown }[] = [];
  for (const change of plan) {
    if (change.kind === 'same') accounts.push(change.running);
    else if (change.kind === 'remove') {
      await stopAccount(change.running);
      ctx.logger.info({ account: change.running.name, state_dir: change.running.config.state_dir }, 'account removed; its state stays on disk until deleted');
    } else {
      try {
        accounts.push(await applyAccount(change, components.pipes, ctx));
      } catch (err) {
        const name = change.kind === 'add' ? change.next.name : change.running.name;
        failures.push({ name, error: err });
        ctx.logger.error({ account: name, error: describe(err) }, 'the account\'s new configuration failed to start; going back to its previous one');
        if (change.kind !== 'add') {
          const back = await ctx.buildAccount({ name, config: change.running.config }, components.pipes);
          await ctx.startAccount(back);
          accounts.push(back);
        }
      }
    }
  }
  const applied = { accounts, pipes: components.pipes };
  ctx.publish(applied);
  const [onlyFailure] = failures;
  // One account (as before accounts existed): its own error, as it was.
  if (plan.length === 1 && onlyFailure !== undefined) return { ok: false, error: onlyFailure.error, components: applied };
  if (failures.length > 0) {
    const text = failures.map((f) => `account ${f.name}: ${describe(f.error)}`).join('; ');
    return { ok: false, error: new ReloadRefusedError(`${text} (every other account's change was applied)`), components: applied };
  }
  return { ok: true, components: applied };
}

async function applyAccount(change: Exclude<AccountChange, { kind: 'same' | 'remove' }>, pipes: Pipes, ctx: ReloadContext): Promise<Account> {
  if (change.kind === 'collectors') {
    const parts = await swapCollectors(change.running.parts, change.next.config, change.collectors);
    return { ...change.running, config: change.next.config, fingerprint: change.fingerprint, parts };
  }
  if (change.kind === 'rebuild') await stopAccount(change.running);
  const account = await ctx.buildAccount(change.next, pipes);
  try {
    await ctx.startAccount(account);
  } catch (err) {
    await stopAccount(account);
    throw err;
  }
  return account;
}

/**
 * Restarts the named collectors' jobs (added, removed or changed) in the
 * account's running engine, over the same client, targets, ledger and sinks;
 * every other job keeps its schedule, its run state and its counters.
 */
async function swapCollectors(parts: AccountParts, next: Config, names: readonly string[]): Promise<AccountParts> {
  const built = parts.collectorJobs(next);
  const restart = new Set(names);
  const fresh = built.jobs.filter((job) => restart.has(job.name));
  const gone = names.filter((name) => !fresh.some((job) => job.name === name));
  await parts.engine.swap(fresh, gone);
  return { ...parts, collectors: built.collectors };
}

/** A reload that did not apply: logged, counted in edge_exporter_config_last_reload_successful, and its reason. */
export function refuseReload(err: unknown, ctx: Pick<ReloadContext, 'logger' | 'self'>): ReloadOutcome {
  const message = describe(err);
  ctx.logger.error({ reason: message }, 'reload refused; still running on the previous configuration');
  ctx.self.recordConfigLoad(false, Date.now());
  return { ok: false, message };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
