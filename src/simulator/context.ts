// What the operation handlers share: the mutable world, the computed
// statistics and WAF logs built from it, the platform time zone, and the
// readings (how the upstream answers where the document is silent).
import type { PlatformClock } from '../api/time.js';
import type { Readings } from './readings.js';
import type { Stats } from './stats.js';
import type { WafLog } from './waf.js';
import type { World } from './world.js';

export interface SimContext {
  readonly world: World;
  readonly stats: Stats;
  readonly waf: WafLog;
  /** The platform zone: everything the upstream writes. */
  readonly tz: PlatformClock;
  /** What request `yyyy-MM-dd HH:mm:ss` fields are read with (the paramsZone reading). */
  readonly requestTz: PlatformClock;
  /** The current readings (read per request: they change at run time). */
  readonly readings: () => Readings;
}
