// The requests per hour this config makes (engine/requests.ts), for the
// daemon's log whenever the target lists change (at start-up, and when the
// account grows or shrinks) and for `doctor`: one line per source, the total,
// and a warning when it exceeds upstream.rate_limit.
import { budgetProblem, estimateRequests, type PolledCollector, type RequestEstimate } from '../../engine/index.js';
import { discoveryRequests, TargetDiscovery, type DiscoveryClient, type TargetCounts } from '../../collectors/index.js';
import { resolveCollectorOptions } from '../../config/index.js';
import { buildCollectors } from './collectors.js';
import type { Config } from '../../config/index.js';
import { platformClock } from '../../api/index.js';
import type { Logger } from '../../log/logger.js';

export function requestEstimate(config: Config, collectors: readonly PolledCollector[], targets: TargetCounts): RequestEstimate {
  return estimateRequests({
    collectors,
    targets,
    offsetMinutes: platformClock(config.upstream.timezone).offsetMinutes,
    discovery: { requests: discoveryRequests(config.targets, targets), everyMs: config.targets.refresh },
    ...(config.waf_events.enabled ? { wafEvents: wafRequests(config.waf_events) } : {}),
  });
}

function wafRequests(waf: Config['waf_events']): { everyMs: number; auditEveryMs?: number } {
  return { everyMs: waf.interval, ...(waf.audit.enabled ? { auditEveryMs: waf.audit.interval } : {}) };
}

/**
 * The estimate for the account behind `client` (`doctor`): its targets listed
 * as the daemon lists them (the same requests), its collectors built as the
 * daemon builds them. A listing that fails counts as none of that kind.
 */
export async function accountRequestEstimate(config: Config, client: DiscoveryClient, logger: Logger, signal?: AbortSignal): Promise<RequestEstimate> {
  const discovery = new TargetDiscovery({ client, config: config.targets, shard: config.shard, log: logger.child({ component: 'targets' }) });
  await discovery.refreshIfDue(Date.now(), signal);
  const targets = discovery.current();
  const collectors = buildCollectors(resolveCollectorOptions(config), config.shard);
  return requestEstimate(config, collectors, { domains: targets.domains.length, packages: targets.packages.length });
}

/** One info line with the total and each source's share; a warning when the budget is smaller. */
export function logRequestEstimate(logger: Logger, config: Config, estimate: RequestEstimate): void {
  const perCollector = Object.fromEntries(estimate.lines.map((l) => [l.source, Math.round(l.perHour)]));
  const budget = config.upstream.rate_limit;
  logger.info(
    { requests_per_hour: Math.round(estimate.perHour), per_source: perCollector, ...estimate.targets, rate_limit_per_hour: budget === undefined ? 'none' : budget * 3600 },
    'upstream requests per hour this config makes once caught up (audit re-reads included)',
  );
  const problem = budgetProblem(estimate, budget);
  if (problem !== undefined) logger.warn({ requests_per_hour: Math.round(estimate.perHour), rate_limit: budget }, problem);
}

/** The estimate as text for `doctor`: a table and the warning, if any. */
export function renderRequestEstimate(estimate: RequestEstimate, rateLimit: number | undefined): string {
  const round = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2));
  const rows = estimate.lines.map((l) =>
    `  ${l.source.padEnd(12)} ${round(l.perRun).padStart(6)} × ${round(l.runsPerHour).padStart(6)}/h` +
    (l.perAudit > 0 ? ` + audit ${round(l.perAudit)} × ${round(l.auditsPerHour)}/h` : '') +
    ` = ${Math.round(l.perHour)}/h`);
  const budget = rateLimit === undefined ? 'upstream.rate_limit: none' : `upstream.rate_limit: ${rateLimit}/s = ${Math.round(rateLimit * 3600)}/h`;
  const problem = budgetProblem(estimate, rateLimit);
  return [
    `requests per hour (${estimate.targets.domains} domains, ${estimate.targets.packages} packages; once caught up, audit included):`,
    ...rows,
    `  total        ${Math.round(estimate.perHour)}/h; ${budget}`,
    ...(problem === undefined ? [] : [`  warning: ${problem}`]),
  ].join('\n') + '\n';
}
