// Collector options as the collectors take them: each block of `collectors:`
// with `collectors.defaults` merged in, so no collector reads the defaults or
// falls back with `??` chains of its own. Pure; keys stay as written in YAML,
// durations are milliseconds (as everywhere past the schema).
import { DEFAULT_UNITS, type BandwidthUnit, type RequestTimeUnit } from './sections/units.js';
import { AUTO_DELAY_BOUNDS, type CollectorsConfig } from './sections/collectors.js';

/**
 * Config keys of the collectors, snake_case like every YAML key. A collector's
 * name, which is its `collector` label, its log field and its state file
 * (`ledger-<name>.json`), is the key with each `_` written `-` (`cc_attack`
 * runs as `cc-attack`): names already on dashboards, in alerts and in state
 * directories, kept as they are (test/daemon/collectors.test.ts holds the rule).
 */
export const COLLECTOR_KEYS = ['access', 'usage', 'topn', 'cc_attack', 'waf_trend', 'inventory'] as const;

/** The audit of a collector, collectors.defaults.audit with the block's keys over it; durations in ms. */
interface AuditOptions {
  readonly every: number;
  readonly lookback: number;
  readonly correct: boolean;
}

/** The keys a bucketed collector may override; after resolution they are always present. */
type Inherited = 'delay' | 'max_backfill' | 'timestamps' | 'audit';
type WithDefaults<B> = Omit<B, Inherited> & {
  readonly audit: AuditOptions;
  /** Milliseconds; the block's value or collectors.defaults.delay; under `auto`, the delay it starts at. */
  readonly delay: number;
  /** `delay: auto`: the bounds the audit's suggestion is put in force within; undefined for a fixed delay. */
  readonly auto_delay: { readonly floorMs: number; readonly ceilingMs: number } | undefined;
  /** Milliseconds; the block's value or collectors.defaults.max_backfill. */
  readonly max_backfill: number;
  readonly timestamps: boolean;
};

export type AccessOptions = WithDefaults<CollectorsConfig['access']>;
export type UsageOptions = WithDefaults<CollectorsConfig['usage']>;
export type TopnOptions = WithDefaults<CollectorsConfig['topn']>;
export type CcAttackOptions = WithDefaults<CollectorsConfig['cc_attack']>;
export type WafTrendOptions = WithDefaults<CollectorsConfig['waf_trend']>;
/** Inventory is not bucketed: nothing to inherit, `interval` is a duration in ms. */
export type InventoryOptions = CollectorsConfig['inventory'];

/** upstream.units: what the upstream's values are in where the document does not say. */
export interface UnitOptions {
  readonly bandwidth: BandwidthUnit;
  readonly request_time: RequestTimeUnit;
}

export interface ResolvedCollectorOptions {
  readonly units: UnitOptions;
  readonly access: AccessOptions;
  readonly usage: UsageOptions;
  readonly topn: TopnOptions;
  readonly cc_attack: CcAttackOptions;
  readonly waf_trend: WafTrendOptions;
  readonly inventory: InventoryOptions;
}

/** Every collector block with collectors.defaults merged in (a block's own value wins). */
export function resolveCollectorOptions(config: {
  readonly collectors: CollectorsConfig;
  readonly upstream?: { readonly units?: UnitOptions };
}): ResolvedCollectorOptions {
  const { defaults, access, usage, topn, cc_attack, waf_trend, inventory } = config.collectors;
  type Block = { delay?: number | 'auto'; max_backfill?: number; timestamps?: boolean; audit?: Partial<AuditOptions> | undefined };
  const inherit = <B extends Block>(block: B): WithDefaults<B> => ({
    ...block,
    delay: delayMs(block.delay ?? defaults.delay),
    auto_delay: (block.delay ?? defaults.delay) === 'auto' ? AUTO_DELAY_BOUNDS : undefined,
    max_backfill: block.max_backfill ?? defaults.max_backfill,
    timestamps: block.timestamps ?? defaults.timestamps,
    audit: {
      every: block.audit?.every ?? defaults.audit.every,
      lookback: block.audit?.lookback ?? defaults.audit.lookback,
      correct: block.audit?.correct ?? defaults.audit.correct,
    },
  });
  return {
    units: config.upstream?.units ?? DEFAULT_UNITS,
    access: inherit(access),
    usage: inherit(usage),
    topn: inherit(topn),
    cc_attack: inherit(cc_attack),
    waf_trend: inherit(waf_trend),
    inventory: { ...inventory },
  };
}

/** A delay as configured, in ms: `auto` starts at the floor of its bounds. */
export function delayMs(delay: number | 'auto'): number {
  return delay === 'auto' ? AUTO_DELAY_BOUNDS.floorMs : delay;
}
