// OtlpLogSink: a LogSink whose deliver() resolves only when the OTLP receiver has confirmed every record.
import type { Logger } from '@opentelemetry/api-logs';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import { DeliveryError, type LogEvent, type LogSink } from '../../collectors/types.js';
import { Acknowledgements } from './acknowledgements.js';
import { resolveOptions, type OtlpLogSinkOptions, type ResolvedOptions } from './options.js';
import { SCOPE_NAME, createOtlpExporter, createPipeline, type Pipeline } from './pipeline.js';
import { toLogRecord } from './record.js';
import { settlesWithin } from '../../shared/wait.js';
import { duplicatesOf, summarizeExportError } from './util.js';

export interface OtlpLogSinkDeps {
  /** Replaces the OTLP/HTTP exporter (tests). */
  readonly exporter?: LogRecordExporter;
}

type State = 'new' | 'started' | 'stopped';

/**
 * What the SDK does that this class is built around: the batch processor
 * drops records once its queue is full, never retries a failed export, and
 * resolves forceFlush() whatever the export's result; concurrent forceFlush()
 * calls return at once. So deliver() calls run one at a time, a batch never
 * exceeds the queue, each deliver() flushes, and success is read from the
 * export result of each record (ConfirmingExporter -> Acknowledgements).
 */
export class OtlpLogSink implements LogSink {
  readonly maxBatch: number;
  private readonly options: ResolvedOptions;
  private readonly acks = new Acknowledgements();
  private state: State = 'new';
  private pipeline: Pipeline | undefined;
  private logger: Logger | undefined;
  /** Settles when the last deliver() has released the processor; never rejects. */
  private tail: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;

  constructor(
    options: OtlpLogSinkOptions,
    private readonly deps: OtlpLogSinkDeps = {},
  ) {
    this.options = resolveOptions(options);
    this.maxBatch = this.options.maxBatch;
  }

  /** How long a record may wait for its export result before it counts as failed. */
  get ackDeadlineMs(): number {
    return this.options.timeoutMs + this.options.ackMarginMs;
  }

  /** Builds the exporter, processor and provider. Idempotent; a shut-down sink does not start again. */
  start(): Promise<void> {
    if (this.state === 'stopped') return Promise.reject(new Error('OtlpLogSink: cannot start after shutdown'));
    if (this.state === 'new') {
      const exporter = this.deps.exporter ?? createOtlpExporter(this.options);
      this.pipeline = createPipeline(this.options, exporter, (uids, result) => this.onOutcome(uids, result));
      this.logger = this.pipeline.provider.getLogger(SCOPE_NAME, this.options.resource.serviceVersion);
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

  /** Waits for deliveries in progress, then flushes the processor. */
  async forceFlush(): Promise<void> {
    await this.tail;
    await this.pipeline?.provider.forceFlush();
  }

  /** Refuses new deliveries, lets those accepted finish, then flushes and shuts the SDK down. Idempotent. */
  shutdown(): Promise<void> {
    this.stopping ??= (async () => {
      this.state = 'stopped';
      await this.tail;
      await this.pipeline?.provider.shutdown();
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
      const logger = this.logger;
      if (pipeline === undefined || logger === undefined) throw new Error('OtlpLogSink: no pipeline');
      signal?.throwIfAborted();
      const settled = this.acks.expect(uids, this.ackDeadlineMs, signal);
      for (const event of events) logger.emit(toLogRecord(event));
      flushed = pipeline.processor.forceFlush().catch(() => undefined);
      const { failed, cause } = await settled;
      if (failed.length > 0) {
        throw new DeliveryError(
          `${failed.length} of ${uids.length} log records not confirmed by the OTLP receiver: ${summarizeExportError(cause).message}`,
          failed,
          { cause },
        );
      }
      this.options.logger?.debug({ records: uids.length }, 'OTLP receiver confirmed log records');
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      throw new DeliveryError(`log records not delivered: ${summarizeExportError(error).message}`, uids, { cause: error });
    } finally {
      // Keep the processor to ourselves until our flush is over (bounded), so
      // the next deliver() gets a flush of its own rather than a no-op.
      void previous.then(() => settlesWithin(flushed, this.ackDeadlineMs)).then(release);
    }
  }

  private onOutcome(uids: readonly string[], result: ExportResult): void {
    this.acks.settle(uids, result);
    if (result.code !== ExportResultCode.SUCCESS) {
      this.options.logger?.warn({ records: uids.length, ...summarizeExportError(result.error) }, 'OTLP log export failed');
    }
  }
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
