// One cycle of one collector, and restoring its state at start-up. A cycle: refresh targets when due, collect, then, in
// this order, add the increments to the ledger, persist it, and publish. State
// is on disk before anything is published, so a value Prometheus has seen is
// never lost or counted twice by a restart. Never throws: every outcome is a
// RunReport.
import type { PlatformClock } from '../../api/time.js';
import type { ReadClient } from '../../api/read-client.js';
import { FAIL_ON_DAMAGE, isoOrUnknown, loadRecovering, type StateRecovery } from '../../state/recovery.js';
import type { MismatchReporter } from '../../collectors/contract/reporter.js';
import type { JobLogger } from '../job.js';
import type { FamilyFilter } from '../../collectors/filter.js';
import { TARGET_LABEL, type TargetForgetter } from '../../collectors/targets/forget.js';
import type { CounterLedger } from '../../counters/ledger.js';
import { ledgerFileName, type LedgerStorage } from '../../counters/ledger-file.js';
import { describeError, errorFields, failureMessage } from '../../shared/errors.js';
import { totalsByReason, type RejectTally } from '../../collectors/rejects.js';
import type { TargetSource } from '../../collectors/targets/discovery.js';
import type { RejectLog } from './reject-log.js';
import type { CollectOutput, Collector, SampleSink } from '../../collectors/collector.js';
import type { RunReport } from '../reports.js';
import type { Clock } from '../../shared/clock.js';

export interface CycleDeps {
  readonly client: ReadClient;
  readonly tz: PlatformClock;
  readonly sink: SampleSink;
  readonly ledger: CounterLedger;
  readonly store: LedgerStorage;
  readonly targets: TargetSource;
  readonly filter: FamilyFilter;
  readonly clock: Clock;
  /** True once the engine has given up waiting for this run (stop timed out): its result is discarded. */
  readonly abandoned: () => boolean;
  /** Called when increments were applied but could not be saved; the job's flush() at stop retries the save. */
  readonly markDirty: () => void;
  readonly markClean: () => void;
  readonly mismatches: MismatchReporter;
  /** Audit outcomes, to the observer. */
  readonly onAudit: (collector: string, tally: NonNullable<CollectOutput['audit']>) => void;
  /** Which refused points get a log line (once per series, reason and hour). */
  readonly rejectLog: RejectLog;
  /** Judges targets that left the lists (targets.forget_after); none: nothing is forgotten. */
  readonly forgetter?: TargetForgetter;
}

/** Drops what the ledger holds of the collector's targets that left the lists long enough ago (forget.ts); returns their names. */
function forgetLeft(deps: CycleDeps, collector: Collector, now: number): string[] {
  if (deps.forgetter === undefined) return [];
  const listed = deps.targets.current();
  const forgotten: string[] = [];
  for (const kind of collector.targets ?? []) {
    const label = TARGET_LABEL[kind];
    const due = deps.forgetter.judge(kind, deps.ledger.targets(collector.name, label), listed[kind], now);
    deps.ledger.forget(collector.name, label, new Set(due));
    forgotten.push(...due);
  }
  return forgotten;
}

/** Whether a cycle that reported partial errors still produced something worth keeping. */
function producedOutput(out: CollectOutput): boolean {
  return out.gauges.size > 0 || out.increments.length > 0 || Object.keys(out.watermarks).length > 0;
}

