// What the operation handlers share: the mutable world, the computed
// statistics and WAF logs built from it, and the platform time zone.
import type { PlatformClock } from '../api/time.js';
import type { Stats } from './stats.js';
import type { WafLog } from './waf.js';
import type { World } from './world.js';

export interface SimContext {
  readonly world: World;
  readonly stats: Stats;
  readonly waf: WafLog;
  readonly tz: PlatformClock;
}
