// The seeded world: platform users, orders in every status around the seed's
// clock, and live-quality reports. Pure functions of the Rng, so one seed
// always builds the same world.
import type { PlatformClock } from '../../api/time.js';
import type { Rng } from '../rng.js';
import { CARRIERS, DAY_MS, PROVINCES } from './constants.js';
import type { NewOrder, PlatformUser, QualityReport } from './model.js';
import { activationTime, expiryTime } from './timing.js';

const NICKNAMES = ['小鹿', '星河', '阿杰', '夜猫子', '老王', '橙子', 'Mika', 'Aurora'];
const REPORT_MESSAGES = ['卡顿率偏高', '首屏时间过长', '画面清晰度下降', '推流中断', '音画不同步'];
const MINUTE_MS = 60_000;

/** At most 999 users: the index is the last three digits, which keeps uids unique. */
export function seedUsers(rng: Rng, count: number): PlatformUser[] {
  return Array.from({ length: count }, (_, i) => ({
    uid: String(rng.int(1000, 9999) * 1000 + i),
    platformId: String(rng.int(100_000, 999_999) * 1000 + i),
    // Every fourth user has no nickname, so a modify without one falls back to the joined default.
    nickName: i % 4 === 3 ? null : `${rng.pick(NICKNAMES)}${i}`,
  }));
}

type Kind = 'expired' | 'active' | 'notActivated';
const KINDS: readonly Kind[] = ['expired', 'active', 'notActivated'];

/**
 * One order for each of the first three quarters of the users, cycling through
 * the statuses at `now`; the last quarter is left free for new orders.
 */
export function seedOrders(rng: Rng, users: readonly PlatformUser[], now: number, tz: PlatformClock): NewOrder[] {
  const withOrders = users.slice(0, users.length - Math.floor(users.length / 4));
  return withOrders.map((user, i) => {
    const { createdAt, endDay } = seedWindow(rng, KINDS[i % KINDS.length] ?? 'active', now, tz);
    return {
      createdAt,
      activatesAt: activationTime(createdAt, tz),
      expiresAt: expiryTime(endDay),
      identity: user,
      source: rng.pick(CARRIERS),
      province: rng.pick(PROVINCES),
      isRenew: rng.chance(0.5),
    };
  });
}

function seedWindow(rng: Rng, kind: Kind, now: number, tz: PlatformClock): { createdAt: number; endDay: number } {
  const today = tz.startOfDay(now);
  switch (kind) {
    case 'expired': {
      const createdAt = now - rng.int(40, 60) * DAY_MS - rng.int(0, 1439) * MINUTE_MS;
      return { createdAt, endDay: activationTime(createdAt, tz) + rng.int(10, 25) * DAY_MS };
    }
    case 'active':
      return { createdAt: now - rng.int(5, 15) * DAY_MS - rng.int(0, 1439) * MINUTE_MS, endDay: today + rng.int(10, 20) * DAY_MS };
    case 'notActivated':
      // Anything created in the last half hour activates after `now`, whatever the time of day.
      return { createdAt: now - rng.int(0, 30) * MINUTE_MS, endDay: today + rng.int(30, 60) * DAY_MS };
  }
}

/** One to three reports per user over the 20 days before `now`, with consecutive integer IDs. */
export function seedReports(rng: Rng, users: readonly PlatformUser[], now: number, tz: PlatformClock): QualityReport[] {
  let dataId = rng.int(1000, 9000);
  const reports: QualityReport[] = [];
  for (const user of users) {
    for (let k = rng.int(1, 3); k > 0; k--) {
      const createdAt = tz.startOfDay(now) - rng.int(1, 20) * DAY_MS + rng.int(0, 1439) * MINUTE_MS;
      const date = tz.formatDate(createdAt);
      const id = dataId++;
      reports.push({
        dataId: id,
        uid: user.uid,
        image: `vq/${date}/${id}.png`,
        message: rng.pick(REPORT_MESSAGES),
        date,
        createTime: tz.formatDateTime(createdAt),
        createdAt,
      });
    }
  }
  return reports;
}
