// Ground truth for tests: the values the simulator serves, read directly
// instead of over HTTP. Settled values are the final ones (what every bucket
// reports once it is older than the revision delay); `reported` gives what
// the API answers at a given instant.
import type { SimContext } from './context.js';
import type { Interval, Sample, StatMetric } from './stats.js';
import { bandwidth, meanRequestTime, percentile95 } from './stats-series.js';
import type { WafEvent } from './waf.js';

export interface Truth {
  readonly revisionDelayMs: number;
  /** Every domain name of the account, in world order. */
  domains(): string[];
  /** Start of the bucket of `interval` containing `ms`. */
  bucketStart(interval: Interval, ms: number): number;
  /** Settled counters of one bucket. */
  sample(domain: string, interval: Interval, start: number): Sample;
  /** Settled value of one counter in one bucket. */
  bucket(domain: string, metric: StatMetric, interval: Interval, start: number): number;
  /** The value the API reports for that bucket at `now` (undefined: bucket not yet started). */
  reported(domain: string, metric: StatMetric, interval: Interval, start: number, now: number): number | undefined;
  /** Settled sum over the 1-minute buckets starting in [fromMs, toMs). */
  domainTotal(domain: string, metric: StatMetric, fromMs: number, toMs: number): number;
  /** domainTotal summed over `domains` (default: all). */
  total(metric: StatMetric, fromMs: number, toMs: number, domains?: readonly string[]): number;
  /** Settled request-weighted mean request time (ms, 2 decimals) of one bucket. */
  requestTime(domain: string, interval: Interval, start: number): number;
  /** Bits per second for `bytes` over one bucket of `interval`, as the API computes it. */
  bandwidth(bytes: number, interval: Interval): number;
  /** The API's 95th percentile (nearest rank). */
  percentile95(values: readonly number[]): number;
  /**
   * WAF log events with time in [fromMs, toMs), oldest first; with `visibleAt`,
   * only those ingested by then (time + lag <= visibleAt).
   */
  wafEvents(fromMs: number, toMs: number, opts?: { domains?: readonly string[]; visibleAt?: number }): WafEvent[];
}

export function createTruth(context: () => SimContext): Truth {
  const stats = () => context().stats;
  return {
    get revisionDelayMs() {
      return stats().revisionDelayMs;
    },
    domains: () => stats().domainNames(),
    bucketStart: (interval, ms) => stats().alignDown(interval, ms),
    sample: (domain, interval, start) => stats().bucket(domain, interval, start),
    bucket: (domain, metric, interval, start) => stats().bucket(domain, interval, start)[metric],
    reported: (domain, metric, interval, start, now) => stats().reported(domain, interval, start, now)?.[metric],
    domainTotal: (domain, metric, fromMs, toMs) => stats().sum(domain, fromMs, toMs)[metric],
    total: (metric, fromMs, toMs, domains) =>
      (domains ?? stats().domainNames()).reduce((acc, d) => acc + stats().sum(d, fromMs, toMs)[metric], 0),
    requestTime: (domain, interval, start) => meanRequestTime(stats().bucket(domain, interval, start)),
    bandwidth,
    percentile95,
    wafEvents: (fromMs, toMs, opts) => context().waf.events(fromMs, toMs, opts),
  };
}
