// What a reload must restart, decided by comparing the running config and the
// new one part by part, each part being what one component is built from:
// - a collector's part is its resolved options (its block with
//   collectors.defaults filled in) and the upstream's units: a change restarts
//   that collector's job alone, over the same client, targets and counters;
// - the server's part (server:, the web config) is applied by the running
//   server (its credentials set again; the keys it binds are refused earlier,
//   reload.ts);
// - log: the level is set by whoever reads the config again (the CLI);
//   nothing restarts;
// - simulator: nothing restarts (unused with a real account; a change to the
//   bundled one is refused, reload.ts);
// - everything else (upstream and its credentials, proxy, TLS and rate
//   limits, targets, metrics filters, limits, waf_events, otlp, otlp_metrics,
//   remote_write, the jitter) is shared by every job through the one upstream
//   client, the target discovery, the ledger and the sinks: a change there
//   rebuilds them all, as a restart would, over the same state directory.
// Values are compared as resolved: a `*_file` key counts as changed when the
// content of its file changed, since the clients read those files when built.
// So the running config's side is its fingerprint taken when it was applied,
// not the files as they are now.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { resolveCollectorOptions, type Config, type ResolvedCollectorOptions as Resolved } from '../config/index.js';

/** Each collector's job name and the resolved block it is built from. */
const COLLECTOR_BLOCKS = {
  access: 'access',
  usage: 'usage',
  topn: 'topn',
  'cc-attack': 'cc_attack',
  'waf-trend': 'waf_trend',
  inventory: 'inventory',
} as const satisfies Record<string, Exclude<keyof Resolved, 'units'>>;

/** The top-level keys applied in place, by part; the rest of the config but the collectors' blocks is shared. */
const IN_PLACE = { server: ['server', 'web_config'], log: ['log'] } as const satisfies Record<string, readonly (keyof Config)[]>;

interface ReloadChanges {
  /** Something shared by every job changed: rebuild all of them. */
  readonly shared: boolean;
  /** The server's files or settings changed: set its credentials again. */
  readonly server: boolean;
  /** The log settings changed (already applied by the reader). */
  readonly log: boolean;
  /** Job names of the collectors whose part changed (added, removed or altered). */
  readonly collectors: readonly string[];
}

/** What differs between the config in force (its fingerprint when applied) and the new one's, by the component it restarts. */
export function reloadChanges(a: Fingerprint, b: Fingerprint): ReloadChanges {
  return {
    shared: !isDeepStrictEqual(a.shared, b.shared),
    server: !isDeepStrictEqual(a.server, b.server),
    log: !isDeepStrictEqual(a.log, b.log),
    collectors: Object.keys(COLLECTOR_BLOCKS).filter((name) => !isDeepStrictEqual(a.collectors[name], b.collectors[name])),
  };
}

/** A config by the parts reloads compare, its files' contents as they were read. */
export interface Fingerprint {
  readonly shared: unknown;
  readonly server: unknown;
  readonly log: unknown;
  readonly collectors: Record<string, unknown>;
  /** The whole config by top-level section, files as digests: for the log line. */
  readonly sections: Record<string, unknown>;
}

/** Top-level config sections whose content (or whose files' content) differs, for the reload's log line. */
export function changedSections(a: Fingerprint, b: Fingerprint): string[] {
  const keys = new Set([...Object.keys(a.sections), ...Object.keys(b.sections)]);
  return [...keys].filter((k) => !isDeepStrictEqual(a.sections[k], b.sections[k])).sort();
}

/** Reads every file the config names (a digest of each) and splits the config into its parts. */
export function fingerprint(config: Config): Fingerprint {
  const resolved = withFileContents(config);
  const options = resolveCollectorOptions(config);
  const collectors = Object.fromEntries(
    Object.entries(COLLECTOR_BLOCKS).map(([name, block]) => [name, { block: options[block], units: options.units }]),
  );
  const shared: Record<string, unknown> = { ...resolved };
  for (const key of [...IN_PLACE.server, ...IN_PLACE.log]) delete shared[key];
  // The bundled simulator is no job's part: with a real account nothing uses it, and while it serves as the
  // upstream a change to it is refused before anything is compared (reload.ts, a restart-only key).
  delete shared['simulator'];
  // Of the collectors' section only the jitter is the engine's; the rest is in each collector's part.
  shared['collectors'] = { jitter: config.collectors.defaults.jitter };
  const pick = (keys: readonly (keyof Config)[]): unknown[] => keys.map((key) => resolved[key]);
  return { shared, server: pick(IN_PLACE.server), log: pick(IN_PLACE.log), collectors, sections: resolved };
}

/** `value` with every `*_file` key's path paired with a digest of the file's content (or why it cannot be read). */
function withFileContents(value: unknown): Record<string, unknown> {
  const walk = (v: unknown, key: string): unknown => {
    if (typeof v === 'string' && key.endsWith('_file')) return { path: v, content: digest(v) };
    if (Array.isArray(v)) return v.map((item) => walk(item, ''));
    // Only plain objects are walked; anything else is compared as it is.
    if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype) return v;
    return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, walk(inner, k)]));
  };
  const out = walk(value, '');
  return typeof out === 'object' && out !== null ? { ...out } : {};
}

/** A digest, so no secret a file holds is kept beyond the comparison. */
function digest(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch (err) {
    return `unreadable: ${(err as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}
