// Prometheus remote-write 1.0: RemoteWriteSender pushes the history source's pages (protobuf, snappy) one request at a time.
export { RemoteWriteSender } from './sender.js';
export { type RemoteWriteAuth } from './client.js';
export { type RemoteWriteObserver, type RequestFailure } from './observer.js';
