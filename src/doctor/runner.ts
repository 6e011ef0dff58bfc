// One doctor run: the first request alone (auth), then the timezone probe
// (its finding decides the zone every other probe writes its times in), then
// every other probe at once, all under one deadline; then the checks judged
// from what came back. Gathering does all the I/O and judging none, so a
// check reads like its assumption.
import { platformClock, type ReadClient } from '../api/index.js';
import type { Logger } from '../log/logger.js';
import { judgeAuth } from './auth.js';
import { gatherClock, judgeClock } from './clock.js';
import { gatherOperations, judgeOperations } from './operations.js';
import { gatherPaths, judgePaths } from './paths.js';
import type { DoctorSetup } from './setup.js';
import { Prober, type Answer } from './probe.js';
import { gatherPast, judgeRanges } from './ranges.js';
import { gatherRecords, judgeTimestamps, newestRecord } from './records.js';
import { judgeLateRevision } from './revision.js';
import { gatherSeries, judgeHoles, judgeWidths } from './series.js';
import { judgeBandwidth, judgeTotals } from './values.js';
import { gatherWafAudit, judgeWafAudit } from './waf-audit.js';
import { gatherZone, judgeZone } from './zone.js';
import { DOCTOR_CHECKS, unknownResult, type CheckId, type CheckResult, type DoctorReport } from './types.js';

/** Well under a minute, leaving the process time to print and exit. */
export const DOCTOR_DEADLINE_MS = 50_000;

interface DoctorOptions {
  /** Read operations only, and the prober refuses a write besides. */
  readonly client: ReadClient;
  readonly setup: DoctorSetup;
  readonly log: Logger;
  /** SIGTERM/SIGINT. */
  readonly signal: AbortSignal;
  readonly now?: () => number;
  readonly deadlineMs?: number;
}

/** Errors after which no other request can do better: the upstream is not there. */
const UNREACHABLE: ReadonlySet<string> = new Set(['EDGE_NETWORK', 'EDGE_TIMEOUT']);

function stopsEverything(first: Answer<unknown>, refused: boolean): boolean {
  return refused || first.kind === 'not_reached' || (first.kind === 'failed' && UNREACHABLE.has(first.error.code));
}

export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const now = options.now ?? Date.now;
  const started = performance.now();
  const deadlineMs = options.deadlineMs ?? DOCTOR_DEADLINE_MS;
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(deadlineMs)]);
  const prober = new Prober({ client: options.client, now, signal, deadlineMs, log: options.log });
  const { setup } = options;

  const first = await prober.ask('getPackages', {});
  let checks: CheckResult[];
  if (stopsEverything(first, prober.refusal !== undefined)) {
    const why = prober.refusal
      ? `not asked: the upstream refused the token (${prober.refusal.operation})`
      : 'not asked: the upstream did not answer the first request';
    checks = DOCTOR_CHECKS.map((id) => (id === 'auth' ? judgeAuth(first, prober.refusal, prober.answered) : unknownResult(id, why)));
  } else {
    const zone = judgeZone(await gatherZone(prober, setup), setup);
    // With the zone the upstream reads found, the rest is asked as it will be once upstream.timezone is set.
    const asking = zone.readZone === undefined ? setup : { ...setup, requestTz: platformClock(zone.readZone) };
    const [paths, series, records, clock, past, wafAudit] = await Promise.all([
      gatherPaths(prober, asking), gatherSeries(prober, asking), gatherRecords(prober, asking),
      gatherClock(prober, asking), gatherPast(prober, asking), gatherWafAudit(prober, asking), gatherOperations(prober, asking),
    ]);
    const judged: Record<CheckId, CheckResult> = {
      auth: judgeAuth(first, prober.refusal, prober.answered),
      path_prefix: judgePaths(paths),
      // Path probes name their spelling, so they are judged by path_prefix and never tallied here.
      operations: judgeOperations(prober.operations()),
      bucket_width: judgeWidths(series),
      missing_buckets: judgeHoles(series),
      totals: judgeTotals(series),
      bandwidth_unit: judgeBandwidth(series, setup.bandwidthUnit),
      timestamp_offset: judgeTimestamps(records, setup),
      out_of_range: judgeRanges(past, setup),
      clock_offset: judgeClock(clock, setup, newestRecord(records, setup.tz.offsetMinutes), now()),
      timezone: zone.result,
      late_revision: judgeLateRevision(setup),
      waf_audit: judgeWafAudit(wafAudit, setup),
    };
    checks = DOCTOR_CHECKS.map((id) => judged[id]);
  }
  const count = (v: CheckResult['verdict']) => checks.filter((c) => c.verdict === v).length;
  const refused = prober.refusal !== undefined || prober.answered === 0;
  const differs = count('differs');
  return {
    checks,
    summary: {
      ok: count('ok'), differs, unknown: count('unknown'), refused,
      requests: prober.sent, durationMs: Math.round(performance.now() - started),
      exitCode: differs > 0 || refused ? 1 : 0,
    },
  };
}
