// Layer-7 statistics, computed on demand and never stored. Every 1-minute
// value of a domain is a pure function of (seed, domain, minute), so any bucket
// can be recomputed at any time and the ground truth tests read is exactly what
// the API serves. Coarser buckets are sums of their minutes. A bucket near "now"
// is reported only partially and revised upward until it settles (late data).
import { INTERVAL_MS } from '../api/schemas/common.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, type PlatformClock } from '../api/time.js';
import type { LateRevision } from './readings.js';
import { hash32, Rng, unit } from './rng.js';
import { ArgumentError } from '../shared/errors.js';

export const INTERVALS = ['1m', '5m', '1h', '1d'] as const;
export type Interval = (typeof INTERVALS)[number];

export { INTERVAL_MS };

/**
 * Base counters per bucket. All are integers and all add up across minutes and
 * domains; averages (request time) are derived from sums at the edge.
 * bytesSent = edge (access) traffic out, upstreamBytesSent = origin traffic,
 * inBytes = inbound traffic, requestTimeSum = total request duration in ms,
 * ccAttacks = requests classified as CC attack.
 */
export const STAT_METRICS = [
  'requests', 'status1xx', 'status2xx', 'status3xx', 'status4xx', 'status5xx',
  'bytesSent', 'upstreamBytesSent', 'inBytes', 'requestTimeSum', 'ccAttacks',
] as const;
export type StatMetric = (typeof STAT_METRICS)[number];
export type TrafficSample = Record<StatMetric, number>;

// Written out field by field: these two run for every minute of every query.
export function zeroSample(): TrafficSample {
  return {
    requests: 0, status1xx: 0, status2xx: 0, status3xx: 0, status4xx: 0, status5xx: 0,
    bytesSent: 0, upstreamBytesSent: 0, inBytes: 0, requestTimeSum: 0, ccAttacks: 0,
  };
}

export function addInto(target: TrafficSample, add: Readonly<TrafficSample>): TrafficSample {
  target.requests += add.requests;
  target.status1xx += add.status1xx;
  target.status2xx += add.status2xx;
  target.status3xx += add.status3xx;
  target.status4xx += add.status4xx;
  target.status5xx += add.status5xx;
  target.bytesSent += add.bytesSent;
  target.upstreamBytesSent += add.upstreamBytesSent;
  target.inBytes += add.inBytes;
  target.requestTimeSum += add.requestTimeSum;
  target.ccAttacks += add.ccAttacks;
  return target;
}

interface StatsDomain {
  readonly domainName: string;
  /** Only active domains ('1') serve traffic; configuring and paused ones report zeros. */
  readonly isActive: string;
}

interface StatsOptions {
  seed: number;
  domains: readonly StatsDomain[];
  tz: PlatformClock;
  /** How long after a bucket ends its value keeps being revised (default 3 minutes). */
  revisionDelayMs?: number;
  /** The lateRevision reading, read at every call (default: none). */
  lateRevision?: () => LateRevision | undefined;
}

interface Profile {
  readonly key: number;
  readonly active: boolean;
  /** Position among the account's active domains, and their number: who the CC campaign targets (ccAttacks). */
  readonly activeIndex: number;
  readonly activeCount: number;
  /** The account's campaign key (seed only): the same for every domain. */
  readonly campaignKey: number;
  readonly rpm: number;
  readonly avgBytes: number;
  readonly missRatio: number;
  readonly inPerRequest: number;
  readonly requestMs: number;
}

/** Bounded so a long soak cannot grow the memo without limit. */
const HOUR_MEMO_LIMIT = 100_000;

export class Stats {
  readonly revisionDelayMs: number;
  readonly tz: PlatformClock;
  private readonly profiles = new Map<string, Profile>();
  private readonly hourMemo = new Map<string, TrafficSample>();
  private readonly lateRevision: () => LateRevision | undefined;

  constructor(options: StatsOptions) {
    this.tz = options.tz;
    this.lateRevision = options.lateRevision ?? (() => undefined);
    this.revisionDelayMs = options.revisionDelayMs ?? 180_000;
    if (!(this.revisionDelayMs >= 0)) throw new ArgumentError('revisionDelayMs must be >= 0');
    const active = options.domains.filter((d) => d.isActive === '1').map((d) => d.domainName);
    const campaign = { key: hash32(options.seed, 'cc-campaign'), active };
    for (const d of options.domains) this.profiles.set(d.domainName, profile(options.seed, d, campaign));
  }

