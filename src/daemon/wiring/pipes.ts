// The push pipes every account shares: for remote-write and for OTLP
// metrics, how an account keeps the pipe's history in its own state
// directory, every account's history joined (AccountHistories), and the one
// sender pushing it. Built once per daemon start, or again by a reload that
// changes a pipe's settings; an account's reload only replaces its history in
// the join.
import { AccountHistories, type HistoryQueues } from '../../counters/index.js';
import type { Config } from '../../config/index.js';
import type { AccountsView, SelfMetrics } from '../../exporters/prometheus/index.js';
import type { Logger } from '../../log/logger.js';
import type { Clock } from '../../shared/clock.js';
import type { MakeHistory } from './history.js';
import { insecureKeysOf, insecureWarning, logPipeRoutes, PIPE_CLIENTS, type OutboundNotices } from './network.js';
import { otlpMetricsHistory, wireOtlpMetrics, type OtlpMetrics } from './otlp-metrics.js';
import { remoteWriteHistory, wireRemoteWrite, type RemoteWrite } from './remote-write.js';

/** How an account keeps each configured pipe's history. */
export interface PipeHistories {
  readonly remoteWrite?: MakeHistory;
  readonly otlpMetrics?: MakeHistory;
}

export interface Pipes {
  readonly histories: PipeHistories;
  /** The joins the senders read; `join` makes the accounts' histories theirs. */
  join(accounts: ReadonlyMap<string, { readonly remoteWrite?: HistoryQueues; readonly otlpMetrics?: HistoryQueues }>): void;
  readonly remoteWrite?: RemoteWrite;
  readonly otlpMetrics?: OtlpMetrics;
}

interface PipeParts {
  readonly version: string;
  /** The daemon's self-metrics: the pipes' own. */
  readonly self: SelfMetrics;
  readonly view: AccountsView;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The daemon's notices: the pipes' connection failures, for the status page. */
  readonly outbound: OutboundNotices;
  /** Accounts are named: their samples carry `account`. */
  readonly labelled: boolean;
  /** Where a WAF denied counter series counts from (OTLP metrics' cumulative start). */
  readonly wafCountingSince: (labels: Readonly<Record<string, string>>) => number | undefined;
}

export function wirePipes(config: Config, parts: PipeParts): Pipes {
  const { self, logger, outbound } = parts;
  for (const key of insecureKeysOf(config, PIPE_CLIENTS)) logger.warn({ key }, insecureWarning(key));
  logPipeRoutes(config, logger);
  const rwLog = outbound.watch('remote_write', logger.child({ component: 'remote_write' }));
  const omLog = outbound.watch('otlp_metrics', logger.child({ component: 'otlp_metrics' }));
  const rwJoin = new AccountHistories(parts.labelled);
  const omJoin = new AccountHistories(parts.labelled);
  const rwHistory = remoteWriteHistory(config, self, rwLog, () => self.remoteWrite.pending(rwJoin.pendingSamples()));
  const omHistory = otlpMetricsHistory(config, self, omLog, () => self.otlpMetrics.pending(omJoin.pendingSamples()));
  const remoteWrite = wireRemoteWrite(config, rwJoin, rwLog, parts.version, self, parts.clock);
  const otlpMetrics = wireOtlpMetrics(config, parts.version, omJoin, {
    view: parts.view, self, clock: parts.clock, logger: omLog, wafCountingSince: parts.wafCountingSince,
  });
  const rwKept = rwHistory && keptPerStore(rwHistory);
  const omKept = omHistory && keptPerStore(omHistory);
  return {
    histories: { ...(rwKept ? { remoteWrite: rwKept } : {}), ...(omKept ? { otlpMetrics: omKept } : {}) },
    join: (accounts) => {
      rwJoin.set(only(accounts, 'remoteWrite'));
      omJoin.set(only(accounts, 'otlpMetrics'));
      self.remoteWrite.pending(rwJoin.pendingSamples());
      self.otlpMetrics.pending(omJoin.pendingSamples());
    },
    ...(remoteWrite ? { remoteWrite } : {}),
    ...(otlpMetrics ? { otlpMetrics } : {}),
  };
}

/**
 * One history per account state store for these pipes' life: an account's
 * rebuild (a reload) restores its new ledger into the queues the sender may
 * be pushing a page of right now, so that page settles where the new ledger
 * sees it, never pushed a second time (a duplicate delta point would count
 * twice in the receiver).
 */
function keptPerStore(make: MakeHistory): MakeHistory {
  const kept = new WeakMap<Parameters<MakeHistory>[0], HistoryQueues>();
  return (store, recovery) => {
    let history = kept.get(store);
    if (history === undefined) kept.set(store, (history = make(store, recovery)));
    return history;
  };
}

function only(
  accounts: ReadonlyMap<string, { readonly remoteWrite?: HistoryQueues; readonly otlpMetrics?: HistoryQueues }>, pipe: 'remoteWrite' | 'otlpMetrics',
): Map<string, HistoryQueues> {
  const out = new Map<string, HistoryQueues>();
  for (const [name, histories] of accounts) {
    const history = histories[pipe];
    if (history !== undefined) out.set(name, history);
  }
  return out;
}
