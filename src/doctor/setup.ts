// What a doctor run asks, read from the resolved config: which collectors are
// enabled (so only their operations are called), at which intervals, with
// which delay, units, zone and paths. Pure.
import { OPERATIONS, platformClock, type Interval, type OperationName, type PlatformClock } from '../api/index.js';
import { delayMs, resolveCollectorOptions, wafOverlap, type CollectorsConfig, type Config } from '../config/index.js';
import type { BandwidthUnit } from '../collectors/units.js';
import { wafQuery, type WafQuery } from '../forwarder/fetch.js';

export type StatsCollector = 'access' | 'usage';
export type StatsOperation = 'describeL7DataV2' | 'describeL7Data' | 'describeL7UsageData';

/** A statistics collector and the operation it reads. */
export interface StatsSource {
  readonly collector: StatsCollector;
  readonly operation: StatsOperation;
  readonly interval: Interval;
  /** The collector's resolved delay (its own or collectors.defaults.delay), ms. */
  readonly delayMs: number;
}

/** The config as a doctor run reads it: what it asks about, and how the daemon would. */
export interface DoctorSetup {
  /** upstream.timezone: how the daemon writes request times and reads the upstream's. */
  readonly tz: PlatformClock;
  /** The zone the probes write request times in: upstream.timezone until the timezone check finds the upstream reads another. */
  readonly requestTz: PlatformClock;
  /** upstream.timezone as configured, e.g. +08:00. */
  readonly timezone: string;
  readonly bandwidthUnit: BandwidthUnit;
  /** Enabled statistics collectors; the first also answers the range, clock and zone probes. */
  readonly stats: readonly StatsSource[];
  readonly wafTrend: { readonly interval: Interval } | undefined;
  /** WAF `logs` are read when either WAF collector (trend or event forwarding) is enabled. */
  readonly wafLogs: boolean;
  /** The WAF event forwarder, when enabled: its query, the age at which its final pass reads a range, and whether its audit runs. */
  readonly wafEvents: { readonly query: WafQuery; readonly finalPassMs: number; readonly audit: boolean } | undefined;
  readonly inventory: { readonly details: boolean } | undefined;
  readonly topn: {
    readonly interval: Interval;
    readonly dimension: CollectorsConfig['topn']['dimensions'][number];
    readonly by: CollectorsConfig['topn']['by'][number];
  } | undefined;
  readonly ccAttack: { readonly interval: Interval } | undefined;
  /** The path each operation is sent to: upstream.paths, else the built-in default. */
  readonly paths: Readonly<Record<OperationName, string>>;
  /** collectors.defaults.delay, ms. */
  readonly defaultDelayMs: number;
  readonly audit: { readonly every: number; readonly lookback: number };
}

export function setupFrom(config: Config): DoctorSetup {
  const r = resolveCollectorOptions(config);
  const stats: StatsSource[] = [];
  if (r.access.enabled) {
    stats.push({
      collector: 'access', operation: r.access.api === 'v1' ? 'describeL7Data' : 'describeL7DataV2',
      interval: r.access.interval, delayMs: r.access.delay,
    });
  }
  if (r.usage.enabled) stats.push({ collector: 'usage', operation: 'describeL7UsageData', interval: r.usage.interval, delayMs: r.usage.delay });
  const paths = Object.fromEntries(
    Object.values(OPERATIONS).map((spec) => [spec.name, config.upstream.paths[spec.name] ?? spec.path]),
  ) as Record<OperationName, string>;
  const [dimension] = r.topn.dimensions;
  const [by] = r.topn.by;
  const tz = platformClock(config.upstream.timezone);
  return {
    tz,
    requestTz: tz,
    timezone: config.upstream.timezone,
    bandwidthUnit: r.units.bandwidth,
    stats,
    wafTrend: r.waf_trend.enabled ? { interval: r.waf_trend.interval } : undefined,
    wafLogs: r.waf_trend.enabled || config.waf_events.enabled,
    wafEvents: config.waf_events.enabled
      ? { query: wafQuery(config.waf_events), finalPassMs: config.waf_events.delay + wafOverlap(config.waf_events).overlapMs, audit: config.waf_events.audit.enabled }
      : undefined,
    inventory: r.inventory.enabled ? { details: r.inventory.details } : undefined,
    topn: r.topn.enabled && dimension !== undefined && by !== undefined ? { interval: r.topn.interval, dimension, by } : undefined,
    ccAttack: r.cc_attack.enabled ? { interval: r.cc_attack.interval } : undefined,
    paths,
    defaultDelayMs: delayMs(config.collectors.defaults.delay),
    audit: { every: config.collectors.defaults.audit.every, lookback: config.collectors.defaults.audit.lookback },
  };
}
