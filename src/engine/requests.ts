// The requests per hour a config makes, from the collectors it builds and
// their schedules: each collector declares what one run asks for its
// targets (Collector.requests, next to the code that builds the requests),
// and this multiplies by how often it runs and how often its audit is due.
// Once caught up: back-fill after downtime, retries, extra pages and the
// clock look-back of a collector whose answers are empty (series/lookback.ts,
// one request an hour at most) come on top. The daemon logs it when the
// target lists change, `doctor` prints it, and both warn when it exceeds
// upstream.rate_limit.
import { HOUR_MS } from '../api/time.js';
import { runsPerHour } from './schedule.js';
import type { PolledCollector } from './sample-job/job.js';
import type { TargetCounts } from '../collectors/collector.js';

export interface RequestLine {
  /** A collector's name, `targets` (discovery) or `waf_events`. */
  readonly source: string;
  readonly runsPerHour: number;
  readonly perRun: number;
  readonly auditsPerHour: number;
  readonly perAudit: number;
  readonly perHour: number;
}

export interface RequestEstimate {
  readonly targets: TargetCounts;
  readonly lines: readonly RequestLine[];
  readonly perHour: number;
}

interface EstimateInput {
  readonly collectors: readonly PolledCollector[];
  readonly targets: TargetCounts;
  /** The platform zone's offset: cron schedules run in it. */
  readonly offsetMinutes: number;
  /** Target discovery: requests of one refresh of every listed kind, and how often (0 requests: static lists). */
  readonly discovery?: { readonly requests: number; readonly everyMs: number };
  /** WAF event forwarding: at least one log query per poll; with the delivery audit, one logTread request per check. */
  readonly wafEvents?: { readonly everyMs: number; readonly auditEveryMs?: number };
}

export function estimateRequests(input: EstimateInput): RequestEstimate {
  const lines: RequestLine[] = [];
  for (const { collector, schedule } of input.collectors) {
    const made = collector.requests?.(input.targets);
    if (made === undefined) continue;
    const runs = runsPerHour(schedule, input.offsetMinutes);
    // The audit is due on the first run at least `everyMs` after the last one: whole run periods.
    const runMs = runs > 0 ? HOUR_MS / runs : Number.POSITIVE_INFINITY;
    const audits = made.audit === undefined || !Number.isFinite(runMs) ? 0 : HOUR_MS / (Math.ceil(made.audit.everyMs / runMs) * runMs);
    lines.push(line(collector.name, runs, made.run, audits, made.audit?.requests ?? 0));
  }
  if (input.discovery !== undefined && input.discovery.requests > 0) {
    lines.push(line('targets', HOUR_MS / input.discovery.everyMs, input.discovery.requests, 0, 0));
  }
  if (input.wafEvents !== undefined) {
    const { everyMs, auditEveryMs } = input.wafEvents;
    // A check runs on the first poll at least auditEveryMs after the last one: whole poll periods. Recoveries come on top.
    const audits = auditEveryMs === undefined ? 0 : HOUR_MS / (Math.ceil(auditEveryMs / everyMs) * everyMs);
    lines.push(line('waf_events', HOUR_MS / everyMs, 1, audits, audits > 0 ? 1 : 0));
  }
  return { targets: input.targets, lines, perHour: lines.reduce((n, l) => n + l.perHour, 0) };
}

function line(source: string, runs: number, perRun: number, audits: number, perAudit: number): RequestLine {
  return { source, runsPerHour: runs, perRun, auditsPerHour: audits, perAudit, perHour: runs * perRun + audits * perAudit };
}

/** What the estimate means against upstream.rate_limit (per second; undefined: none), or undefined when it fits. */
export function budgetProblem(estimate: RequestEstimate, ratePerSecond: number | undefined): string | undefined {
  if (ratePerSecond === undefined) return undefined;
  const budget = ratePerSecond * 3600;
  if (estimate.perHour <= budget) return undefined;
  return `the config makes about ${Math.round(estimate.perHour)} requests per hour, more than upstream.rate_limit allows ` +
    `(${ratePerSecond}/s = ${Math.round(budget)} per hour): requests will queue and data fall behind; raise the budget or make fewer requests`;
}
