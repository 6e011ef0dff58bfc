// The remote-write part of the wiring: the history the collectors' ledgers
// keep (pages in their state files, confirmations in remote-write-acks.json)
// and the sender pushing it, configured from `remote_write`.
import { REMOTE_WRITE_PIPE, type HistoryQueues } from '../../counters/index.js';
import { pipeHistory } from './history.js';
import { outboundEndpoint, type Config } from '../../config/index.js';
import type { SelfMetrics } from '../../exporters/prometheus/index.js';
import { RemoteWriteSender, type PushAuth } from '../../exporters/remote-write/index.js';
import type { OutboundLogger } from './network.js';
import { JobWatch, watchedObserver } from './job-watch.js';
import type { Clock } from '../../shared/clock.js';
import type { StateRecovery, StateStore } from '../../state/index.js';

/** The history and its sender; absent when remote_write.url is not set. */
export interface RemoteWrite {
  readonly history: HistoryQueues;
  readonly sender: RemoteWriteSender;
  /** Its pushes' outcomes, for the status page. */
  readonly watch: JobWatch;
}

export function wireRemoteWrite(
  config: Config, logger: OutboundLogger, version: string, self: Pick<SelfMetrics, 'remoteWrite'>, store: StateStore, recovery: StateRecovery, clock: Clock,
): RemoteWrite | undefined {
  const rw = config.remote_write;
  const endpoint = outboundEndpoint(config, 'remote_write');
  if (endpoint === undefined) return undefined;
  const history = pipeHistory({
    pipe: REMOTE_WRITE_PIPE, store, recovery, pageSize: rw.max_samples_per_send, maxPending: rw.max_pending_samples, recorder: self.remoteWrite, logger, unit: 'samples',
  });
  const auth = authOf(rw);
  const watch = new JobWatch(clock);
  const sender = new RemoteWriteSender(history, {
    endpoint,
    timeoutMs: rw.timeout,
    headers: rw.headers,
    ...(auth === undefined ? {} : { auth }),
    externalLabels: rw.external_labels,
    maxLabelValueLength: config.limits.label_value_length,
    maxSamplesPerSend: rw.max_samples_per_send,
    batchSendDeadlineMs: rw.batch_send_deadline,
    minBackoffMs: rw.min_backoff,
    maxBackoffMs: rw.max_backoff,
    userAgent: `edge-exporter/${version}`,
    logger,
    observer: watchedObserver(self.remoteWrite, watch),
  });
  return { history, sender, watch };
}

function authOf(rw: Config['remote_write']): PushAuth | undefined {
  if (rw.basic_auth !== undefined) {
    const { username, password, password_file } = rw.basic_auth;
    return { type: 'basic', username, ...(password === undefined ? {} : { password }), ...(password_file === undefined ? {} : { passwordFile: password_file }) };
  }
  if (rw.bearer_token !== undefined) return { type: 'bearer', token: rw.bearer_token };
  if (rw.bearer_token_file !== undefined) return { type: 'bearer', tokenFile: rw.bearer_token_file };
  return undefined;
}
