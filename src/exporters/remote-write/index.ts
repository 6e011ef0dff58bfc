// Prometheus remote-write 1.0: RemoteWriteSender pushes the history source's pages (protobuf, snappy) one request at a time.
export { RemoteWriteSender, type RemoteWriteSenderDeps } from './sender.js';
export {
  DEFAULT_BATCH_SEND_DEADLINE_MS,
  DEFAULT_MAX_BACKOFF_MS,
  DEFAULT_MAX_SAMPLES_PER_SEND,
  DEFAULT_MIN_BACKOFF_MS,
  DEFAULT_SHUTDOWN_DEADLINE_MS,
  DEFAULT_TIMEOUT_MS,
  type RemoteWriteSenderOptions,
} from './options.js';
export type { RemoteWriteLogger, RemoteWriteObserver, RequestOutcome, SampleFailureReason } from './observer.js';
export {
  RemoteWriteClient,
  type RemoteWriteAuth,
  type RemoteWriteClientOptions,
  type RemoteWriteTlsOptions,
  type RemoteWriteTransport,
  type SendOutcome,
} from './client.js';
export { encodeBody, encodeWriteRequest, toTimeSeries, type Label, type TimeSeries, type WireSample } from './encode.js';
export { composeBatch, type Batch } from './batch.js';
export type { HistoryPage, HistorySource, PageSettlement, TimedSample } from './source.js';
