// Prometheus remote-write 1.0: the push sender with remote-write's encoding (protobuf WriteRequest, snappy) and headers.
import { PushSender, type PushProtocol } from '../push/sender.js';
import type { PushSenderOptions } from '../push/options.js';
import type { HistorySource } from '../push/source.js';
import { encodeBody } from './encode.js';

export interface RemoteWriteSenderOptions extends PushSenderOptions {
  /** Added to every series that has no label of that name. Default none (the config's default, job=edge-exporter, is mapped here). */
  readonly externalLabels?: Readonly<Record<string, string>>;
  /** Label values cut to this many characters, as /metrics cuts them (limits.label_value_length). Default: not cut. */
  readonly maxLabelValueLength?: number;
}

function remoteWriteProtocol(options: RemoteWriteSenderOptions): PushProtocol {
  const externalLabels = { ...options.externalLabels };
  const maxLabelValueLength = options.maxLabelValueLength ?? Infinity;
  return {
    name: 'remote write',
    encode: (pages) => encodeBody(pages, externalLabels, maxLabelValueLength),
    headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' },
  };
}

export class RemoteWriteSender extends PushSender {
  constructor(source: HistorySource, options: RemoteWriteSenderOptions, deps?: ConstructorParameters<typeof PushSender>[3]) {
    super(source, remoteWriteProtocol(options), options, deps);
  }
}
export { type PushAuth } from '../push/client.js';
export { type PushObserver, type RequestFailure } from '../push/observer.js';