  /** Every domain of the account, in world order. */
  domainNames(): string[] {
    return [...this.profiles.keys()];
  }

  has(domain: string): boolean {
    return this.profiles.has(domain);
  }

  /** Start of the bucket containing `ms`: epoch-aligned for 1m/5m/1h, platform midnight for 1d. */
  alignDown(interval: Interval, ms: number): number {
    if (interval === '1d') return this.tz.startOfDay(ms);
    const len = INTERVAL_MS[interval];
    return Math.floor(ms / len) * len;
  }

  /** The settled value of one 1-minute bucket (a zero sample for unknown domains). */
  minute(domain: string, start: number): TrafficSample {
    const p = this.profiles.get(domain);
    return p ? minuteSample(p, Math.floor(start / MINUTE_MS) * MINUTE_MS, this.tz.offsetMinutes) : zeroSample();
  }

  /** Settled sum over the 1-minute buckets starting in [from, to). */
  sum(domain: string, from: number, to: number): TrafficSample {
    const total = zeroSample();
    let t = Math.ceil(from / MINUTE_MS) * MINUTE_MS;
    while (t < to) {
      if (t % HOUR_MS === 0 && t + HOUR_MS <= to) {
        addInto(total, this.hour(domain, t));
        t += HOUR_MS;
      } else {
        addInto(total, this.minute(domain, t));
        t += MINUTE_MS;
      }
    }
    return total;
  }

  /** Settled value of the bucket of `interval` containing `start` (normally its start). */
  bucket(domain: string, interval: Interval, start: number): TrafficSample {
    const from = this.alignDown(interval, start);
    return this.sum(domain, from, from + INTERVAL_MS[interval]);
  }

  /**
   * The value the bucket finally settles at under the lateRevision reading:
   * floor(value × factor) per counter with it, the settled value without.
   */
  settled(domain: string, interval: Interval, start: number): TrafficSample {
    const final = this.bucket(domain, interval, start);
    const late = this.lateRevision();
    return late ? revised(final, late.factor) : final;
  }

  /**
   * What the API reports for a bucket at `now`: absent before the bucket
   * starts; value × (now − start)/(end + delay − start), rounded down per
   * counter, until end + delay; the settled value from then on. With the
   * lateRevision reading, from afterMs past the end on: floor(settled × factor).
   */
  reported(domain: string, interval: Interval, start: number, now: number): TrafficSample | undefined {
    if (start > now) return undefined;
    const final = this.bucket(domain, interval, start);
    const end = start + INTERVAL_MS[interval];
    const late = this.lateRevision();
    if (late && now - end >= late.afterMs) return revised(final, late.factor);
    const settleAt = end + this.revisionDelayMs;
    if (now >= settleAt) return final;
    const f = (now - start) / (settleAt - start);
    const out = zeroSample();
    for (const m of STAT_METRICS) out[m] = Math.floor(final[m] * f);
    return out;
  }

  private hour(domain: string, start: number): TrafficSample {
    const key = `${domain}|${start}`;
    const hit = this.hourMemo.get(key);
    if (hit) return hit;
    const total = zeroSample();
    for (let t = start; t < start + HOUR_MS; t += MINUTE_MS) addInto(total, this.minute(domain, t));
    if (this.hourMemo.size >= HOUR_MEMO_LIMIT) this.hourMemo.clear();
    this.hourMemo.set(key, total);
    return total;
  }
}

function revised(final: Readonly<TrafficSample>, factor: number): TrafficSample {
  const out = zeroSample();
  for (const m of STAT_METRICS) out[m] = Math.floor(final[m] * factor);
  return out;
}

function profile(seed: number, d: StatsDomain, campaign: { readonly key: number; readonly active: readonly string[] }): Profile {
  const u = (k: string): number => unit(seed, d.domainName, k);
  return {
    key: hash32(seed, d.domainName, 'stats'),
    active: d.isActive === '1',
    activeIndex: campaign.active.indexOf(d.domainName),
    activeCount: campaign.active.length,
    campaignKey: campaign.key,
    rpm: Math.round(200 + 5800 * u('rpm') ** 2),
    avgBytes: Math.round(8_000 + 290_000 * u('size')),
    missRatio: 0.03 + 0.27 * u('miss'),
    inPerRequest: Math.round(300 + 1200 * u('in')),
    requestMs: Math.round(20 + 380 * u('rt')),
  };
}

