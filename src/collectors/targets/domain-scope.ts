// Which domains a sharded replica forwards WAF events for: the same partition
// as the metric collectors (shard.ts), so every event is forwarded by exactly
// one replica. The list is asked at the start of every poll because discovery
// refreshes it; an empty share must never reach the query, where `domains: []`
// means every domain of the account. The forwarder sees only the scope
// (`domains(now)`), never the shard.
import { ownedBy, type Shard } from './shard.js';
import type { TargetSource } from './discovery.js';

/** The domains to read at `now`, structurally the forwarder's WafDomainScope. */
interface DomainScope {
  domains(now: number, signal: AbortSignal): Promise<readonly string[]>;
}

interface DomainScopeOptions {
  readonly shard: Shard;
  /** waf_events.domains; absent or empty: every domain (the shard's share of the discovered targets). */
  readonly configured?: readonly string[] | undefined;
  /** Target discovery, shared with the metric collectors (its refresh is joined, not repeated). */
  readonly targets: TargetSource;
}

/**
 * The scope of a sharded replica; undefined when unsharded (the query is then
 * exactly waf_events as configured). A configured list is split by the hash
 * itself, as an unsharded replica reads it whatever `targets` says; otherwise
 * the shard reads the domains discovery gave it, [] when it owns none. Throws
 * while the domains could never be listed, so the poll fails and the
 * checkpoint stays where it is.
 */
export function domainScope(options: DomainScopeOptions): DomainScope | undefined {
  const { shard, configured, targets } = options;
  if (shard.count === 1) return undefined;
  if (configured && configured.length > 0) {
    const share = configured.filter(ownedBy(shard));
    return { domains: () => Promise.resolve(share) };
  }
  return {
    async domains(now, signal) {
      await targets.refreshIfDue(now, signal);
      const missing = targets.unavailable('domains');
      if (missing !== undefined) throw missing;
      return targets.current().domains;
    },
  };
}
