// OtlpLogSink: a LogSink whose deliver() resolves only when the OTLP receiver has confirmed every record.
import { context } from '@opentelemetry/api';
import { ExportResultCode, suppressTracing, type ExportResult } from '@opentelemetry/core';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { DeliveryError, type LogEvent, type LogSink } from '../../collectors/index.js';
import { Acknowledgements } from './acknowledgements.js';
import { resolveOptions, type OtlpLogSinkOptions, type ResolvedOptions } from './options.js';
import { createOtlpExporter, createPipeline, type Pipeline } from './pipeline.js';
import { toReadableLogRecords } from './record.js';
import { settlesWithin } from '../../shared/wait.js';
import { duplicatesOf, summarizeExportError, type ExportTarget } from './util.js';
import { maskUrl } from '../../shared/url-credentials.js';

export interface OtlpLogSinkDeps {
  /** Replaces the OTLP/HTTP exporter (tests). */
  readonly exporter?: LogRecordExporter;
}

type State = 'new' | 'started' | 'stopped';

/**
 * Each deliver() is one call of the SDK's OTLP exporter with the whole batch,
 * built as the SDK's Logger would emit it (toReadableLogRecords); deliver()
 * calls run one at a time, and success is read from the export result of each
 * record (ConfirmingExporter -> Acknowledgements). The SDK's batch processor
 * is not used: it dropped records beyond its queue, never retried, resolved
 * forceFlush() whatever the export's result, and cost an emit per record.
 */
export class OtlpLogSink implements LogSink {
  readonly maxBatch: number;
  private readonly options: ResolvedOptions;
  private readonly acks = new Acknowledgements();
  private state: State = 'new';
  private pipeline: Pipeline | undefined;
  /** Settles when the last deliver()'s export has called back (bounded); never rejects. */
  private tail: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;

  constructor(
    options: OtlpLogSinkOptions,
    private readonly deps: OtlpLogSinkDeps = {},
  ) {
    this.options = resolveOptions(options);
    this.maxBatch = this.options.maxBatch;
  }

  /** Where exports go, for a failed connection's description (the SDK's default endpoint when none is set). */
  private get target(): ExportTarget {
    const endpoint = this.options.endpoint ?? 'http://localhost:4318/v1/logs';
    return this.options.proxy === undefined ? { endpoint } : { endpoint, proxy: maskUrl(this.options.proxy) };
  }

  /** How long a record may wait for its export result before it counts as failed. */
  get ackDeadlineMs(): number {
    return this.options.timeoutMs + this.options.ackMarginMs;
  }

  /** Builds the exporter, its resource and scope. Idempotent; a shut-down sink does not start again. */
  start(): Promise<void> {
    if (this.state === 'stopped') return Promise.reject(new Error('OtlpLogSink: cannot start after shutdown'));
    if (this.state === 'new') {
      const exporter = this.deps.exporter ?? createOtlpExporter(this.options);
      this.pipeline = createPipeline(this.options, exporter, (uids, result) => this.onOutcome(uids, result));
      this.state = 'started';
    }
    return Promise.resolve();
  }

  /**
   * Resolves when the receiver has answered 2xx for every event; otherwise
   * rejects with a DeliveryError naming the uids not confirmed (all of them
   * for a batch refused up front: larger than maxBatch, duplicate uids, the
   * sink not started or shut down). Never hangs: an event without an export
   * result after timeoutMs + ackMarginMs counts as failed, and so does every
   * unconfirmed event once `signal` aborts.
   */
  async deliver(events: readonly LogEvent[], signal?: AbortSignal): Promise<void> {
    const uids = events.map((event) => event.uid);
    if (uids.length === 0) return;
    if (uids.length > this.maxBatch) {
      throw new DeliveryError(`a batch of ${uids.length} log events exceeds maxBatch ${this.maxBatch}; nothing was sent`, uids);
    }
    const duplicates = duplicatesOf(uids);
    if (duplicates.length > 0) {
      throw new DeliveryError(`duplicate log.record.uid in one batch (${duplicates.join(', ')}); nothing was sent`, uids);
    }
    if (this.state !== 'started') {
      throw new DeliveryError(`the OTLP log sink is ${this.state === 'new' ? 'not started' : 'shut down'}; nothing was sent`, uids);
    }
    return this.deliverInTurn(events, uids, signal);
  }

  /** Waits for deliveries in progress, then flushes the exporter. */
  async forceFlush(): Promise<void> {
    await this.tail;
    await this.pipeline?.exporter.forceFlush();
  }

  /** Refuses new deliveries, lets those accepted finish, then flushes and shuts the SDK down. Idempotent. */
  shutdown(): Promise<void> {
    this.stopping ??= (async () => {
      this.state = 'stopped';
      await this.tail;
      await this.pipeline?.exporter.shutdown();
    })();
    return this.stopping;
  }

  private async deliverInTurn(events: readonly LogEvent[], uids: readonly string[], signal: AbortSignal | undefined): Promise<void> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    let flushed: Promise<void> = Promise.resolve();
    try {
      await abortable(previous, signal);
      const pipeline = this.pipeline;
      if (pipeline === undefined) throw new Error('OtlpLogSink: no pipeline');
      signal?.throwIfAborted();
      const settled = this.acks.expect(uids, this.ackDeadlineMs, signal);
      flushed = exportBatch(pipeline.exporter, toReadableLogRecords(events, pipeline.resource, pipeline.scope));
      const { failed, cause } = await settled;
      if (failed.length > 0) {
        throw new DeliveryError(
          `${failed.length} of ${uids.length} log records not confirmed by the OTLP receiver: ${summarizeExportError(cause, this.target).message}`,
          failed,
          { cause },
        );
      }
      this.options.logger?.debug({ records: uids.length }, 'OTLP receiver confirmed log records');
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      throw new DeliveryError(`log records not delivered: ${summarizeExportError(error, this.target).message}`, uids, { cause: error });
    } finally {
      // One export at a time: the next deliver() waits for this one's result (bounded).
      void previous.then(() => settlesWithin(flushed, this.ackDeadlineMs)).then(release);
    }
  }

  private onOutcome(uids: readonly string[], result: ExportResult): void {
    this.acks.settle(uids, result);
    if (result.code !== ExportResultCode.SUCCESS) {
      this.options.logger?.warn({ records: uids.length, ...summarizeExportError(result.error, this.target) }, 'OTLP log export failed');
    }
  }
}

/**
 * One export of the whole batch, as the batch processor made it (tracing
 * suppressed around it); resolves when the exporter has called back, whatever
 * the result (the confirming exporter has settled the uids by then).
 */
function exportBatch(exporter: LogRecordExporter, records: ReadableLogRecord[]): Promise<void> {
  return new Promise<void>((resolve) => {
    context.with(suppressTracing(context.active()), () => exporter.export(records, () => resolve()));
  });
}

/** Waits for `promise` unless the signal aborts first (then throws its reason). */
function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
