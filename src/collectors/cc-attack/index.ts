// The CC-attack collector: attack requests as a counter (account-wide, or
// per domain with `perDomain`), and whatever of attack_detail and the
// domain / user-agent rankings the answer holds as summary-window gauges.
// Account-wide it is one describeL7CCAttack per cycle with every metricName;
// per domain, one per domain for the trend plus one account-wide for the gauges.
// The per-domain counter covers the cycle's domains, while whatever is
// account-wide (the account counter, the peak and ranking gauges, none of them
// additive over parts of the account) covers every domain (`targets.all` when
// the cycle's lists are a share), and only where `accountGauges` is on.
import type { Collector, CollectContext, CollectOutput } from '../collector.js';
import { driveSeries, seriesCollector, type CounterSpec, type SeriesOptions, type SeriesState, type SeriesTarget } from '../series/index.js';
import { ccCounter, ccMetrics, convertCc } from './convert.js';
import { ccSender } from './fetch.js';
import { CC_ATTACK_REQUESTS, CC_ATTACK_REQUESTS_BY_DOMAIN, CC_GAUGES } from './metrics.js';
import type { CcParsed } from './parse.js';

export * from './metrics.js';

export interface CcAttackOptions extends SeriesOptions {
  /** One counter series per domain (one request per domain) instead of one account-wide series. */
  readonly perDomain: boolean;
  /** Window of the attack_detail and ranking gauges, ending now (rounded down to a bucket boundary). */
  readonly summaryWindowMs: number;
  /** Produce the account-wide gauges (default true); off where another replica produces them (collectors/targets/placement.ts). */
  readonly accountGauges?: boolean;
}

export function createCcAttackCollector(options: CcAttackOptions): Collector {
  return seriesCollector({
    name: 'cc-attack',
    targets: ['domains'],
    operations: ['describeL7CCAttack'],
    families: [options.perDomain ? CC_ATTACK_REQUESTS_BY_DOMAIN : CC_ATTACK_REQUESTS, ...(options.accountGauges === false ? [] : CC_GAUGES)],
  }, options, (ctx, state) => collect(ctx, options, state), ({ domains }) => {
    // As collect() builds its targets: account-wide one request; per domain the account's gauges plus one per own domain.
    if (domains === 0) return { requests: 0, counted: 0 };
    const counted = options.perDomain ? domains : 1;
    return { requests: options.perDomain ? (options.accountGauges === false ? 0 : 1) + domains : 1, counted };
  });
}

/** Account-wide or one domain's: the domains its request names, and the gauges read from its main answer. */
interface CcTarget extends SeriesTarget<CcParsed> {
  readonly domains: readonly string[];
  readonly gaugeFamilies: readonly string[];
}

function collect(ctx: CollectContext, options: CcAttackOptions, state: SeriesState): Promise<CollectOutput> {
  const gaugeFamilies = options.accountGauges === false ? [] : CC_GAUGES.filter((f) => ctx.enabled(f.name)).map((f) => f.name);
  const counter = ctx.enabled(CC_ATTACK_REQUESTS.name);
  // Every selected domain, and the cycle's own share of them.
  const all = (ctx.targets.all ?? ctx.targets).domains;
  const own = ctx.targets.domains;
  const target = (labels: Record<string, string>, domains: readonly string[], specs: CounterSpec<CcParsed>[], families: readonly string[]): CcTarget => ({
    labels, domains, specs, gaugeFamilies: families, gauges: families.length > 0, gaugeWindowMs: families.length > 0 ? options.summaryWindowMs : undefined,
    send: ccSender({ client: ctx.client, tz: ctx.tz, signal: ctx.signal, interval: options.interval, domains }, ccMetrics(specs.length > 0, families)),
  });
  // Account-wide: one target with everything. Per domain: the gauges account-wide, the counter per domain.
  const targets = options.perDomain
    ? [target({}, all, [], gaugeFamilies), ...(counter ? own.map((d) => target({ domain: d }, [d], [ccCounter(d)], [])) : [])]
    : [target({}, all, counter ? [ccCounter()] : [], gaugeFamilies)];
  // No domain selected means nothing to ask ([] would mean every domain of the account).
  const active = targets.filter((u) => u.domains.length > 0 && (u.specs.length > 0 || u.gaugeFamilies.length > 0));
  return driveSeries<CcParsed, CcTarget>(ctx, options, state, {
    collector: 'cc-attack', log: ctx.log, gaugeFamilies, targets: active,
    convert: (t, answers, { currentBucket }, log) => {
      for (const piece of answers.pieces) {
        if (piece.answer && piece.answer.issues.length > 0) log.debug({ issues: piece.answer.issues }, 'unrecognised CC attack items skipped');
      }
      return convertCc({ ...answers, gauges: { windowBucket: currentBucket, timestamps: options.timestamps, families: t.gaugeFamilies } });
    },
  });
}
