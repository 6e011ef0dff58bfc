// Collectors turn the upstream's time series into plain samples: the families,
// the series driver that counts them, the contract checks and the targets
// they ask about, with everything sharding decides (targets/). The engine
// (src/engine) runs them; the exporters see only this surface, the daemon this
// and each family folder's own index.ts (lint keeps them to it:
// FORBIDDEN_WITHIN in eslint.config.js).
export type * from './collector.js';
export { MetricFilter } from './filter.js';
export { TargetForgetter } from './targets/forget.js';
export { TargetDiscovery, discoveryRequests, type DiscoveryClient } from './targets/discovery.js';
export { UNSHARDED, type Shard } from './targets/shard.js';
export { holdsAccount, placeCollectors, type Placement } from './targets/placement.js';
export { claimStateDir } from './targets/state-owner.js';
export { domainScope } from './targets/domain-scope.js';
export { CONTRACT_CHECKS } from './contract/checks.js';
export { REJECT_REASONS } from './rejects.js';
export { seriesKey, type Labels } from './series/keys.js';