export async function runCycle(deps: CycleDeps, collector: Collector, log: JobLogger, signal: AbortSignal): Promise<RunReport> {
  const name = collector.name;
  const now = deps.clock.now();
  // Refused points are reported whatever happens to the cycle after the watermarks passed them (a failed save included).
  let rejected: RejectTally | undefined;
  // Forgotten targets are gone from the ledger whatever happens to the cycle after; the report says so in every case.
  let forgotten: string[] = [];
  const report = (fields: Omit<RunReport, 'collector' | 'now' | 'durationMs'>): RunReport => ({
    collector: name,
    now,
    durationMs: Math.max(0, deps.clock.now() - now),
    ...(rejected === undefined ? {} : { rejected }),
    ...(forgotten.length === 0 ? {} : { forgottenTargets: forgotten }),
    ...fields,
  });

  let out: CollectOutput;
  try {
    await deps.targets.refreshIfDue(now, signal);
    for (const kind of collector.targets ?? []) {
      const missing = deps.targets.unavailable(kind);
      if (missing !== undefined) throw missing;
    }
    forgotten = forgetLeft(deps, collector, now);
    out = await collector.collect({
      client: deps.client,
      now,
      signal,
      tz: deps.tz,
      log,
      targets: deps.targets.current(),
      watermarks: deps.ledger.watermarks(name),
      enabled: (family) => deps.filter.enabled(family),
    });
  } catch (err) {
    if (signal.aborted) log.info(errorFields(err), 'collector run aborted: stopping');
    else log.warn(errorFields(err), failureMessage(err, 'collector run'));
    return report({ ok: false, error: describeError(err), partialErrors: 0 });
  }

  // Evidence about the upstream stands whatever happens to the cycle's results below.
  const operation = collector.operations[0];
  deps.mismatches.report(name, (out.mismatches ?? []).map((m) => (m.operation === undefined && operation !== undefined ? { ...m, operation } : m)));
  if (out.audit) deps.onAudit(name, out.audit);
  for (const err of out.errors) log.warn(errorFields(err), failureMessage(err, 'request (partial data)'));
  const partialErrors = out.errors.length;
  if (partialErrors > 0 && !producedOutput(out)) {
    return report({ ok: false, error: describeError(out.errors[0]), partialErrors });
  }
  if (deps.abandoned()) return report({ ok: false, error: { code: 'EDGE_ABORTED', message: 'stopped before the run finished' }, partialErrors });

  const { gauges, counted, corrected, bucketMs } = out;
  const history = { gauges, now, ...(counted === undefined ? {} : { counted }), ...(corrected === undefined ? {} : { corrected }), ...(bucketMs === undefined ? {} : { bucketMs }) };
  const refused = deps.ledger.apply(name, out, history).rejected;
  if (refused > 0) log.warn({ rejected: refused }, 'negative or non-finite increments ignored');
  // Once the watermarks passed them, and only then: a discarded run's points are read again next cycle, and counted then.
  if (out.rejected !== undefined && out.rejected.length > 0) {
    rejected = totalsByReason(out.rejected);
    for (const r of deps.rejectLog.due(out.rejected, now)) {
      log.warn(
        { series: r.series, reason: r.reason, count: r.count },
        'points refused and not counted (edge_exporter_points_rejected_total); this series and reason is logged again after an hour',
      );
    }
  }
  try {
    await deps.ledger.save(deps.store, name);
    deps.markClean();
  } catch (err) {
    // The ledger keeps the increments (the next save carries them), but they
    // are not published until they are on disk.
    deps.markDirty();
    log.error(errorFields(err), 'saving collector state failed; results not published');
    return report({ ok: false, error: describeError(err), partialErrors });
  }
  try {
    deps.sink.publish(name, { counters: deps.ledger.saved(name), gauges: out.gauges });
  } catch (err) {
    log.error(errorFields(err), 'publishing samples failed');
    return report({ ok: false, error: describeError(err), partialErrors });
  }
  log.debug(
    { increments: out.increments.length, gauges: out.gauges.size, partialErrors, durationMs: deps.clock.now() - now },
    'collector run finished',
  );
  return report({
    ok: true,
    partialErrors,
    ...(out.newestBucketEndMs === undefined ? {} : { newestBucketEndMs: out.newestBucketEndMs }),
    ...(out.targetNewestBucketEndMs === undefined ? {} : { targetNewestBucketEndMs: out.targetNewestBucketEndMs }),
  });
}

/**
 * Loads a collector's ledger. A damaged state file fails with its path and
 * what to do: silently starting the counters from 0 would make Prometheus
 * see a reset nobody asked for. Under state_recovery: reset the file is put
 * aside and the collector starts as on a first start, which never back-fills:
 * each series restarts at 0 from the buckets settling after now, so nothing
 * the lost counters held is counted again (the buckets that settled since the
 * file was last written are given up, and logged as such).
 */
export async function restoreLedger(
  ledger: CounterLedger,
  store: LedgerStorage,
  name: string,
  log: JobLogger,
  recovery: StateRecovery = FAIL_ON_DAMAGE,
): Promise<void> {
  // Outside the ledger file's recovery: a damaged acks file is not this collector's file to put aside.
  await ledger.prepare();
  const { value: found, reset } = await loadRecovering(recovery, ledgerFileName(name), () => ledger.load(store, name), {
    refusal: 'Refusing to start rather than reset its counters silently',
    remedy:
      `Restore it from a backup, or remove it to start "${name}" from 0 (Prometheus will see a counter reset), ` +
      'or set state_recovery: reset to have that done at start-up',
  });
  if (reset) {
    log.error(
      { file: reset.file, keptAs: reset.keptAs, problem: reset.problem, givenUpSince: isoOrUnknown(reset.lastWrittenMs) },
      'damaged state file kept aside (state_recovery: reset): counters restart at 0 (a counter reset for Prometheus); ' +
        'buckets settled since givenUpSince (the file\'s last write) are given up, none is counted twice',
    );
    return;
  }
  log.info({ restored: found === true }, found === true ? 'collector state restored' : 'no collector state: counters start at 0');
}
