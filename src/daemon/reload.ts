// What a reload may change. Most of the config is re-applied by building the
// engine and its jobs again over the same state directory; a few keys are
// bound to what lives for the whole process (the listening socket, the state
// directory and its lock, the shard that directory belongs to, the bundled
// simulator and its world), so a reload that changes one is refused, naming
// it, and the daemon keeps its running config. A restart applies them.
import { isDeepStrictEqual } from 'node:util';
import type { Config } from '../config/index.js';

/** A reload refused before anything was stopped; the message says why. */
export class ReloadRefusedError extends Error {
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
export function restartOnlyChanges(running: Config, next: Config, listenOverridden: boolean): string[] {
  return FIXED.filter((f) => !(listenOverridden && f.key === 'server.listen'))
    .filter((f) => (f.when?.(running) ?? true) && !isDeepStrictEqual(f.value(running), f.value(next)))
    .map((f) => `${f.key}: ${f.why ?? 'changed; it is applied only by a restart'}`);
}

/** Top-level config sections whose content differs, for the reload's log line. */
export function changedSections(running: Config, next: Config): string[] {
  const keys = new Set([...Object.keys(running), ...Object.keys(next)]) as Set<keyof Config>;
  return [...keys].filter((k) => !isDeepStrictEqual(running[k], next[k])).sort();
}
