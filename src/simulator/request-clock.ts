// The clock request times are read with. The paramsZone reading makes the
// upstream read `yyyy-MM-dd HH:mm:ss` request fields in another UTC offset
// while everything it writes (and plain dates) stays in the platform zone, so
// only parseDateTime changes; it follows the reading at every call.
import { platformClock, type PlatformClock } from '../api/time.js';
import type { Readings } from './readings.js';

export function requestClock(platform: PlatformClock, readings: () => Readings): PlatformClock {
  const zones = new Map<string, PlatformClock>();
  const zone = (): PlatformClock => {
    const name = readings().paramsZone;
    if (name === undefined) return platform;
    let clock = zones.get(name);
    if (!clock) {
      clock = platformClock(name);
      zones.set(name, clock);
    }
    return clock;
  };
  return { ...platform, parseDateTime: (text) => zone().parseDateTime(text) };
}
