// A reload: what it may change, and how it applies a new config or goes back
// to the previous one. It restarts only what changed (reload-changes.ts): an
// unchanged config restarts nothing and sends no request; a change confined
// to some collectors' blocks restarts those collectors' jobs alone; a change
// to anything they share (the upstream, targets, sinks, ...) builds the
// engine and all its jobs again over the same state directory, so counters
// continue from what the old engine just saved and no WAF event is sent
// twice. A few keys are bound to what lives for the whole process (the
// listening socket, the state directory and its lock, the shard that
// directory belongs to, the bundled simulator and its world), so a reload
// that changes one is refused, naming it, and the daemon keeps its running
// config. A restart applies them.
import { isDeepStrictEqual } from 'node:util';
import type { Config } from '../config/index.js';
import type { SelfMetrics } from '../exporters/prometheus/index.js';
import type { Logger } from '../log/logger.js';
import type { ReloadOutcome, ServerCredentials } from '../server/index.js';
import { stopComponents } from './components.js';
import { changedSections, fingerprint, reloadChanges, unchanged, type Fingerprint } from './reload-changes.js';
import { readServerCredentials } from './server-secrets.js';
import type { Components } from './wiring/index.js';
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

const bundled = (config: Config): boolean => config.upstream.api_url === undefined;
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
    key: 'upstream.api_url', value: (c) => c.upstream.api_url === undefined,
    why: 'switching between the bundled simulator and a real account needs a restart',
  },
  { key: 'simulator', value: (c) => c.simulator, when: bundled },
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

/** What a reload needs from the daemon: its config source, and how to build and start one config's components. */
interface ReloadContext {
  readonly logger: Logger;
  readonly self: SelfMetrics;
  /** Reads the config again; throws ConfigError when it does not validate. */
  readonly read: () => Config;
  /** `run --listen` fixes the address, so server.listen in the file does not matter. */
  readonly listenOverridden: boolean;
  readonly build: (config: Config) => Promise<Components>;
  /** Starts built components (nothing under `schedules: false`). */
  readonly start: (components: Components) => Promise<void>;
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
 * unchanged one is applied by doing nothing. One that changes collectors
 * alone restarts their jobs in the running engine. Otherwise the running
 * components stop (every job saves its state) and the new config's are built
 * and started. When applying fails, the previous config's components are
 * built and started again over the state just saved. Rejects only when that
 * fails too.
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
  const changes = reloadChanges(running.fingerprint, applied);
  if (unchanged(changes)) {
    ctx.self.recordConfigLoad(true, Date.now());
    log.info('configuration unchanged (files it names included); nothing restarted');
    return { outcome: { ok: true }, inForce: running };
  }
  let components: Components | undefined;
  try {
    if (changes.shared) {
      await stopComponents(running.components);
      components = await ctx.build(next);
      await ctx.start(components);
    } else {
      components = await swapCollectors(running.components, next, changes.collectors);
    }
  } catch (err) {
    // The previous config's state was just saved and is valid; come back up on it (a failure here is the caller's to end on).
    log.error({ error: describe(err) }, 'the new configuration failed to start; going back to the previous one');
    // What the new config opened closes (its upstream connections); a job whose state did not load has nothing to save.
    // After a failed collector swap, the running engine (partly swapped) is what stops.
    const opened = changes.shared ? components : running.components;
    if (opened) await stopComponents(opened);
    // Built now, it reads the previous config's files as they are now.
    const again = fingerprint(running.config);
    const back = await ctx.build(running.config);
    await ctx.start(back);
    return { outcome: refuseReload(err, ctx), inForce: { config: running.config, fingerprint: again, components: back } };
  }
  ctx.self.retainCollectors(components.collectors);
  ctx.self.recordConfigLoad(true, Date.now());
  const restarted = changes.shared ? 'everything but the server' : changes.collectors;
  log.info({ changed: changedSections(running.fingerprint, applied), restarted }, 'configuration reloaded');
  return { outcome: { ok: true }, inForce: { config: next, fingerprint: applied, components }, ...(changes.server ? { credentials } : {}) };
}

/**
 * Restarts the named collectors' jobs (added, removed or changed) in the
 * running engine, over the same client, targets, ledger and sinks; every
 * other job keeps its schedule, its run state and its counters.
 */
async function swapCollectors(components: Components, next: Config, names: readonly string[]): Promise<Components> {
  const built = components.collectorJobs(next);
  const restart = new Set(names);
  const fresh = built.jobs.filter((job) => restart.has(job.name));
  const gone = names.filter((name) => !fresh.some((job) => job.name === name));
  await components.engine.swap(fresh, gone);
  return { ...components, collectors: built.collectors };
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
