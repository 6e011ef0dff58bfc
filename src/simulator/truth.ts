// Ground truth for tests: the values the simulator serves, read directly
// instead of over HTTP. Settled values are the final ones (what every bucket
// reports once it is older than the revision delay); `reported` gives what
// the API answers at a given instant. Truth is about what happened, in the
// simulator's time: readings change only the methods that say what the API
// shows (`reported`, `bandwidth`, the `revised*` family, which apply the
// lateRevision reading to the settled values, and `wafVisibility`, with
// `wafEvents`' visibleAt, which apply wafLateIngest).
import type { SimContext } from './context.js';
import type { BandwidthUnit, Readings } from './readings.js';
import { INTERVAL_MS, type Interval, type TrafficSample, type StatMetric } from './stats.js';
import { bandwidth, meanRequestTime, percentile95 } from './stats-series.js';
import type { WafEvent, WafVisibility } from './waf.js';

export interface Truth {
  readonly revisionDelayMs: number;
  /** The active readings. */
  readonly readings: Readings;
  /** Every domain name of the account, in world order. */
  domains(): string[];
  /** Start of the bucket of `interval` containing `ms`. */
  bucketStart(interval: Interval, ms: number): number;
  /** Settled counters of one bucket. */
  sample(domain: string, interval: Interval, start: number): TrafficSample;
  /** Settled value of one counter in one bucket. */
  bucket(domain: string, metric: StatMetric, interval: Interval, start: number): number;
  /**
   * The value the API reports for that bucket when the simulator clock reads
   * `now` (undefined: bucket not yet started), under the active readings: the
   * upstream answers at now − clockOffsetMs, and lateRevision applies.
   */
  reported(domain: string, metric: StatMetric, interval: Interval, start: number, now: number): number | undefined;
  /**
   * The value one bucket finally settles at under the active readings:
   * floor(bucket × factor) with lateRevision, bucket() without.
   */
  revised(domain: string, metric: StatMetric, interval: Interval, start: number): number;
  /** revised() of every counter of one bucket. */
  revisedSample(domain: string, interval: Interval, start: number): TrafficSample;
  /** revised() summed over the buckets of `interval` starting in [fromMs, toMs) (each bucket rounded down on its own, as the API does). */
  revisedDomainTotal(domain: string, metric: StatMetric, interval: Interval, fromMs: number, toMs: number): number;
  /** revisedDomainTotal summed over `domains` (default: all). */
  revisedTotal(metric: StatMetric, interval: Interval, fromMs: number, toMs: number, domains?: readonly string[]): number;
  /** Settled sum over the 1-minute buckets starting in [fromMs, toMs). */
  domainTotal(domain: string, metric: StatMetric, fromMs: number, toMs: number): number;
  /** domainTotal summed over `domains` (default: all). */
  total(metric: StatMetric, fromMs: number, toMs: number, domains?: readonly string[]): number;
  /** Settled request-weighted mean request time (ms, 2 decimals) of one bucket. */
  requestTime(domain: string, interval: Interval, start: number): number;
  /** Bandwidth of `bytes` over one bucket of `interval`, as the API computes it: in `unit`, default the bandwidthUnit reading (bits per second). */
  bandwidth(bytes: number, interval: Interval, unit?: BandwidthUnit): number;
  /** The API's 95th percentile (nearest rank). */
  percentile95(values: readonly number[]): number;
  /**
   * WAF log events with time in [fromMs, toMs), oldest first; with `visibleAt`,
   * only those the log query shows by then (wafVisibility(e).visibleFrom <= visibleAt,
   * so the wafLateIngest reading applies).
   */
  wafEvents(fromMs: number, toMs: number, opts?: { domains?: readonly string[]; visibleAt?: number }): WafEvent[];
  /** From when the log query shows `e` (logs and logTread alike), and whether the wafLateIngest reading made it late. */
  wafVisibility(e: WafEvent): WafVisibility;
}

export function createTruth(context: () => SimContext): Truth {
  const stats = () => context().stats;
  const readings = () => context().readings();
  const revisedDomainTotal = (domain: string, metric: StatMetric, interval: Interval, fromMs: number, toMs: number): number => {
    let sum = 0;
    for (let s = stats().alignDown(interval, fromMs); s < toMs; s += INTERVAL_MS[interval]) {
      if (s >= fromMs) sum += stats().settled(domain, interval, s)[metric];
    }
    return sum;
  };
  return {
    get revisionDelayMs() {
      return stats().revisionDelayMs;
    },
    get readings() {
      return readings();
    },
    domains: () => stats().domainNames(),
    bucketStart: (interval, ms) => stats().alignDown(interval, ms),
    sample: (domain, interval, start) => stats().bucket(domain, interval, start),
    bucket: (domain, metric, interval, start) => stats().bucket(domain, interval, start)[metric],
    reported: (domain, metric, interval, start, now) => stats().reported(domain, interval, start, now - readings().clockOffsetMs)?.[metric],
    revised: (domain, metric, interval, start) => stats().settled(domain, interval, start)[metric],
    revisedSample: (domain, interval, start) => stats().settled(domain, interval, start),
    revisedDomainTotal,
    revisedTotal: (metric, interval, fromMs, toMs, domains) =>
      (domains ?? stats().domainNames()).reduce((acc, d) => acc + revisedDomainTotal(d, metric, interval, fromMs, toMs), 0),
    domainTotal: (domain, metric, fromMs, toMs) => stats().sum(domain, fromMs, toMs)[metric],
    total: (metric, fromMs, toMs, domains) =>
      (domains ?? stats().domainNames()).reduce((acc, d) => acc + stats().sum(d, fromMs, toMs)[metric], 0),
    requestTime: (domain, interval, start) => meanRequestTime(stats().bucket(domain, interval, start)),
    bandwidth: (bytes, interval, unit) => bandwidth(bytes, interval, unit ?? readings().bandwidthUnit),
    percentile95,
    wafEvents: (fromMs, toMs, opts) => context().waf.events(fromMs, toMs, opts),
    wafVisibility: (e) => context().waf.visibility(e),
  };
}
