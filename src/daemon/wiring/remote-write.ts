// The remote-write part of the wiring: the history each account's ledger
// keeps (pages in its state files, confirmations in remote-write-acks.json)
// and the one sender pushing every account's, configured from `remote_write`.
import { REMOTE_WRITE_PIPE, type AccountHistories } from '../../counters/index.js';
import { pipeHistory, type MakeHistory } from './history.js';
import { outboundEndpoint, type Config } from '../../config/index.js';
import type { SelfMetrics } from '../../exporters/prometheus/index.js';
import { RemoteWriteSender, type PushAuth } from '../../exporters/remote-write/index.js';
import type { OutboundLogger } from './network.js';
import { JobWatch, watchedObserver } from './job-watch.js';
import type { Clock } from '../../shared/clock.js';

/** The sender; absent when remote_write.url is not set. */
export interface RemoteWrite {
  readonly sender: RemoteWriteSender;
  /** Its pushes' outcomes, for the status page. */
  readonly watch: JobWatch;
}

/** How an account keeps its remote-write history; undefined when remote_write.url is not set. */
export function remoteWriteHistory(config: Config, self: Pick<SelfMetrics, 'remoteWrite'>, logger: OutboundLogger, pending: () => void): MakeHistory | undefined {
  if (outboundEndpoint(config, 'remote_write') === undefined) return undefined;
  const rw = config.remote_write;
  return (store, recovery) => pipeHistory({
    pipe: REMOTE_WRITE_PIPE, store, recovery, pageSize: rw.max_samples_per_send, maxPending: rw.max_pending_samples, recorder: self.remoteWrite, logger, unit: 'samples', pending,
  });
}

/** The one sender of every account's remote-write history (`history`). */
export function wireRemoteWrite(
  config: Config, history: AccountHistories, logger: OutboundLogger, version: string, self: Pick<SelfMetrics, 'remoteWrite'>, clock: Clock,
): RemoteWrite | undefined {
  const rw = config.remote_write;
  const endpoint = outboundEndpoint(config, 'remote_write');
  if (endpoint === undefined) return undefined;
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
  return { sender, watch };
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
