// A push pipe's history as the daemon builds it, the same for remote-write and OTLP metrics: its queues over
// the state directory, its overflow and pending count reported to the pipe's self-metrics, and a damaged
// confirmations file put aside (state_recovery: reset) said in the log.
import { HistoryQueues } from '../../counters/index.js';
import type { SelfMetrics } from '../../exporters/prometheus/index.js';
import type { StateRecovery, StateStore } from '../../state/index.js';
import type { OutboundLogger } from './network.js';

/** How an account keeps one pipe's history in its state directory. */
export type MakeHistory = (store: StateStore, recovery: StateRecovery) => HistoryQueues;

interface PipeHistoryOptions {
  readonly pipe: ConstructorParameters<typeof HistoryQueues>[0]['pipe'];
  readonly store: StateStore;
  readonly recovery: StateRecovery;
  /** Most samples (points) per request, and so per page. */
  readonly pageSize: number;
  readonly maxPending: number;
  /** The pipe's self-metrics. */
  readonly recorder: SelfMetrics['remoteWrite'];
  readonly logger: OutboundLogger;
  /** What waits, in the log line: `samples`, `points`. */
  readonly unit: string;
  /** The pending count changed: the pipe's gauge is every account's sum (AccountHistories.pendingSamples). */
  readonly pending: () => void;
}

export function pipeHistory(o: PipeHistoryOptions): HistoryQueues {
  return new HistoryQueues({
    pipe: o.pipe,
    store: o.store,
    pageSize: o.pageSize,
    maxPendingSamples: o.maxPending,
    onDropped: (n) => o.recorder.samplesFailed(n, 'overflow'),
    onPending: () => o.pending(),
    recovery: o.recovery,
    onReset: (reset) => o.logger.error(
      { file: reset.file, keptAs: reset.keptAs, problem: reset.problem },
      `damaged ${o.pipe.name} confirmations kept aside (state_recovery: reset): the ${o.unit} still waiting in the ledger files are pushed again`,
    ),
  });
}
