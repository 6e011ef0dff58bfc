// The status page's rows: every job an account's engine runs and every push
// sender, from what each already keeps (the engine's run state, the delivery
// and push watches) and the lag its self-metric would show at this moment
// (SelfMetrics.readings, the same series /metrics serves: the account's for
// its jobs, the daemon's for the senders), so the page and a scrape never disagree.
import type { CollectorStatus } from '../engine/index.js';
import type { SelfReadings } from '../exporters/prometheus/index.js';
import type { JobStatus } from '../server/index.js';
import { jobError, type Watched } from './wiring/job-watch.js';
import type { Account } from './accounts.js';
import type { Pipes } from './wiring/pipes.js';

/** An account's collectors (the engine's order), then its WAF event forwarder. */
export function accountRows(account: Account, readings: SelfReadings): JobStatus[] {
  const { engine, wafEvents } = account.parts;
  const collectors = engine.status('samples').map((c) => ({ ...ranRow(c, 'collector'), ...lag(readings.dataLagSeconds.get(c.name)) }));
  const audit = wafEvents?.forwarder.stats().audit;
  const forwarder = engine.status('events').map((c) => ({
    ...forwarderRow(c, wafEvents?.delivery.watched ?? {}, readings.wafCheckpointLagSeconds),
    ...(audit === undefined ? {} : { audit: { ...readings.wafAudit, bucketsShort: audit.bucketsShort, ...(audit.checkedMs === undefined ? {} : { checkedAt: audit.checkedMs }) } }),
  }));
  return [...collectors, ...forwarder];
}

/** The remote-write and OTLP metrics senders when configured; `readings` the daemon's own. */
export function senderRows(pipes: Pipes, readings: SelfReadings): JobStatus[] {
  const { remoteWrite, otlpMetrics } = pipes;
  const sender = (name: string, watched: Watched, lagSeconds: number | undefined): JobStatus => ({ name, kind: 'sender', running: false, ...watchedFields(watched), ...lag(lagSeconds) });
  return [
    ...(remoteWrite === undefined ? [] : [sender('remote-write', remoteWrite.watch.watched, readings.remoteWriteLagSeconds)]),
    ...(otlpMetrics === undefined ? [] : [sender('otlp-metrics', otlpMetrics.watch.watched, readings.otlpMetricsLagSeconds)]),
  ];
}

/**
 * The forwarder's polls are engine runs, but a failing delivery is retried
 * inside one poll: while it fails, the row says so (the poll still shows
 * as running), and the poll's own outcome otherwise.
 */
function forwarderRow(run: CollectorStatus, delivery: Watched, lagSeconds: number | undefined): JobStatus {
  const row = { ...ranRow(run, 'forwarder'), ...lag(lagSeconds) };
  if (delivery.failing === undefined || delivery.lastError === undefined) return row;
  return { ...row, lastOutcome: 'error', lastError: delivery.lastError, failing: delivery.failing };
}

function ranRow(c: CollectorStatus, kind: JobStatus['kind']): JobStatus {
  return {
    name: c.name,
    kind,
    running: c.running,
    ...(c.lastRunAt === undefined ? {} : { lastRunAt: c.lastRunAt }),
    ...(c.lastSuccessAt === undefined ? {} : { lastSuccessAt: c.lastSuccessAt }),
    ...(c.lastOutcome === undefined ? {} : { lastOutcome: c.lastOutcome }),
    ...(c.lastError === undefined ? {} : { lastError: jobError(c.lastError) }),
  };
}

function watchedFields(w: Watched): Omit<JobStatus, 'name' | 'kind' | 'running'> {
  return {
    ...(w.lastRunAt === undefined ? {} : { lastRunAt: w.lastRunAt }),
    ...(w.lastSuccessAt === undefined ? {} : { lastSuccessAt: w.lastSuccessAt }),
    ...(w.lastOutcome === undefined ? {} : { lastOutcome: w.lastOutcome }),
    ...(w.lastError === undefined ? {} : { lastError: w.lastError }),
    ...(w.failing === undefined ? {} : { failing: w.failing }),
  };
}

function lag(seconds: number | undefined): { lagSeconds?: number } {
  return seconds === undefined ? {} : { lagSeconds: seconds };
}
