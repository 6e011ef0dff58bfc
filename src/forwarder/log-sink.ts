// What the WAF event forwarder hands its events to (the OTel logs exporter
// implements LogSink): neutral records, the batch a sink takes them in, and the
// one error a delivery throws.
import { EdgeError } from '../shared/errors.js';

/** One log record in neutral terms: the collector maps upstream fields to these; exporters map them to OTel. */
export interface LogEvent {
  /** Stable unique id (the upstream's requestId); exported as `log.record.uid`. */
  readonly uid: string;
  /** When the event happened, epoch ms. */
  readonly timestampMs: number;
  /** When the exporter read it, epoch ms. */
  readonly observedMs: number;
  readonly severity: 'ERROR' | 'WARN' | 'INFO' | 'UNSPECIFIED';
  /** The upstream's own severity wording (e.g. 高风险). */
  readonly severityText: string;
  /** The LogRecord's event name (not the deprecated `event.name` attribute). */
  readonly eventName: string;
  /** Short human-readable summary. */
  readonly body: string;
  readonly attributes: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}

/** Where and why a delivery failed, as log fields: the endpoint, a failed connection's address, reason and hint, an HTTP status. */
type DeliveryDetail = Readonly<Record<string, string | number>>;

/** Thrown by LogSink.deliver when some events were not confirmed by the receiver. */
export class DeliveryError extends EdgeError {
  readonly code = 'EDGE_DELIVERY';
  readonly detail: DeliveryDetail;
  /** host:port of the receiver (or of the proxy that refused), when the delivery reached for one: the status page's row. */
  readonly address: string | undefined;
  /** The one setting to look at, for a failed connection. */
  readonly hint: string | undefined;
  constructor(message: string, readonly failedUids: readonly string[], options?: { cause?: unknown; detail?: DeliveryDetail }) {
    super(message, options);
    this.detail = options?.detail ?? {};
    const { address, hint } = this.detail;
    this.address = typeof address === 'string' ? address : undefined;
    this.hint = typeof hint === 'string' ? hint : undefined;
  }
}

/**
 * A sink's batch, filled as events are read: the sink takes each event as it
 * is added (the OTLP sink encodes its record then), so the caller need not
 * hold it whole until the batch is delivered.
 */
export interface LogBatch {
  /** Events added so far. */
  readonly size: number;
  add(event: LogEvent): void;
}

/** Where log events go: the OTel logs exporter implements it. */
export interface LogSink {
  /** Most events one batch may hold: a larger one is refused whole, so nothing is dropped by a full queue. */
  readonly maxBatch: number;
  /** A new, empty batch of this sink's. */
  batch(): LogBatch;
  /**
   * Resolves only when the receiver has confirmed every event of `batch`;
   * rejects with a DeliveryError naming the events it did not confirm, and
   * the same batch may be delivered again. A confirmed batch is spent: what
   * the sink held of it is its own again, and it is not delivered twice.
   */
  deliver(batch: LogBatch, signal?: AbortSignal): Promise<void>;
}
