// Prometheus remote-write 1.0: RemoteWriteSender pushes the history source's pages (protobuf, snappy) one request at a time.
export { RemoteWriteSender } from './sender.js';
export { type RemoteWriteSenderOptions } from './options.js';
export type { RemoteWriteLogger, RemoteWriteObserver, RequestOutcome } from './observer.js';
export { RemoteWriteClient, type RemoteWriteAuth, type RemoteWriteClientOptions } from './client.js';
export { encodeBody } from './encode.js';
export { composeBatch } from './batch.js';
export type { HistoryPage, HistorySource, Settlement, TimedSample } from './source.js';
