// The CC-attack collector: attack requests as a counter (account-wide, or
// per domain with `perDomain`), and whatever of attack_detail and the
// domain / user-agent rankings the response holds as summary-window gauges.
// Account-wide it is one describeL7CCAttack per cycle with every metricName;
// per domain, one per domain for the trend plus one account-wide for the gauges.
// Sharded, the per-domain counter covers this shard's domains, while whatever
// is account-wide (the account counter, the peak and ranking gauges, none of
// them additive across shards) covers every domain and runs where the
// registry places it: shard 0 (`accountGauges` off elsewhere).
import type { Collector, CollectContext, CollectOutput, CollectorLogger } from '../types.js';
import {
  assemble, audited, AuditBook, checkSeriesOptions, upstreamClock, logUncovered, NO_AUDIT, nonNegative, runTrendTarget, type CounterSpec, type Labels, type SeriesOptions, type TargetResult,
  type Tally, type TimeSpan, type TrendTargetRun, type UpstreamClock,
} from '../series/index.js';
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
  /** Produce the account-wide gauges (default true); off on the shards other than 0 with `perDomain`. */
  readonly accountGauges?: boolean;
}

export function createCcAttackCollector(options: CcAttackOptions): Collector {
  checkSeriesOptions('cc-attack', options);
  nonNegative('cc-attack', 'summaryWindowMs', options.summaryWindowMs);
  const book = new AuditBook(options.audit ?? NO_AUDIT);
  return {
    name: 'cc-attack',
    targets: ['domains'],
    operations: ['describeL7CCAttack'],
    families: [options.perDomain ? CC_ATTACK_REQUESTS_BY_DOMAIN : CC_ATTACK_REQUESTS, ...(options.accountGauges === false ? [] : CC_GAUGES)],
    collect: (ctx) => collect(ctx, options, book),
  };
}

interface Unit {
  readonly target: Labels;
  readonly domains: readonly string[];
  readonly specs: readonly CounterSpec<CcParsed>[];
  readonly gaugeFamilies: readonly string[];
}

async function collect(ctx: CollectContext, options: CcAttackOptions, book: AuditBook): Promise<CollectOutput> {
  const log = ctx.log.child({ collector: 'cc-attack' });
  const gaugeFamilies = options.accountGauges === false ? [] : CC_GAUGES.filter((f) => ctx.enabled(f.name)).map((f) => f.name);
  const counter = ctx.enabled(CC_ATTACK_REQUESTS.name);
  // Every selected domain (whichever shard owns it), and this shard's own.
  const all = (ctx.targets.all ?? ctx.targets).domains;
  const own = ctx.targets.domains;
  // Account-wide: one unit with everything. Per domain: the gauges account-wide, the counter per domain.
  const units: Unit[] = options.perDomain
    ? [
      { target: {}, domains: all, specs: [], gaugeFamilies },
      ...(counter ? own.map((d) => ({ target: { domain: d }, domains: [d], specs: [ccCounter(d)], gaugeFamilies: [] })) : []),
    ]
    : [{ target: {}, domains: all, specs: counter ? [ccCounter()] : [], gaugeFamilies }];
  // No domain selected means nothing to ask ([] would mean every domain of the account).
  const active = units.filter((u) => u.domains.length > 0 && (u.specs.length > 0 || u.gaugeFamilies.length > 0));
  const runs = await Promise.all(active.map((u) => runUnit(ctx, options, log, u)));
  // Converted once every answer is in: another unit's points say how far the upstream's clock has got.
  const clock = upstreamClock(runs.map(({ unit, run }) => ({ specs: unit.specs, pieces: run.fetched.pieces })), { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes }, ctx.now);
  const outcomes = runs.map((r) => convertUnit(options, r, clock));
  const output = assemble({
    collector: 'cc-attack', previous: ctx.watermarks, gaugeFamilies,
    results: outcomes.map(([r]) => r), tallies: outcomes.map(([, t]) => t),
  });
  const grid = { interval: options.interval, offsetMinutes: ctx.tz.offsetMinutes };
  const auditUnits = runs.filter((r) => r.unit.specs.length > 0).map(({ unit, send, log: l }) => ({ specs: unit.specs, send, log: l }));
  const withAudit = await audited(book, auditUnits, grid, ctx.now, output);
  for (const [result] of outcomes) book.record(result.counted, ctx.now, grid);
  return withAudit;
}

interface UnitRun {
  readonly unit: Unit;
  readonly run: TrendTargetRun<CcParsed>;
  readonly log: CollectorLogger;
  send(span: TimeSpan, kind: 'main' | 'backfill'): Promise<CcParsed>;
}

async function runUnit(ctx: CollectContext, options: CcAttackOptions, log: CollectorLogger, unit: Unit): Promise<UnitRun> {
  const unitLog = Object.keys(unit.target).length > 0 ? log.child(unit.target) : log;
  const gauges = unit.gaugeFamilies.length > 0;
  const send = ccSender(
    { client: ctx.client, tz: ctx.tz, signal: ctx.signal, interval: options.interval, domains: unit.domains },
    ccMetrics(unit.specs.length > 0, unit.gaugeFamilies),
  );
  const run: TrendTargetRun<CcParsed> = await runTrendTarget({
    ctx, options, log: unitLog, target: unit.target, specs: unit.specs, send, gauges,
    gaugeWindowMs: gauges ? options.summaryWindowMs : undefined,
  });
  for (const piece of run.fetched.pieces) {
    if (piece.response && piece.response.issues.length > 0) unitLog.debug({ issues: piece.response.issues }, 'unrecognised CC attack items skipped');
  }
  return { unit, run, log: unitLog, send };
}

function convertUnit(options: CcAttackOptions, { unit, run, log }: UnitRun, clock: UpstreamClock | undefined): [TargetResult, Tally] {
  const result = convertCc({
    specs: unit.specs, plans: run.plans, pieces: run.fetched.pieces, main: run.fetched.main, grid: run.grid, ...(clock === undefined ? {} : { clock }),
    gauges: { windowBucket: run.currentBucket, timestamps: options.timestamps, families: unit.gaugeFamilies },
  });
  logUncovered(log, result);
  return [result, run.fetched];
}