/** Load by platform-local hour of day: lowest around 03:00, highest around 15:00-21:00. */
function diurnal(ms: number, offsetMinutes: number): number {
  const hour = (((ms + offsetMinutes * MINUTE_MS) % DAY_MS) + DAY_MS) % DAY_MS / HOUR_MS;
  const s = 0.5 - 0.5 * Math.cos((2 * Math.PI * (hour - 3)) / 24);
  return 0.25 + 0.75 * Math.sqrt(s);
}

function minuteSample(p: Profile, start: number, offsetMinutes: number): TrafficSample {
  const s = zeroSample();
  if (!p.active) return s;
  const r = new Rng(mixInts(p.key, start / MINUTE_MS));
  const req = Math.floor(p.rpm * diurnal(start, offsetMinutes) * (0.85 + 0.3 * r.next()));
  s.requests = req;
  s.status1xx = Math.floor(req * 0.002 * r.next());
  s.status3xx = Math.floor(req * (0.05 + 0.06 * r.next()));
  s.status4xx = Math.floor(req * (0.01 + 0.04 * r.next()));
  // A rare minute with an origin outage gives alerting something to see.
  s.status5xx = Math.floor(req * (r.chance(0.01) ? 0.2 : 0.001 + 0.01 * r.next()));
  s.status2xx = req - s.status1xx - s.status3xx - s.status4xx - s.status5xx;
  s.bytesSent = Math.floor(req * p.avgBytes * (0.8 + 0.4 * r.next()));
  s.upstreamBytesSent = Math.floor(s.bytesSent * p.missRatio * (0.7 + 0.6 * r.next()));
  s.inBytes = Math.floor(req * p.inPerRequest * (0.9 + 0.2 * r.next()));
  s.requestTimeSum = Math.floor(req * p.requestMs * (0.8 + 0.5 * r.next()));
  s.ccAttacks = ccAttacks(p, start);
  return s;
}

/**
 * CC attacks come in bursts: some hours hold one 3-10 minute attack of steady
 * intensity; on top of those, a campaign attacks one active domain (picked
 * per quarter hour) for 3-6 minutes of every quarter hour, so an account
 * never goes half an hour without an attack and a demo's CC panels fill.
 */
function ccAttacks(p: Profile, start: number): number {
  return burst(p, start) + campaign(p, start);
}

const QUARTER_MS = 15 * MINUTE_MS;

function campaign(p: Profile, start: number): number {
  if (p.activeCount === 0) return 0;
  const quarter = Math.floor(start / QUARTER_MS);
  const q = new Rng(mixInts(p.campaignKey, quarter));
  if (q.int(0, p.activeCount - 1) !== p.activeIndex) return 0;
  const length = q.int(3, 6);
  const first = q.int(0, 15 - length);
  const intensity = q.int(300, 3000);
  const minute = (start % QUARTER_MS) / MINUTE_MS;
  if (minute < first || minute >= first + length) return 0;
  return Math.floor(intensity * (0.7 + 0.6 * (mixInts(p.key ^ 0x6ca6ca6c, start / MINUTE_MS) / 4294967296)));
}

function burst(p: Profile, start: number): number {
  const hourIndex = Math.floor(start / HOUR_MS);
  const h = new Rng(mixInts(p.key ^ 0x5cc5cc5c, hourIndex));
  if (!h.chance(0.12)) return 0;
  const first = h.int(0, 50);
  const length = h.int(3, 10);
  const intensity = h.int(200, 5000);
  const minute = (start % HOUR_MS) / MINUTE_MS;
  if (minute < first || minute >= first + length) return 0;
  return Math.floor(intensity * (0.7 + 0.6 * (mixInts(p.key ^ 0x3c3c3c3c, start / MINUTE_MS) / 4294967296)));
}

/** A fast integer hash of (key, index) for the per-minute hot path (no string building). */
function mixInts(key: number, index: number): number {
  let h = (key ^ Math.imul(index | 0, 0x9e3779b1) ^ Math.imul(Math.floor(index / 4294967296), 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}
